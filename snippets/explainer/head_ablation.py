"""Removing attention heads from a seeded model, and what a removal costs.

Used by many_heads/pruning/how_many.py (claim C24) and many_heads/pruning/backup_or_noise.py
(C25). A head is removed the way that really removes it: its output is zeroed *before* W_O
(the model's head mask), so nothing of it reaches the residual stream. Heads are numbered
layer * n_heads + head; every tensor has the seed first."""

from __future__ import annotations

import torch

from explainer.batched import evaluate_batched


def one_hot(heads: torch.Tensor, n_heads_total: int) -> torch.Tensor:
    """heads (S,) or (S, k) head numbers -> (S, H) bool."""
    removed = torch.zeros(len(heads), n_heads_total, dtype=torch.bool)
    return removed.scatter(1, heads.view(len(heads), -1), True)


def accuracy_without(net, removed: torch.Tensor, batch) -> torch.Tensor:
    """Accuracy of every seed with the heads in ``removed`` (S, H) ablated: (S,)."""
    S, n_layers, n_heads = len(removed), net.config.n_layers, net.config.n_heads
    net.set_head_mask((~removed).float().view(S, n_layers, n_heads))   # (S, L, nh): 0 = output zeroed
    accuracy = evaluate_batched(net, *batch)[1]
    net.set_head_mask(torch.ones(S, n_layers, n_heads))
    return accuracy


def ablation_damage(net, batch) -> torch.Tensor:
    """(S, H): accuracy drop of each seed when one head alone is removed."""
    H = net.config.n_layers * net.config.n_heads
    full = evaluate_batched(net, *batch)[1]
    return torch.stack([full - accuracy_without(net, one_hot(torch.full((net.n_seeds,), h), H), batch)
                        for h in range(H)], dim=1)


def curve(net, order: torch.Tensor, batch) -> torch.Tensor:
    """order (S, H): accuracy after removing the first k heads of each seed's order, k = 0..H: (S, H+1)."""
    H = order.shape[1]
    removed = torch.zeros(len(order), H, dtype=torch.bool)
    accuracies = [accuracy_without(net, removed, batch)]
    for k in range(H):
        removed = removed | one_hot(order[:, k], H)
        accuracies.append(accuracy_without(net, removed, batch))
    return torch.stack(accuracies, dim=1)


def prunable(accuracies: torch.Tensor, keep: float = 0.95) -> torch.Tensor:
    """Per seed: the largest k such that removing the first 0..k heads keeps >= ``keep`` of
    the full accuracy (column 0 of ``accuracies`` (S, H+1)): (S,)."""
    kept = accuracies >= keep * accuracies[:, :1]                          # (S, H+1)
    return kept.int().cumprod(dim=1).sum(dim=1) - 1                        # length of the kept prefix
