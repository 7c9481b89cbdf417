"""A head for "it", inside the entity head: q·k, the value it hands on, and which prediction
each head carries. Over seeds. The computations behind the numbers; the verdicts are the rules'
(docs/claims.yml)."""

import numpy as np


def f32(values) -> np.ndarray:
    return np.float32(values)          # the snippet compares float32 tensors: so does the test


def test_the_seed_counts_are_per_seed_comparisons_of_the_recorded_values(results):
    r = results("many_heads.a_head_for_it.inside_the_entity_head")
    share = f32(r.per_seed("value_share_antecedent_mean"))
    assert r.per_seed("value_share_antecedent_seeds") == (share >= 0.5).astype(float).tolist()
    wins = f32(r.per_seed("qk_animal_wins_mean"))
    assert r.per_seed("qk_prefers_antecedent_seeds") == (wins > 0.5).astype(float).tolist()


def test_the_animal_wins_share_is_a_share_of_sentences(results):
    r = results("many_heads.a_head_for_it.inside_the_entity_head")
    assert all(-1e-6 <= v <= 1 + 1e-6 for v in r.per_seed("qk_animal_wins_mean"))


def test_the_ignored_animal_words_are_counted_among_the_languages_animals(results):
    # per seed, a whole number of the language's animal words; the share named right is a share
    r = results("many_heads.a_head_for_it.inside_the_entity_head")
    animals = r.number("animal_words")
    for count in r.per_seed("ignored_animal_words_mean"):
        assert 0 <= count <= animals and count == round(count)
    assert 0 <= r.number("ignored_named_correctly") <= 1


def test_exercise_answers_are_accuracies_of_the_same_probe(results):
    r = results("many_heads.a_head_for_it.inside_the_entity_head")
    assert 0 <= r.number("exercise_without_entity_antecedent_mean") <= 1
    assert 0 <= r.number("exercise_without_other_antecedent_mean") <= 1
    assert 0 <= r.number("exercise_without_entity_verb_mean") <= 1
    assert 0 <= r.number("exercise_without_other_verb_mean") <= 1
