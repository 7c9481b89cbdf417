"""Debiased linear CKA behind C29 (snippets/explainer/cka.py), on inputs with known answers."""

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))

import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.cka import _gram, debiased_cka, hsic_unbiased, shuffled_cka  # noqa: E402


def random(n, d, seed):
    return np.random.default_rng(seed).standard_normal((n, d))


def hsic_by_definition(X, Y):
    """Song et al. (2012)'s HSIC₁ as the U-statistic it is: averages over distinct indices."""
    K, L = X @ X.T, Y @ Y.T
    n = len(X)
    pairs = [K[i, j] * L[i, j] for i, j in itertools.permutations(range(n), 2)]
    triples = [K[i, j] * L[i, q] for i, j, q in itertools.permutations(range(n), 3)]
    quads = [K[i, j] * L[q, r] for i, j, q, r in itertools.permutations(range(n), 4)]
    return np.mean(pairs) + np.mean(quads) - 2 * np.mean(triples)


def test_the_fast_estimator_is_the_u_statistic_on_a_tiny_case():
    X, Y = random(7, 3, 0), random(7, 2, 1)
    fast = hsic_unbiased(_gram(X), _gram(Y))
    assert abs(fast - hsic_by_definition(X, Y)) < 1e-9 * max(1.0, abs(fast))


def test_a_representation_has_cka_one_with_itself():
    X = random(50, 8, 2)
    assert abs(debiased_cka(X, X) - 1) < 1e-12


def test_cka_ignores_rotations_and_isotropic_scaling():
    X, Y = random(60, 6, 3), random(60, 5, 4)
    rotation, _ = np.linalg.qr(random(6, 6, 5))                           # orthogonal (6, 6)
    assert abs(debiased_cka(X @ rotation * 7.5, Y) - debiased_cka(X, Y)) < 1e-10
    assert abs(debiased_cka(X @ rotation, X) - 1) < 1e-10


def test_independent_gaussian_data_are_near_zero_and_the_plain_estimate_is_not():
    # the reason for debiasing: with 384 dimensions on 300 items, the plain linear CKA of two
    # independent sets is far from 0; the debiased one is about 0
    X, Y = random(300, 384, 6), random(300, 384, 7)
    assert abs(debiased_cka(X, Y)) < 0.02
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    plain = np.linalg.norm(Xc.T @ Yc) ** 2 / (np.linalg.norm(Xc.T @ Xc) * np.linalg.norm(Yc.T @ Yc))
    assert plain > 0.3


def test_the_shuffled_null_is_cka_with_one_side_reordered():
    X = random(40, 5, 8)
    Y = X @ random(5, 4, 9) + 0.1 * random(40, 4, 10)
    null = shuffled_cka(X, Y, n_permutations=5, seed=3)
    rng = np.random.default_rng(3)
    for value in null:
        p = rng.permutation(len(Y))
        assert abs(value - debiased_cka(X, Y[p])) < 1e-10
    # a related pair beats its own shuffles; a shuffle of X against X is no longer X
    assert debiased_cka(X, Y) > null.max()
    assert np.percentile(shuffled_cka(X, X, n_permutations=50), 95) < 0.5


def test_the_gram_matrix_has_a_zero_diagonal_and_is_symmetric():
    K = _gram(random(9, 3, 11))
    assert torch.all(torch.diag(K) == 0) and torch.allclose(K, K.T)
