"""Pruning a trained 16-head model over seeds: the C37 yardstick (the replication of C13), and
the removal it rests on (explainer/head_ablation.py). The computations behind the numbers; the
verdicts are the rules'."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.head_ablation import one_hot, prunable  # noqa: E402


def test_the_prunable_share_is_a_whole_number_of_heads(results):
    # 16 heads per model: a share of removable heads is k / 16.
    r = results("many_heads.pruning.how_many")
    for share in r.per_seed("prunable_share_mean"):
        assert 0 <= share <= 1 and abs(share * 16 - round(share * 16)) < 1e-6


def test_the_prunable_share_is_the_longest_prefix_that_keeps_the_yardstick():
    # two seeds, full accuracy 1.0: the first keeps >= 0.95 for 2 removals, then drops (a later
    # recovery does not count); the second drops at the first removal
    accuracies = torch.tensor([[1.0, 0.99, 0.96, 0.5, 0.97], [1.0, 0.9, 0.99, 0.99, 0.99]])
    assert prunable(accuracies, 0.95).tolist() == [2, 0]
    assert prunable(accuracies, 0.85).tolist() == [2, 4]


def test_removing_every_head_in_turn_marks_each_once():
    # one_hot of an order's first k heads, accumulated, removes k distinct heads
    order = torch.tensor([[3, 0, 2, 1], [1, 2, 3, 0]])
    removed = torch.zeros(2, 4, dtype=torch.bool)
    for k in range(4):
        removed = removed | one_hot(order[:, k], 4)
        assert removed.sum(dim=1).tolist() == [k + 1, k + 1]


def test_exercise_answers(results):
    r = results("many_heads.pruning.how_many")
    # 1: a looser yardstick (90 % instead of 95 % of the full accuracy) removes heads in the
    #    same order and stops later: it can only let more heads go, or as many.
    assert r.number("exercise_prunable_share_at_90_mean") >= r.number("prunable_share_mean")


def test_the_reverse_order_exercise_is_an_accuracy(results):
    assert 0 <= results("many_heads.pruning.how_many").number("exercise_accuracy_half_reverse_mean") <= 1
