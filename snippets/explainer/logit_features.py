"""What a head's match uses: attention logits explained by the keys' features.

For one query word (say the verb) in many sentences, a head gives one logit per
key token. Softmax ignores a constant added to a row, so logits and features are
centred within each row (one query in one sentence) before anything is fitted.
The logits are then regressed on the keys' one-hot features (part of speech,
animacy, number, ...) by least squares, fitted on half of the sentences and
scored on the other half (and the other way round):

    R²(S) = 1 − Σ (logit − fitted)² / Σ logit²      (held out, centred rows)

for every subset S of the features. From those:

- ``top_share``: the best single feature's R² divided by the full model's R²
  ("the top feature explains that share of the explained variance");
- ``features_needed``: the fewest features whose best subset reaches 90 % of the
  full model's R².

``balanced_probe_accuracy`` asks the opposite question of a set of vectors: can a
linear read-out (ridge least squares on one-hot targets, held out) tell a
feature's levels apart? Balanced accuracy (the mean recall over levels), so a
feature that is "none" for most tokens is not decoded by saying "none".
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import torch


def one_hot(levels: list[str], values: tuple[str, ...]) -> np.ndarray:
    """(N,) level names -> (N, len(values)) 0/1."""
    index = {v: i for i, v in enumerate(values)}
    out = np.zeros((len(levels), len(values)))
    out[np.arange(len(levels)), [index[v] for v in levels]] = 1
    return out


def centre_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Subtract each row's mean (rows: (N,) row id of each line of values (N, ...))."""
    values = np.asarray(values, dtype=float)
    _, inverse, counts = np.unique(rows, return_inverse=True, return_counts=True)
    sums = np.zeros((counts.size,) + values.shape[1:])
    np.add.at(sums, inverse, values)
    return values - (sums / counts.reshape((-1,) + (1,) * (values.ndim - 1)))[inverse]


def subsets_of(n_features: int) -> list[tuple[int, ...]]:
    """Every non-empty subset of range(n_features), smallest first."""
    return [c for k in range(1, n_features + 1) for c in combinations(range(n_features), k)]


def held_out_r2(logits: np.ndarray, blocks: list[np.ndarray], rows: np.ndarray,
                fold: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Held-out R² of every feature subset, for many heads at once.

    ``logits`` (N, heads): one line per (query occurrence, key); ``blocks``: per
    feature its one-hot columns (N, levels); ``rows`` (N,): which query occurrence
    a line belongs to; ``fold`` (N,): 0/1, the half of the sentences it is in.
    Returns (subsets, heads), subsets in the order of ``subsets_of``.
    """
    y = centre_rows(logits, rows)                                   # (N, heads)
    xs = [centre_rows(b, rows) for b in blocks]
    total = (y ** 2).sum(axis=0)                                    # (heads,)
    out = []
    for subset in subsets_of(len(blocks)):
        X = np.hstack([xs[f] for f in subset])                      # (N, p)
        error = np.zeros(y.shape[1])
        for half in (0, 1):
            train, test = fold != half, fold == half
            A = X[train].T @ X[train] + ridge * np.eye(X.shape[1])
            w = np.linalg.solve(A, X[train].T @ y[train])           # (p, heads)
            error += ((y[test] - X[test] @ w) ** 2).sum(axis=0)
        out.append(1 - error / total)
    return np.array(out)                                            # (subsets, heads)


def shares(r2: np.ndarray, n_features: int, reach: float = 0.9):
    """From held_out_r2's (subsets, heads): full R², top single feature and its share of
    the full R², and the fewest features whose best subset reaches ``reach`` × full R².
    Heads whose full R² is not above 0 get NaN shares and features_needed = 0."""
    subsets = subsets_of(n_features)
    full = r2[-1]                                                   # the last subset is all
    single = r2[:n_features]                                        # (features, heads)
    top = single.argmax(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(full > 0, single.max(axis=0) / full, np.nan)
    sizes = np.array([len(s) for s in subsets])
    needed = np.zeros(r2.shape[1], dtype=int)
    for k in range(n_features, 0, -1):                              # smallest k that reaches
        best_k = r2[sizes == k].max(axis=0)
        needed = np.where((full > 0) & (best_k >= reach * full), k, needed)
    return full, top, share, needed


def key_only_share(logits: torch.Tensor) -> torch.Tensor:
    """(heads, T, T) logits of one sentence -> (heads,) share of the row-centred logits'
    sum of squares that is the key-only part (each key's mean over the queries)."""
    centred = logits - logits.mean(dim=-1, keepdim=True)            # softmax ignores row shifts
    key_part = centred.mean(dim=-2, keepdim=True).expand_as(centred)
    return (key_part ** 2).sum(dim=(-2, -1)) / (centred ** 2).sum(dim=(-2, -1))


def balanced_probe_accuracy(vectors: torch.Tensor, labels: np.ndarray, fold: np.ndarray,
                            ridge: float = 1.0) -> torch.Tensor:
    """Held-out balanced accuracy of a linear read-out of ``labels`` (N,) ints.

    ``vectors`` (N, spaces, d): several spaces at once (e.g. the 12 heads' keys of a
    layer, or one residual stream as spaces = 1). Ridge least squares on one-hot
    targets, inputs standardised on the training half; two folds. Returns (spaces,).
    """
    X = vectors.double().transpose(0, 1)                            # (S, N, d)
    classes = np.unique(labels)
    Y = torch.from_numpy((labels[:, None] == classes[None, :]).astype(float))  # (N, c)
    predicted = torch.zeros(X.shape[0], X.shape[1], dtype=torch.long)
    for half in (0, 1):
        train = torch.from_numpy(fold != half)
        test = torch.from_numpy(fold == half)
        mean = X[:, train].mean(dim=1, keepdim=True)
        std = X[:, train].std(dim=1, keepdim=True).clamp(min=1e-8)
        Xtr, Xte = (X[:, train] - mean) / std, (X[:, test] - mean) / std
        Ytr = Y[train] - Y[train].mean(dim=0)
        A = Xtr.transpose(1, 2) @ Xtr + ridge * torch.eye(X.shape[2], dtype=X.dtype)
        W = torch.linalg.solve(A, Xtr.transpose(1, 2) @ Ytr)        # (S, d, c)
        scores = Xte @ W + Y[train].mean(dim=0)                     # (S, Nte, c)
        predicted[:, test] = scores.argmax(dim=-1)
    truth = torch.from_numpy(np.searchsorted(classes, labels))
    correct = (predicted == truth[None, :]).double()                # (S, N)
    recalls = [correct[:, truth == c].mean(dim=1) for c in range(len(classes))]
    return torch.stack(recalls).mean(dim=0)                         # (S,)


def distinct_heads(passing: dict[str, list]) -> tuple[int, dict[str, object]]:
    """The largest number of roles that can each get a different passing head, and one
    such assignment (role -> head). ``passing``: role -> the heads that pass it, best
    first (the first assignment found, trying each role's heads in that order, is kept)."""
    roles = [r for r in passing if len(passing[r])]
    best: dict[str, object] = {}

    def extend(i: int, used: set, chosen: dict) -> None:
        nonlocal best
        if len(chosen) > len(best):
            best = dict(chosen)
        if i == len(roles) or len(best) == len(roles):
            return
        for head in [h for h in passing[roles[i]] if h not in used]:
            extend(i + 1, used | {head}, {**chosen, roles[i]: head})
        extend(i + 1, used, chosen)

    extend(0, set(), {})
    return len(best), best
