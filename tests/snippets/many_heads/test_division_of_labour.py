"""Division of labour between layers: a previous-token head feeds an induction head, over seeds.
The computations behind the numbers (this page decides no claim on its own).

This page is about layers; the same-layer split of C07 is in test_a_head_for_it.py."""

import numpy as np


def test_a_layer_split_seed_has_both_heads(results):
    r = results("many_heads.division_of_labour")
    both = r.per_seed("layer_split_seeds")
    assert both == [float(p and i) for p, i in zip(r.per_seed("previous_head_seeds"),
                                                   r.per_seed("induction_head_seeds"))]


def test_the_control_and_ablation_counts_compare_the_recorded_accuracies(results):
    r = results("many_heads.division_of_labour")
    accuracy = np.float32(r.per_seed("accuracy_mean"))
    without = np.float32(r.per_seed("ablate_previous_head_mean"))
    assert r.per_seed("previous_head_needed_seeds") == (without <= accuracy - np.float32(0.2)).astype(float).tolist()


def test_scores_are_attention_weights(results):
    r = results("many_heads.division_of_labour")
    for key in ("induction_score_mean", "induction_score_at_init_mean", "induction_score_layer0_mean",
                "control_induction_score_max"):
        assert -1e-6 <= r.number(key) <= 1 + 1e-6, key
    assert r.number("exercise_without_positions_min") <= r.number("exercise_without_positions_max")


def test_exercise_answers_are_accuracies(results):
    r = results("many_heads.division_of_labour")
    assert 0 <= r.number("exercise_without_layer1_mean") <= 1
    assert 0 <= r.number("exercise_without_positions_mean") <= 1
