"""The ant colony, for real (C16): what the page claims, asserted on the snippet's run."""


def test_before_training_the_verb_has_no_preference(results):
    r = results("ant_colony")
    # Step 0: the object's key outscores the distractor's in 40 % of pairs (chance 50 %),
    # and the verb spreads its attention evenly (0.18 on the object; even spread 0.20).
    assert r.number("key_ranking_start") < 0.6
    assert abs(r.number("attention_on_object_start") - r.number("uniform_weight")) < 0.1


def test_after_training_the_verbs_query_matches_its_objects_key(results):
    r = results("ant_colony")
    # Measured 97 % of (verb, object, other noun) pairs ranked right; q·k(追逐, 激光点) 11.0
    # against q·k(追逐, 苹果) −2.8, from 0.12 at step 0.
    assert r.number("key_ranking_end") >= 0.95
    assert r.number("qk_chase_laser_end") > r.number("qk_chase_apple_end") + 5
    assert abs(r.number("qk_chase_laser_start")) < 1


def test_chase_looks_at_the_laser_dot_not_the_apple(results):
    r = results("ant_colony")
    # In 猫 在 苹果 旁边 追逐 激光点: 0.22 on 激光点 at step 0, 1.00 at the end, 0.000 on 苹果.
    assert r.number("example_weight_laser_start") < 0.4
    assert r.number("example_weight_laser_end") > 0.9
    assert r.number("example_weight_apple_end") < 0.05


def test_the_verb_cannot_answer_without_looking(results):
    r = results("ant_colony")
    # Attention frozen to an even spread: 50 % (it can only guess between object and
    # distractor); trained attention: 100 %.
    assert r.number("uniform_control_accuracy") <= 0.6
    assert r.number("accuracy") == 1.0


def test_keys_of_same_kind_nouns_grow_alike_but_values_do_not(results):
    r = results("ant_colony")
    # Mean cosine between same-kind nouns: keys −0.02 → 0.45; values end at −0.01.
    assert r.number("key_same_kind_end") > r.number("key_same_kind_start") + 0.25
    assert r.number("value_same_kind_end") < 0.15


def test_other_random_starts_learn_it_too_but_not_perfectly(results):
    r = results("ant_colony")
    # Four more seeds: 88 %–96 % of pairs ranked right, every sentence answered correctly.
    # The stricter bar of 95 % is not met by all, hence "nuanced", not "verified".
    assert r.number("other_seeds_min_key_ranking") > 0.8
    assert r.number("other_seeds_min_accuracy") == 1.0
    assert r.verdict("C16") == ("verified" if r.number("other_seeds_matching") == 4 else "nuanced")


def test_misranked_pairs_stay_misranked_with_more_training(results):
    r = results("ant_colony")
    # 0.97 after 300 steps, 0.97 after 600: the loss is near zero and the softmax saturated.
    assert abs(r.number("key_ranking_twice_as_long") - r.number("key_ranking_end")) < 0.02


def test_some_attention_is_parked_on_function_words(results):
    r = results("ant_colony")
    # 0.17 of the verbs' attention on 在/旁边 on average; per verb 1.00, 0.67, 1.00, 0.66.
    assert r.number("attention_on_function_words_end") > 0.05
    per_verb = [r.number(f"attention_on_object_{v}") for v in ("eat", "chase", "drink", "read")]
    assert min(per_verb) < 0.8 < max(per_verb)
