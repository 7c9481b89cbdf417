"""A token taken out of every head's view, and a single head planted from a 2-head model.

Does a task need the near token *and* the far token at the same query? Remove one of them
from the keys of that query, in every head (``logits_without``: -inf before the softmax, like
the causal mask, so the row renormalises over the keys left), and see whether the 2-head model
still answers. Removing a token rather than a head leaves aside which head does what.

The planted single head (C08's power check): per seed, the seed's own 2-head model with that
token removed on a share ``f`` of the test sequences, set on other sentences so that its
expected accuracy at the knocked-out queries is ``level``; each sequence is drawn knocked
out or intact with the seed's own generator.
"""

import torch

from explainer.training import IGNORE


def key_mask(batch: int, T: int, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """(1, batch, T, T) bool, True at [0, b, queries[b, j], keys[b, j]]: the key removed from
    that query's view. ``queries`` and ``keys`` (batch, Q), or (Q,) for every sequence alike."""
    queries, keys = torch.as_tensor(queries), torch.as_tensor(keys)
    if queries.dim() == 1:
        queries, keys = queries.expand(batch, -1), keys.expand(batch, -1)   # (batch, Q)
    mask = torch.zeros(1, batch, T, T, dtype=torch.bool)
    rows = torch.arange(batch)[:, None].expand_as(queries)                  # (batch, Q)
    mask[0, rows, queries, keys] = True
    return mask


@torch.no_grad()
def logits_without(model, tokens: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """A ``SeededTransformer``'s logits (S, B, T, V) with the keys ``mask`` names (``key_mask``;
    (S or 1, B or 1, T, T), None: none) removed from their queries' view in every head."""
    model.removed_keys = mask                 # read by SeededTransformer.attention (batched.py)
    try:
        return model(tokens)                                               # (S, B, T, V)
    finally:
        model.removed_keys = None


@torch.no_grad()
def correct_at(model, tokens: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor | None = None):
    """Per seed and position, whether the model's top prediction is the target: (S, B, T)
    bool, False where there is no target; ``mask`` removes keys (``key_mask``)."""
    was_training = model.training
    model.eval()
    logits = logits_without(model, tokens, mask)                           # (S, B, T, V)
    model.train(was_training)
    return (logits.argmax(-1) == targets) & (targets != IGNORE)            # (S, B, T)


def accuracy(correct: torch.Tensor, scored: torch.Tensor) -> torch.Tensor:
    """Share of the ``scored`` positions (B, T) each seed gets right: (S,)."""
    return (correct & scored).sum(dim=(1, 2)) / scored.sum()               # (S,)


def mixing_share(a2: torch.Tensor, knocked: torch.Tensor, level: float = 0.8) -> torch.Tensor:
    """The share of sequences to knock out so that the expected accuracy is ``level``:
    (a2 − level) / (a2 − knocked), clipped to [0, 1] (0 where it is undefined)."""
    share = (a2 - level) / (a2 - knocked)
    return torch.nan_to_num(share, nan=0.0).clamp(0.0, 1.0)


def planted_accuracy(intact: torch.Tensor, knocked: torch.Tensor, scored: torch.Tensor,
                     share: torch.Tensor, seeds, base: int = 1000) -> torch.Tensor:
    """Accuracy (S,) of the planted single head on ``scored`` positions (B, T): seed s answers
    each sequence as its knocked-out model (``knocked``, (S, B, T) correct) with probability
    ``share[s]``, else as the intact one (``intact``), drawn per sequence with
    ``torch.Generator().manual_seed(base + seeds[s])``."""
    S, B = intact.shape[:2]
    values = []
    for s in range(S):
        generator = torch.Generator().manual_seed(base + int(seeds[s]))
        out = torch.rand(B, generator=generator) < share[s]                   # (B,) knocked out
        correct = torch.where(out[:, None], knocked[s], intact[s])            # (B, T)
        values.append((correct & scored).sum() / scored.sum())
    return torch.stack(values)                                             # (S,)
