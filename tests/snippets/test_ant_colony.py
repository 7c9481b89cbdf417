"""The ant colony (C16, C26): the statistics the registry's rules read, asserted on the run.

Each test reads a recorded number; none recomputes what the snippet measures."""


def test_enough_colonies_are_trained(results):
    r = results("ant_colony")
    assert r.number("n_seeds") >= 8
    # The stacked model is VerbReadsSentence, colony by colony (measured 0.0).
    assert r.number("stacked_vs_module_error") < 1e-5


def test_at_step_0_no_colony_prefers_the_object(results):
    r = results("ant_colony")
    # Measured: the object gets the verb's largest weight in 10 %-24 % of sentences
    # (five words to choose from, so about 20 % by chance).
    assert r.number("object_first_start_max") < 0.5


def test_every_colony_learns_to_look_hardest_at_the_object_in_most_sentences(results):
    r = results("ant_colony")
    # Measured 75 %-100 % of sentences after training (mean 88 %), from at most 24 %.
    assert r.number("object_first_mean") >= 0.5
    assert r.number("object_first_min") > r.number("object_first_start_max")


def test_few_colonies_reach_the_95_percent_bar(results):
    r = results("ant_colony")
    # The bar was set before the run; measured 1 colony of 10 reaches it. This is
    # what keeps C16 from "verified": the match is a tendency, not the rule.
    assert r.number("object_first_seeds") < 0.75 * r.number("n_seeds")


def test_the_verb_cannot_answer_without_looking(results):
    r = results("ant_colony")
    # Attention frozen to an even spread: 50 % in every control colony (a guess between
    # object and distractor); trained attention: 100 % in every colony.
    assert r.number("control_accuracy_max") <= 0.6
    assert r.number("accuracy_min") == 1.0


def test_keys_of_same_kind_nouns_grow_alike_but_values_do_not(results):
    r = results("ant_colony")
    # Mean cosine between same-kind nouns: keys 0.26-0.70 after training (at most 0.09
    # at step 0); values -0.12-0.02.
    assert r.number("key_same_kind_min") > r.number("key_same_kind_start_max")
    assert r.number("value_same_kind_max") < 0.15


def test_verbs_taking_the_same_kind_of_object_have_queries_pointing_the_same_way(results):
    r = results("ant_colony")
    # Same-kind minus different-kind query cosine: 0.79-1.03 (bar 0.2), in 10 of 10 colonies.
    assert r.number("query_same_class_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("query_cosine_gap_start_max") < r.number("query_gap_bar")


def test_a_linear_probe_reads_the_object_kind_from_a_held_out_verbs_query(results):
    r = results("ant_colony")
    # Leave-one-verb-out ridge probe: 100 % in every colony after training, 14 % on
    # average at step 0; chance 25 %.
    assert r.number("query_probe_accuracy_mean") >= 0.75
    assert r.number("query_probe_accuracy_start_mean") < 0.5
