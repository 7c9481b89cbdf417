"""Why heads differ (3), C11: does dropping whole heads in training make them carry
complementary information? The computations behind the numbers; the verdict is the rule's."""

import numpy as np


def test_the_seed_counts_are_per_seed_comparisons_of_the_two_arms(results):
    r = results("many_heads.duplicate_heads.head_dropout")
    none, dropout = np.float32(r.per_seed("r2_none_mean")), np.float32(r.per_seed("r2_dropout_mean"))
    # less_redundant_seeds keeps each seed's change of R^2 (with dropout minus without) and
    # counts the seeds where it is below 0: where dropout lowered R^2.
    change = np.float64(r.per_seed("less_redundant_seeds"))
    assert r.data["numbers"]["less_redundant_seeds"]["of"] == "count_below"
    assert r.data["numbers"]["less_redundant_seeds"]["line"] == 0.0
    assert change.tolist() == (dropout - none).astype(float).tolist()
    assert ((change < 0) == (dropout < none)).all() and r.number("less_redundant_seeds") == (dropout < none).sum()
    none = np.float32(r.per_seed("ablation_cost_none_mean"))
    dropout = np.float32(r.per_seed("ablation_cost_dropout_mean"))
    assert r.per_seed("cheaper_ablation_seeds") == (dropout < none).astype(float).tolist()


def test_r2_on_held_out_sentences_is_at_most_one(results):
    # R^2 = 1 - residual / total: at most 1 (a perfect prediction); below 0 on held-out
    # sentences only when the fit predicts worse than the mean.
    r = results("many_heads.duplicate_heads.head_dropout")
    for value in r.per_seed("r2_none_mean") + r.per_seed("r2_dropout_mean"):
        assert value <= 1 + 1e-6


def test_exercise_answers_are_loss_rises_from_a_non_negative_loss(results):
    # A cross-entropy is never negative, so removing heads can lower the loss by at most
    # the full model's loss: a rise of at least -loss.
    r = results("many_heads.duplicate_heads.head_dropout")
    assert r.number("exercise_pair_ablation_cost_none_mean") >= -r.number("loss_none_mean")
    assert r.number("exercise_pair_ablation_cost_dropout_mean") >= -r.number("loss_dropout_mean")
