"""An equivalence test for a head against a position-only rule: is the head's share of hits
at most a margin above the rule's, for every head?

Per item, a head's hit minus the rule's hit (1, 0 or -1) is one paired difference. The upper
end of the difference's 95 % interval (the mean plus 1.96 standard errors, paired: the
standard deviation of the differences over the items) bounds how much better than the rule
the head can be. A claim that some head beats the rule by a margin is refuted when every
head's bound lies below the margin (an intersection-union test: each head at one-sided
2.5 %, no correction needed for the heads, since all of them must pass).
"""

from __future__ import annotations

import numpy as np

Z95 = 1.959964


def paired_upper_bound(hits, rule_hits, z: float = Z95) -> np.ndarray:
    """(heads,): upper 95 % bound of (head's share − rule's share) over the same items.

    ``hits`` (N, heads) 0/1, ``rule_hits`` (N,) 0/1."""
    d = np.asarray(hits, dtype=float) - np.asarray(rule_hits, dtype=float)[:, None]   # (N, heads)
    n = d.shape[0]
    return d.mean(axis=0) + z * d.std(axis=0, ddof=1) / np.sqrt(n)
