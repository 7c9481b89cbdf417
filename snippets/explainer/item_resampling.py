"""Resampling a real model's items (G2): whole items drawn with replacement, all heads
together (one draw of items serves every head and every number of a snippet)."""

from __future__ import annotations

import numpy as np

DRAWS = 1000


def stratified_draws(strata, draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """(draws, N) item indices: each draw takes, within each stratum (e.g. a sentence's kind,
    whose count the design fixes), as many items with replacement as the stratum holds."""
    strata = np.asarray(strata)
    rng = np.random.default_rng(seed)
    out = np.empty((draws, strata.size), dtype=int)
    start = 0
    for value in sorted(set(strata.tolist())):
        members = np.flatnonzero(strata == value)
        out[:, start:start + members.size] = rng.choice(members, size=(draws, members.size))
        start += members.size
    return out
