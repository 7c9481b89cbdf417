"""Per-head tests corrected for every head tried, by a max-statistic permutation.

When 72 heads are tried, the best of them beats chance by luck alone more often
than one head would. The correction used here (Westfall & Young's max-T): under
the null hypothesis we redraw the labels of the items — the SAME redraw for every
head, so the heads' correlations are kept — and record the best head's statistic.
A head's corrected p-value is the share of redraws whose best head does at least
as well as that head did on the real labels.

Two nulls, one per kind of statistic:

- ``top_pick_max_statistic``: "the head's top pick is the target". Null: the
  target is a key drawn uniformly from the item's candidates.
- ``sign_flip_max_statistic``: "the head does better on A than on B, item by
  item" (a per-item difference). Null: each item's difference has a random sign
  (A and B swapped).
"""

from __future__ import annotations

import numpy as np


def _corrected_p(observed: np.ndarray, null_best: np.ndarray) -> np.ndarray:
    """(heads,) p: (1 + #draws whose best head >= the head's observed value) / (1 + draws)."""
    exceed = (null_best[:, None] >= observed[None, :] - 1e-9).sum(axis=0)
    return (1 + exceed) / (1 + len(null_best))


def top_pick_max_statistic(top: np.ndarray, target: np.ndarray, candidates: list,
                           n_draws: int = 2000, seed: int = 0, chunk: int = 250):
    """Hits per head and their corrected p-values.

    ``top`` (N, heads) int: each head's top pick (a key position) on item n;
    ``target`` (N,) int: the key that should be picked; ``candidates``: per item, the
    key positions the null may draw the target from (the target among them).
    Returns (hits (heads,), p (heads,)).
    """
    top, target = np.asarray(top), np.asarray(target)
    hits = (top == target[:, None]).sum(axis=0)                        # (heads,)
    rng = np.random.default_rng(seed)
    sizes = np.array([len(c) for c in candidates])
    width = sizes.max()
    table = np.full((len(candidates), width), -2)                      # (N, width), padded
    for n, c in enumerate(candidates):
        table[n, :len(c)] = c
    null_best = []
    for start in range(0, n_draws, chunk):
        r = min(chunk, n_draws - start)
        pick = (rng.random((r, len(candidates))) * sizes).astype(int)  # (r, N) uniform index
        drawn = table[np.arange(len(candidates))[None, :], pick]      # (r, N) drawn targets
        null_hits = (top[None, :, :] == drawn[:, :, None]).sum(axis=1)  # (r, heads)
        null_best.append(null_hits.max(axis=1))
    return hits, _corrected_p(hits.astype(float), np.concatenate(null_best).astype(float))


def sign_flip_max_statistic(differences: np.ndarray, n_draws: int = 2000, seed: int = 0):
    """Corrected one-sided p-values that each head's summed difference is above 0.

    ``differences`` (N, heads): per item, e.g. 1 if the head prefers A to B, -1 if
    B to A, 0 if tied; or a head's hit minus a rule's hit. Null: each item's sign
    is flipped at random, the same flips for every head. Returns p (heads,).
    """
    d = np.asarray(differences, dtype=float)
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], size=(n_draws, d.shape[0]))        # (R, N)
    null_best = (signs @ d).max(axis=1)                                # (R,)
    return _corrected_p(d.sum(axis=0), null_best)


def wilson_interval(hits, n: int, z: float = 1.959964) -> tuple[np.ndarray, np.ndarray]:
    """95 % Wilson score interval of a share hits / n (arrays allowed): (low, high)."""
    share = np.asarray(hits, dtype=float) / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
