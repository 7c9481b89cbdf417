"""G1's planted effect in a real model: one head's attention rows overridden so that, in a
chosen share of the items, its top pick is the target (elsewhere the head's own attention),
and the same statistic run over all heads on the overridden attention."""

from __future__ import annotations

import numpy as np
import torch


def planted_items(n_items: int, share: float, rng: np.random.Generator) -> np.ndarray:
    """(n_items,) bool: round(share * n_items) items chosen at random (the draw is ``rng``'s)."""
    chosen = np.zeros(n_items, dtype=bool)
    chosen[rng.choice(n_items, size=int(round(share * n_items)), replace=False)] = True
    return chosen


def plant_rows(rows: torch.Tensor, head: int, chosen, targets) -> torch.Tensor:
    """A copy of ``rows`` (N, heads, S: each item's attention row at its query) in which head
    ``head`` puts all its attention on ``targets[n]`` in every chosen item n."""
    planted = rows.clone()
    for n in np.flatnonzero(chosen):
        planted[n, head, :] = 0.0
        planted[n, head, int(targets[n])] = 1.0
    return planted
