"""Heads made alike on purpose, for the duplicate-heads page (claim C12).

- ``parameters_in_use``: how many numbers of each stacked model training can move — the
  entries whose gradient on a batch is not zero. Head 1's W_Q, W_K, W_V slices of a model
  with ``shared`` heads are never read, so they do not count; every slice of a ``wide``
  model is (explainer/batched.py).
- ``noisy_copies``: start every head of some models as a copy of one trained head, each
  copy with its own Gaussian noise, the rest of the model copied as it is.

Shapes: M = models, nh = heads, hs = head size, C = d_model.
"""

import torch

from explainer.batched import PARAMETERS, StackedTransformer, losses_on


def parameters_in_use(model: StackedTransformer, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """(M,) per model: the parameters whose gradient of the loss on (tokens, targets) is not zero."""
    model.zero_grad(set_to_none=True)
    losses_on(model(tokens), targets, model.classes_last).sum().backward()   # each model its own gradient
    counts = sum((getattr(model, name).grad != 0).flatten(1).sum(dim=1) for name in PARAMETERS)
    model.zero_grad(set_to_none=True)
    return counts                                                           # (M,)


@torch.no_grad()
def noisy_copies(model: StackedTransformer, rows, source: StackedTransformer, source_rows,
                 noise: float, generator: torch.Generator, head: int = 0) -> None:
    """Model ``rows[i]`` becomes ``source`` model ``source_rows[i]`` with every head a noisy copy
    of its head ``head``.

    Each copy's W_Q, W_K, W_V slice is the source head's slice plus Gaussian noise of standard
    deviation ``noise`` × the slice's root mean square; its W_O columns are 1/nh of what the
    source head writes (the sum of all head slots' columns if the source's heads are shared:
    they are then one head), plus noise likewise. With ``noise=0`` the model computes what the
    source computes. Embeddings and unembedding are copied as they are."""
    nh, hs = model.n_heads, model.head_size
    assert not source.wide.any(), "copy a head of normal width"
    for row, src in zip(rows, source_rows):
        for name in PARAMETERS:
            getattr(model, name)[row] = getattr(source, name)[src]
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            slices = source.head_slices(name)[src]                          # (nh, hs, C)
            if name == "W_O":
                one = (slices.sum(dim=0) if source.shared[src] else slices[head]) / nh   # (hs, C)
            else:
                one = slices[head]                                           # (hs, C)
            size = one.pow(2).mean().sqrt()
            copies = one + noise * size * torch.randn(nh, *one.shape, generator=generator)  # (nh, hs, C)
            if name == "W_O":                   # columns h*hs:(h+1)*hs of (C, C)
                getattr(model, name)[row] = copies.permute(2, 0, 1).reshape(one.shape[1], nh * hs)
            else:                               # rows h*hs:(h+1)*hs of (C, C)
                getattr(model, name)[row] = copies.reshape(nh * hs, one.shape[1])
        model.shared[row] = False
        model.wide[row] = False
