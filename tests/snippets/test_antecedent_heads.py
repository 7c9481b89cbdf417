"""A head for "it": do two heads of one layer divide a positional and an entity job? Over seeds."""


def test_every_seed_is_counted(results):
    assert results("antecedent_heads").number("n_seeds") >= 8


def test_the_model_learns_agreement_and_the_antecedent(results):
    r = results("antecedent_heads")
    assert r.number("verb_accuracy_mean") >= 0.95          # measured 1.00
    assert r.number("antecedent_accuracy_mean") >= 0.95    # measured 0.98 (min 0.83)


def test_heads_of_one_layer_rarely_split_into_a_positional_and_an_entity_head(results):
    # C07's toy statistic, by the registry's definition (previous-token score over all
    # positions >= 0.5 in one head, pronoun -> antecedent >= 0.5 in another):
    # measured 0 of 8 seeds. The previous-token score stays below 0.5 (0.39 on average
    # for the most positional head) because only the adverbs need the word before.
    r = results("antecedent_heads")
    assert r.number("same_layer_split_seeds") <= 0.25 * r.number("n_seeds")
    assert r.number("positional_previous_max") < 0.5


def test_measured_where_agreement_needs_it_the_split_is_still_a_minority(results):
    # At the adverbs the most positional head puts 0.82 on the noun before (mean), yet
    # only 3 of 8 seeds have that head AND a different entity head: often one head does both.
    r = results("antecedent_heads")
    assert r.number("positional_at_adverbs_mean") >= 0.7
    assert r.number("same_layer_split_at_adverbs_seeds") < 0.75 * r.number("n_seeds")
    assert r.number("entity_head_seeds") >= 0.75 * r.number("n_seeds")   # measured 7 of 8


def test_the_entity_head_prefers_the_animal_key_over_the_thing_key(results):
    # C02 (toy): q(it)·k(animal) above q(it)·k(thing) in most sentences in 8 of 8 seeds;
    # means 9.4 vs -3.4, but in 0.85 of the sentences only (some animal words are
    # answered by elimination, not looked at).
    r = results("antecedent_heads")
    assert r.number("qk_prefers_antecedent_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("qk_animal_mean") > r.number("qk_thing_mean") + 5
    assert r.number("qk_animal_wins_mean") < 0.95
    assert r.number("ignored_named_correctly") > 0.8       # measured 0.90


def test_the_entity_heads_output_at_it_is_mostly_v_animal(results):
    # C03 (toy): share of v(animal) in the head's output at it 0.79 on average (>= 0.5
    # in 7 of 8 seeds), of v(thing) 0.00.
    r = results("antecedent_heads")
    assert r.number("value_share_antecedent_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("value_share_antecedent_mean") > r.number("value_share_thing_mean") + 0.5


def test_one_head_of_the_same_width_is_worse_on_the_pronoun(results):
    # C08 reads these: 0.89 vs 0.99 overall, two heads better in 7 of 8 seeds; the
    # single head names the animal in 0.71 of sentences.
    r = results("antecedent_heads")
    assert r.number("two_heads_better_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("single_accuracy_mean") < r.number("two_head_accuracy_mean") - 0.02
    assert r.number("single_antecedent_accuracy_mean") < 0.9
