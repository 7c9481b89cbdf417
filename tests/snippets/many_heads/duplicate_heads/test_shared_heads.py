"""Why heads differ (4), C12: heads forced to share their weights vs free heads, over seeds.
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import numpy as np


def test_shared_heads_really_attend_alike(results):
    # Sharing W_Q, W_K, W_V means the same attention pattern, exactly.
    assert results("many_heads.duplicate_heads.shared_heads").number("shared_pattern_gap") == 0.0


def test_free_wins_are_the_per_seed_comparison_of_held_out_losses(results):
    r = results("many_heads.duplicate_heads.shared_heads")
    free, shared = np.float32(r.per_seed("loss_free_mean")), np.float32(r.per_seed("loss_shared_mean"))
    assert r.per_seed("free_wins_seeds") == (free < shared).astype(float).tolist()
    assert all(loss > 0 for loss in r.per_seed("loss_free_mean") + r.per_seed("loss_shared_mean"))


def test_exercise_answers(results):
    # Heads with shared W_Q, W_K, W_V compute the same head output, so one head with both
    # columns of W^O is the same layer, up to float32 rounding.
    assert results("many_heads.duplicate_heads.shared_heads").number("exercise_merged_change_shared_max") < 1e-4


def test_the_free_heads_exercise_is_a_relative_change(results):
    assert results("many_heads.duplicate_heads.shared_heads").number("exercise_merged_change_free_max") >= 0
