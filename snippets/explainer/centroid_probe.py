"""A nearest-centroid probe for two classes, held out by group, for many heads and many
relabellings at once (the permutation null of a max-statistic test needs both).

An item is predicted to be of the class whose training mean (centroid) is nearer; no
parameter is tuned, so the observed labels and every relabelling get the same probe.
"""

from __future__ import annotations

import numpy as np
import torch


def centroid_probe_correct(X: torch.Tensor, labels: torch.Tensor, groups: np.ndarray,
                           n_folds: int) -> torch.Tensor:
    """X (N, H, d): N items seen through H heads; labels (D, N) in {0, 1}: D labellings
    (e.g. the observed one and permutations). Folds are groups (group g in fold g % n_folds
    over the sorted groups). Returns (D, H, N): whether each held-out item is classified
    right by the centroids of its training folds."""
    X = X.double()
    labels = labels.double()                                               # (D, N)
    H, d = X.shape[1], X.shape[2]
    unique = np.unique(groups)
    fold = np.array([int(np.flatnonzero(unique == g)[0]) % n_folds for g in groups])
    correct = torch.zeros(labels.shape[0], X.shape[1], X.shape[0], dtype=torch.bool)
    for f in range(n_folds):
        train, test = torch.as_tensor(fold != f), torch.as_tensor(fold == f)
        ones = labels[:, train]                                            # (D, n_train)
        zeros = 1.0 - ones
        Xt = X[train].reshape(int(train.sum()), -1)                        # (n_train, H*d)
        mean1 = (ones @ Xt / ones.sum(1, keepdim=True)).view(-1, H, d)     # (D, H, d)
        mean0 = (zeros @ Xt / zeros.sum(1, keepdim=True)).view(-1, H, d)   # (D, H, d)
        # nearer to mean1  <=>  x·(mean1 - mean0) > (|mean1|² - |mean0|²) / 2
        direction = (mean1 - mean0).permute(1, 2, 0)                       # (H, d, D)
        threshold = (mean1.pow(2).sum(-1) - mean0.pow(2).sum(-1)) / 2      # (D, H)
        projected = torch.bmm(X[test].transpose(0, 1), direction)          # (H, n_test, D)
        scores = projected.permute(2, 0, 1) - threshold[:, :, None]        # (D, H, n_test)
        predicted = scores > 0                                             # (D, H, n_test)
        correct[:, :, test] = predicted == labels[:, test].bool()[:, None, :]
    return correct


def swap_within_pairs(labels: np.ndarray, pairs: np.ndarray, n_draws: int,
                      rng: np.random.Generator) -> np.ndarray:
    """(n_draws, N) relabellings: in each pair (items sharing a ``pairs`` id, two per pair)
    the two labels are swapped with probability 1/2."""
    draws = np.tile(labels, (n_draws, 1))
    ids = np.unique(pairs)
    members = np.array([np.flatnonzero(pairs == p) for p in ids])         # (n_pairs, 2)
    assert members.shape[1] == 2, "every pair needs exactly two items"
    swap = rng.random((n_draws, len(ids))) < 0.5                           # (n_draws, n_pairs)
    a, b = members[:, 0], members[:, 1]
    draws[:, a] = np.where(swap, labels[b], labels[a])
    draws[:, b] = np.where(swap, labels[a], labels[b])
    return draws
