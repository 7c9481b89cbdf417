"""Linear probes, held out by group (a sentence, a frame): what can a linear read-out
recover from a set of vectors, on items it was not fitted on?

``word_probe_correct`` fits a ridge regression from each item's vector to a word's
embedding and counts an item right when the nearest candidate word (cosine) to the
prediction is the right one: an open-vocabulary read-out of "which word". Its ridge
penalty is chosen by cross-validation inside the training groups only.
"""

from __future__ import annotations

import numpy as np
import torch

ALPHAS = (1.0, 10.0, 100.0, 1000.0, 10000.0)   # ridge penalties tried, on standardised features


def group_folds(groups: np.ndarray, n_folds: int) -> np.ndarray:
    """Each item's fold: all items of one group (e.g. one sentence) share a fold."""
    unique = np.unique(groups)
    fold_of_group = {g: n % n_folds for n, g in enumerate(unique)}
    return np.array([fold_of_group[g] for g in groups])


def ridge_fit(X: torch.Tensor, Y: torch.Tensor, alphas) -> list:
    """Ridge regressions Y ≈ standardise(X) W + b on (N, d) -> (N, m), one per penalty in
    ``alphas`` (the intercept b is not shrunk); returns one predictor per penalty.
    One SVD serves every penalty: W = V diag(s / (s² + α)) Uᵀ (Y - mean Y)."""
    mean, scale, y_mean = X.mean(dim=0), X.std(dim=0) + 1e-8, Y.mean(dim=0)
    U, s, Vh = torch.linalg.svd((X - mean) / scale, full_matrices=False)   # (N, r), (r,), (r, d)
    UtY = U.T @ (Y - y_mean)                                               # (r, m)

    def predictor(alpha: float):
        W = Vh.T @ ((s / (s ** 2 + alpha))[:, None] * UtY)                  # (d, m)
        return lambda X_new: ((X_new - mean) / scale) @ W + y_mean          # (N_new, m)
    return [predictor(alpha) for alpha in alphas]


def nearest_word(predictions: torch.Tensor, word_vectors: torch.Tensor) -> torch.Tensor:
    """(N, m) predictions, (V, m) candidate word vectors -> (N,) index of the nearest by cosine."""
    p = torch.nn.functional.normalize(predictions, dim=-1)
    w = torch.nn.functional.normalize(word_vectors, dim=-1)
    return (p @ w.T).argmax(dim=1)


def _retrieval_correct(X, targets, train, test, word_vectors, alphas) -> list[np.ndarray]:
    """Per penalty, whether each test item's nearest candidate word is its own."""
    predictors = ridge_fit(X[train], word_vectors[targets[train]], alphas)
    return [(nearest_word(predict(X[test]), word_vectors) == targets[test]).numpy()
            for predict in predictors]


def word_probe_correct(X: torch.Tensor, targets: np.ndarray, groups: np.ndarray,
                       word_vectors: torch.Tensor, n_folds: int = 5, inner_folds: int = 4,
                       alphas=ALPHAS) -> np.ndarray:
    """For each of N items (features X (N, d)), whether a probe fitted on the other folds'
    groups names its word: ``targets`` (N,) index the candidate ``word_vectors`` (V, m).
    The penalty is picked per outer fold by ``inner_folds``-fold cross-validation over the
    training groups."""
    targets_t = torch.as_tensor(targets)
    folds = group_folds(groups, n_folds)
    correct = np.zeros(len(X), dtype=bool)
    for fold in range(n_folds):
        train_idx, test_idx = np.flatnonzero(folds != fold), np.flatnonzero(folds == fold)
        inner = group_folds(groups[train_idx], inner_folds)
        hits = [_retrieval_correct(X, targets_t, train_idx[inner != k], train_idx[inner == k],
                                   word_vectors, alphas) for k in range(inner_folds)]
        scores = [np.concatenate([h[a] for h in hits]).mean() for a in range(len(alphas))]
        best = alphas[int(np.argmax(scores))]               # the first of equals: the smallest
        correct[test_idx] = _retrieval_correct(X, targets_t, train_idx, test_idx,
                                               word_vectors, [best])[0]
    return correct
