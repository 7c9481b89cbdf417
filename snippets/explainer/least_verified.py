"""G1's planted world for a gain from step 0 (C16): the least effect a verified run allows,
written out colony by colony, and the share of its redraws in which the refuting statistic
(the upper end of the mean gain's 95 % t-interval) stays at or above the refutation's bar."""

from __future__ import annotations

import math

import numpy as np

from explainer.report import over_seeds


def least_verified_gains(starts, learned: float = 0.95, floor: float = 0.0) -> np.ndarray:
    """(n,) each colony's gain (after training minus its own step-0 share) in the least verified
    world: the ⌈3n/4⌉ colonies with the highest step-0 share (ties to the lower seed) end at
    ``learned``, the rest at ``floor``. Learners with the highest starts gain least and the rest
    lose least, so the two groups lie as close as they can: the hardest world to tell apart."""
    starts = np.asarray(starts, dtype=float)
    n = starts.size
    order = sorted(range(n), key=lambda seed: (-starts[seed], seed))   # highest first, ties: lower seed
    ends = np.full(n, floor)
    ends[order[:math.ceil(0.75 * n)]] = learned
    return ends - starts


def detection_share(gains, bar: float, draws: int, rng: np.random.Generator) -> float:
    """Share of ``draws`` redraws of the colonies (as many, with replacement) in which the upper
    end of the mean gain's 95 % t-interval is at or above ``bar``: the refutation does not fire."""
    gains = np.asarray(gains, dtype=float)
    picks = rng.integers(0, gains.size, size=(draws, gains.size))      # (draws, n)
    return sum(over_seeds(gains[row].tolist(), "ci95_high") >= bar for row in picks) / draws
