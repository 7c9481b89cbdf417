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


def planted_top_picks(rows: torch.Tensor, allowed: list[list[int]], chosen, targets) -> np.ndarray:
    """(N,) one head's top picks among the allowed positions once its rows ``rows`` (N, S) are
    planted: in every chosen item all its attention on ``targets[n]``; in every other item its own
    attention, except that where its own top pick is the target, the target's weight moves onto
    its second choice. The head then picks the target in exactly the chosen items."""
    from explainer.head_picks import mask_of, top_among

    chosen, targets = np.asarray(chosen, dtype=bool), np.asarray(targets)
    own = top_among(rows[:, None, :], allowed)[:, 0]
    mask = mask_of(allowed, rows.shape[-1])
    planted = plant_rows(rows[:, None, :], 0, chosen, targets)[:, 0, :]
    for n in np.flatnonzero(~chosen & (own == targets)):
        target = int(targets[n])
        others = planted[n].masked_fill(~mask[n], -1.0)
        others[target] = -1.0
        second = int(others.argmax())
        planted[n, second] += planted[n, target]
        planted[n, target] = 0.0
    top = top_among(planted[:, None, :], allowed)[:, 0]
    assert ((top == targets) == chosen).all(), "a planted head must pick the target in the chosen items only"
    return top
