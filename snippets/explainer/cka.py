"""Debiased linear CKA: do two sets of vectors for the same n items arrange them alike?

Linear CKA (Kornblith et al. 2019) compares the Gram matrices K = X Xᵀ and L = Y Yᵀ. Its
plain estimate is biased upwards when the dimension is not small against n (two unrelated
random sets of 384-d vectors on a few hundred items already score well above 0). The
debiased version replaces HSIC by Song et al. (2012)'s unbiased estimator HSIC₁:

    HSIC₁(K, L) = [tr(K̃L̃) + 1ᵀK̃1 · 1ᵀL̃1 / ((n-1)(n-2)) - 2/(n-2) · 1ᵀK̃L̃1] / (n(n-3))

with K̃, L̃ the Gram matrices with their diagonals set to zero, and normalises it:
CKA = HSIC₁(K, L) / sqrt(HSIC₁(K, K) · HSIC₁(L, L)). 1 = the same arrangement up to a
rotation and a scale; about 0 (it can be slightly negative) = unrelated.
"""

from __future__ import annotations

import numpy as np
import torch


def _gram(X) -> torch.Tensor:
    """(n, d) -> the linear Gram matrix with its diagonal set to zero, (n, n), float64."""
    X = torch.as_tensor(X, dtype=torch.float64)
    K = X @ X.T                                                            # (n, n)
    return K - torch.diag(torch.diag(K))


def hsic_unbiased(K: torch.Tensor, L: torch.Tensor) -> float:
    """Song et al. (2012)'s unbiased HSIC₁ of two (n, n) Gram matrices with zero diagonals."""
    n = K.shape[0]
    assert n >= 4, "the unbiased estimator needs at least 4 items"
    trace = float((K * L).sum())                                           # tr(K L), both symmetric
    totals = float(K.sum()) * float(L.sum()) / ((n - 1) * (n - 2))
    cross = 2 / (n - 2) * float(K.sum(dim=0) @ L.sum(dim=0))               # 1ᵀ K L 1
    return (trace + totals - cross) / (n * (n - 3))


def debiased_cka(X, Y) -> float:
    """Debiased linear CKA of (n, d1) and (n, d2) representations of the same n items."""
    K, L = _gram(X), _gram(Y)
    return hsic_unbiased(K, L) / float(np.sqrt(hsic_unbiased(K, K) * hsic_unbiased(L, L)))


def shuffled_cka(X, Y, n_permutations: int = 200, seed: int = 0) -> np.ndarray:
    """The chance level: debiased CKA with the item order of Y permuted, once per permutation
    (seeded). Returns (n_permutations,) values; their 95th percentile is the bar to beat."""
    K, L = _gram(X), _gram(Y)
    n = K.shape[0]
    norm = float(np.sqrt(hsic_unbiased(K, K) * hsic_unbiased(L, L)))       # permutation-invariant
    k_rows, l_rows = K.sum(dim=0), L.sum(dim=0)                             # (n,), (n,)
    totals = float(K.sum()) * float(L.sum()) / ((n - 1) * (n - 2))
    rng = np.random.default_rng(seed)
    out = np.empty(n_permutations)
    for draw in range(n_permutations):
        p = torch.as_tensor(rng.permutation(n))
        L_p = L[p][:, p]                                                    # items of Y reordered
        hsic = (float((K * L_p).sum()) + totals
                - 2 / (n - 2) * float(k_rows @ l_rows[p])) / (n * (n - 3))
        out[draw] = hsic / norm
    return out


__all__ = ["debiased_cka", "hsic_unbiased", "shuffled_cka"]
