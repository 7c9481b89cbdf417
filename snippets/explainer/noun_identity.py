"""How much of a noun's query, key or value is "which noun it is" (C20), for any draw of
the nouns: the held-out identity R² of every layer and head, from count weights."""

from __future__ import annotations

import torch


def identity_r2(vectors: torch.Tensor, counts) -> torch.Tensor:
    """Held-out identity R² of every layer and head when noun m is taken counts[d, m] times
    (a resampling of the nouns; counts of ones: the nouns as they are): vectors (L, n, F, nh,
    hs), counts (D, n) -> (D, L, nh). Leave one frame out, predict the noun's vector there by
    its mean over the other frames; R² = 1 − that error / the error of the mean over the nouns
    of those predictions (the page's cell does it frame by frame, for counts of ones)."""
    L, n, F, nh, hs = vectors.shape
    w = torch.as_tensor(counts, dtype=torch.float64)                   # (D, n)
    v = vectors.double().transpose(0, 1)                               # (n, L, F, nh, hs)
    v = v - v.mean(dim=(0, 2), keepdim=True)                           # R² ignores a shift
    prototypes = (v.sum(dim=2, keepdim=True) - v) / (F - 1)            # each frame left out
    error_word = w @ ((v - prototypes) ** 2).sum(dim=(2, 4)).reshape(n, -1)          # (D, L·nh)
    centre = (w @ prototypes.reshape(n, -1) / w.sum(dim=1, keepdim=True)).view(-1, L, F, nh, hs)
    total = (w @ v.reshape(n, -1)).view(-1, L, F, nh, hs)
    error_mean = (w @ (v ** 2).sum(dim=(2, 4)).reshape(n, -1)
                  - (2 * centre * total - w.sum(dim=1).view(-1, 1, 1, 1, 1) * centre ** 2)
                  .sum(dim=(2, 4)).reshape(w.shape[0], -1))
    return (1 - error_word / error_mean).view(-1, L, nh)
