"""Is a head's score beyond chance, once we admit we tried all 72 heads?

Two tests, both one-sided and both corrected for the number of heads:

- ``bonferroni_binomial``: items are independent and each has a known chance of
  being a hit (one over the number of candidates). The p-value of a head is the
  binomial tail, multiplied by the number of heads tried (Bonferroni).
- ``pair_relabelling_max_statistic``: for minimal pairs (two sentences that differ
  in which word is right), swapping the labels of a pair is as likely as not if the
  head ignores meaning. We relabel many times, keep the *best* head's accuracy each
  time, and compare every head with that distribution of the maximum (a
  max-statistic permutation test, which corrects for the heads tried by itself).
"""

import numpy as np
from scipy.stats import binom


def bonferroni_binomial(hits: np.ndarray, n: int, chance: float) -> np.ndarray:
    """Corrected p-values, same shape as ``hits`` (one count per head, out of ``n``).

    With unequal chances per item, pass their mean: the binomial tail is then a
    little conservative (a sum of unequal coin flips varies less than a binomial).
    """
    p = binom.sf(np.asarray(hits) - 1, n, chance)                     # P(X >= hits)
    return np.minimum(1.0, p * np.asarray(hits).size)


def pair_relabelling_max_statistic(hit_right: np.ndarray, hit_wrong: np.ndarray,
                                   pair: np.ndarray, n_relabellings: int = 20000,
                                   seed: int = 0) -> np.ndarray:
    """Corrected p-values per head for accuracies over minimal pairs.

    ``hit_right`` (N, heads) bool: the head picks the right word in item n;
    ``hit_wrong`` (N, heads): it picks the other word of the pair (what would count
    as a hit if the pair's labels were swapped); ``pair`` (N,): the pair of each item.
    """
    hit_right, hit_wrong = hit_right.astype(float), hit_wrong.astype(float)
    pairs = np.unique(pair)
    onehot = (pair[None, :] == pairs[:, None]).astype(float)          # (P, N)
    base = hit_right.sum(axis=0)                                      # (heads,)
    change = onehot @ (hit_wrong - hit_right)                         # (P, heads): if pair swapped
    rng = np.random.default_rng(seed)
    swaps = rng.integers(0, 2, size=(n_relabellings, len(pairs))).astype(float)  # (R, P)
    null_best = (base + swaps @ change).max(axis=1)                   # (R,): best head per relabelling
    observed = base                                                   # (heads,)
    return (1 + (null_best[:, None] >= observed[None, :] - 1e-9).sum(axis=0)) / (1 + n_relabellings)
