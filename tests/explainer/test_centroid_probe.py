"""The nearest-centroid sense probe behind C36 (snippets/explainer/centroid_probe.py)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))

import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.centroid_probe import centroid_probe_correct, swap_within_pairs  # noqa: E402


def reference(X, labels, groups, n_folds):
    """The same probe, one labelling and one head at a time, in plain numpy."""
    unique = list(np.unique(groups))
    fold = np.array([unique.index(g) % n_folds for g in groups])
    out = np.zeros((labels.shape[0], X.shape[1], X.shape[0]), dtype=bool)
    for d in range(labels.shape[0]):
        for h in range(X.shape[1]):
            for i in range(X.shape[0]):
                train = fold != fold[i]
                m1 = X[train & (labels[d] == 1), h].mean(0)
                m0 = X[train & (labels[d] == 0), h].mean(0)
                guess = int(np.linalg.norm(X[i, h] - m1) < np.linalg.norm(X[i, h] - m0))
                out[d, h, i] = guess == labels[d, i]
    return out


def test_the_batched_probe_equals_a_plain_loop():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3, 4))                                   # 24 items, 3 heads, 4 dims
    X[::2, 0] += 1.5                                                  # head 0 sees the class
    groups = np.repeat(np.arange(12), 2)                              # 12 pairs
    labels = np.tile([1, 0], 12)
    draws = np.vstack([labels, swap_within_pairs(labels, groups, 5, rng)])
    fast = centroid_probe_correct(torch.as_tensor(X), torch.as_tensor(draws), groups, 4).numpy()
    assert (fast == reference(X, draws, groups, 4)).all()
    # head 0 separates the classes: every held-out item right
    assert fast[0, 0].all()


def test_identical_features_within_a_pair_give_exactly_one_half():
    # the context-free case: both sentences of a pair look the same, so whatever the
    # probe says, one of the two is right
    rng = np.random.default_rng(1)
    per_pair = rng.normal(size=(10, 2, 5))
    X = np.repeat(per_pair, 2, axis=0)                                # (20, 2, 5)
    groups = np.repeat(np.arange(10), 2)
    labels = np.tile([0, 1], 10)
    draws = np.vstack([labels, swap_within_pairs(labels, groups, 20, rng)])
    correct = centroid_probe_correct(torch.as_tensor(X), torch.as_tensor(draws), groups, 5)
    assert torch.all(correct.double().mean(-1) == 0.5)


def test_swapping_within_pairs_keeps_one_of_each_label_per_pair():
    labels = np.tile([0, 1], 50)
    pairs = np.repeat(np.arange(50), 2)
    draws = swap_within_pairs(labels, pairs, 400, np.random.default_rng(2))
    assert (draws.reshape(400, 50, 2).sum(-1) == 1).all()
    swapped = (draws != labels).reshape(400, 50, 2)[..., 0].mean()
    assert abs(swapped - 0.5) < 0.02
