"""G1's planted effect for a difference of hit rates (C21): one head's hits from the ambiguous
word raised, frame by frame with one probability, so that its expected mean difference from
the plain twin is the claim's size; its plain hits stay its own."""

from __future__ import annotations

import numpy as np


def planted_probability(own_ambiguous: float, own_plain: float, gap: float) -> float:
    """The probability p with which each frame's row is overridden (a hit) so that the mean
    over frames of E[d] = p·(1 − own_ambiguous) + own_ambiguous − own_plain equals ``gap``;
    0 when the head's own mean difference already reaches it, inf when no p can (the head's
    ambiguous hits are all 1). A p above 1 means the head cannot carry the gap."""
    own = own_ambiguous - own_plain
    if own >= gap:
        return 0.0
    if own_ambiguous >= 1.0:
        return float("inf")
    return (gap - own) / (1.0 - own_ambiguous)


def planted_hits(own_hits: np.ndarray, probability: float, rng: np.random.Generator) -> np.ndarray:
    """(N,) the head's hits with each frame overridden to a hit independently with ``probability``."""
    return np.where(rng.random(len(own_hits)) < probability, 1, own_hits)
