"""Does one coordinate of a head's query–key space carry a feature on both sides?

Source B §4 says the query of 吃 (eat) and the key of 苹果 (apple) meet because both are
high on one "edibility" dimension. A head's coordinates have no meaning by themselves:
rotating its queries and keys by the same orthogonal matrix R leaves every score
(qR)·(kR) = q·k unchanged. So a coordinate counts only if it beats the coordinates of
random rotations of the same space (``random_rotations``).

Shapes: heads first, then words, then the head's dimensions: (heads, n, d).
"""

from __future__ import annotations

import numpy as np


def coordinate_auc(X: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """AUC of every coordinate: the share of (positive, other) pairs of words in which the
    positive word's coordinate is larger. X (..., n, d), positive (n,) bool -> (..., d)."""
    positive = np.asarray(positive, dtype=bool)
    pos = X[..., positive, :][..., :, None, :]                           # (..., n_pos, 1, d)
    neg = X[..., ~positive, :][..., None, :, :]                          # (..., 1, n_neg, d)
    return (pos > neg).mean(axis=(-3, -2))


def shared_coordinate(queries: np.ndarray, keys: np.ndarray, query_class: np.ndarray,
                      key_class: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each head's best coordinate for both sides at once, with the same sign.

    queries (heads, n_q, d), keys (heads, n_k, d); query_class (n_q,), key_class (n_k,) bool.
    A coordinate's statistic is min(AUC_q, AUC_k) when both classes are high on it, or
    min(1 − AUC_q, 1 − AUC_k) when both are low. Returns (statistic (heads,), coordinate (heads,))."""
    auc_q = coordinate_auc(queries, query_class)                         # (heads, d)
    auc_k = coordinate_auc(keys, key_class)                              # (heads, d)
    both = np.maximum(np.minimum(auc_q, auc_k), np.minimum(1 - auc_q, 1 - auc_k))
    return both.max(axis=-1), both.argmax(axis=-1)


def random_rotations(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """n random orthogonal d × d matrices, uniform over rotations and reflections (Haar):
    the Q of a Gaussian matrix's QR, its columns' signs fixed by R's diagonal. (n, d, d)."""
    q, r = np.linalg.qr(rng.standard_normal((n, d, d)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[:, None, :]


def advantage_terms(query: np.ndarray, keys: np.ndarray, key_class: np.ndarray) -> np.ndarray:
    """The score advantage of ``query`` for the key class, coordinate by coordinate.

    mean q·k(class) − mean q·k(rest) = q · (k̄_class − k̄_rest) = Σ_i q_i (k̄_class,i − k̄_rest,i).
    query (heads, d), keys (heads, n, d), key_class (n,) bool -> the terms (heads, d);
    their sum over the last axis is the advantage."""
    key_class = np.asarray(key_class, dtype=bool)
    difference = keys[:, key_class].mean(axis=1) - keys[:, ~key_class].mean(axis=1)   # (heads, d)
    return query * difference


def coordinate_share(terms: np.ndarray, coordinate: np.ndarray) -> np.ndarray:
    """Share of each head's advantage carried by one coordinate's term: terms (heads, d),
    coordinate (heads,) -> (heads,); 0 where there is no advantage (sum ≤ 0) to carry."""
    advantage = terms.sum(axis=-1)
    term = terms[np.arange(len(terms)), coordinate]
    return np.where(advantage > 0, term / np.where(advantage > 0, advantage, 1.0), 0.0)


def scaled_advantage(scaled: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean score of the labelled keys minus the rest, per head: scaled (heads, n) scores,
    labels (n,) or (draws, n) bool -> (heads,) or (draws, heads)."""
    labels = np.asarray(labels, dtype=bool)
    weights = (labels / labels.sum(axis=-1, keepdims=True)
               - ~labels / (~labels).sum(axis=-1, keepdims=True))       # (..., n)
    return weights @ scaled.T
