"""The ant colony (C16, C26): the computations behind the numbers; the verdicts are the
rules' (docs/claims.yml)."""

import numpy as np


def test_the_stacked_model_is_the_colony_model_colony_by_colony(results):
    assert results("three_roles.ant_colony").number("stacked_vs_module_error") < 1e-5


def test_the_seed_counts_apply_the_bars_set_before_the_run(results):
    r = results("three_roles.ant_colony")
    share = np.float32(r.per_seed("object_first_mean"))
    bar = np.float32(r.number("object_first_bar"))
    assert r.per_seed("object_first_seeds") == (share >= bar).astype(float).tolist()
    gap = np.float32(r.per_seed("query_cosine_gap_mean"))
    assert r.per_seed("query_same_class_seeds") == (gap >= np.float32(r.number("query_gap_bar"))).astype(float).tolist()


def test_shares_and_weights_lie_between_zero_and_one(results):
    r = results("three_roles.ant_colony")
    for key in ("object_first_mean", "object_first_start_mean", "attention_on_object_mean",
                "query_probe_accuracy_mean", "query_probe_accuracy_start_mean", "accuracy_mean"):
        assert all(-1e-6 <= v <= 1 + 1e-6 for v in r.per_seed(key)), key
    assert r.number("query_probe_chance") == 0.25 and r.number("uniform_weight") == 0.2


def test_without_positions_reversing_the_words_changes_nothing(results):
    # Exercise 2: attention without position embeddings is a sum over the words, so
    # reversing them reorders its terms: the logits move by rounding, the answers not at all.
    r = results("three_roles.ant_colony")
    assert r.number("exercise_reversed_largest_logit_change") < 1e-4
    assert abs(r.number("exercise_reversed_accuracy_mean") - r.number("accuracy_mean")) < 1e-9


def test_exercise_answers_are_accuracies(results):
    # Exercise 1 (attention frozen to an even spread) is scored like the trained colonies.
    assert 0 <= results("three_roles.ant_colony").number("exercise_even_attention_accuracy_mean") <= 1
