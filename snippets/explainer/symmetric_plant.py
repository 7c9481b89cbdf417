"""G1's plant for tying W_Q = W_K (C34): a separate model scored with its attention scores made
symmetric, (S + Sᵀ)/2, on a share of the held-out sequences. The share is set on calibration
sequences so that the expected cost on the asymmetric task beyond the symmetric control is the
verified margin; a model whose full symmetrisation costs less than that margin cannot carry the
plant (an invalid draw)."""

from __future__ import annotations

import torch


def asymmetry_needed(a_prev, s_prev, a_part, s_part) -> torch.Tensor:
    """m = (a_prev − s_prev) − (a_part − s_part): what making a separate model's scores symmetric
    costs it on the asymmetric task beyond the symmetric control (accuracies as they are, s_…
    with every sequence symmetrised), in float64."""
    a_prev, s_prev, a_part, s_part = (torch.as_tensor(v, dtype=torch.float64) for v in (a_prev, s_prev, a_part, s_part))
    return (a_prev - s_prev) - (a_part - s_part)


def symmetrised_sequences(m: float, margin: float, n: int, seed: int) -> torch.Tensor | None:
    """(n,) bool: which held-out sequences the planted model scores with symmetric scores, each
    independently with probability f = margin / m (a ``torch.Generator`` seeded ``seed``), so
    that its expected margin is ``margin``; None when m < margin (the plant cannot be built)."""
    if not m >= margin:
        return None
    f = margin / m                                                             # in (0, 1]
    return torch.rand(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) < f
