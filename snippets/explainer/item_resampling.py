"""Resampling a real model's items (G2): whole items drawn with replacement, all heads
together (one draw of items serves every head and every number of a snippet)."""

from __future__ import annotations

import os

import numpy as np

DRAWS = 1000


def n_items(default: int) -> int:
    """How many items to measure: ``default``, unless the build asks for one more look
    (``EXPLAINER_ITEMS``, set when resampling the items leaves a verdict undecided)."""
    return int(os.environ.get("EXPLAINER_ITEMS", default))


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


def cluster_draws(clusters, draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """(draws, N) item indices, where items come in clusters (e.g. a sentence template with
    all its sentences, when there are at least 10 templates): each draw takes as many clusters
    as there are, with replacement, and every item of each cluster drawn. The clusters must
    be of one size, so that every draw holds N items."""
    clusters = np.asarray(clusters)
    members = [np.flatnonzero(clusters == value) for value in sorted(set(clusters.tolist()))]
    if len({m.size for m in members}) != 1:
        raise ValueError("cluster_draws needs clusters of one size")
    table = np.stack(members)                                        # (clusters, size)
    picks = np.random.default_rng(seed).integers(0, len(members), size=(draws, len(members)))
    return table[picks].reshape(draws, -1)
