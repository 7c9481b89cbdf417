"""Tasks that need a near token and a far token at every position.

Random sequences of T = 10 tokens from V = 10; position t >= 1 must combine
the *previous* token x[t-1] with the *first* token x[0]:

- ``near_and_far``:  target (x[t-1] + x[0]) mod V — order does not matter;
- ``ordered_pair``:  target the pair (x[0], x[t-1]) as one of V*V classes —
  order matters, so an even average of the two tokens is not enough.

``one_layer`` is the model the many-heads pages train on them.
"""

import torch

from explainer.batched import SeededTransformer
from explainer.tiny_transformer import TransformerConfig
from explainer.training import IGNORE

V, T = 10, 10
D_MODEL = 32


def near_and_far(generator: torch.Generator, batch_size: int):
    tokens = torch.randint(V, (batch_size, T), generator=generator)        # (B, T)
    targets = torch.full((batch_size, T), IGNORE)
    targets[:, 1:] = (tokens[:, :-1] + tokens[:, :1]) % V
    return tokens, targets


def ordered_pair(generator: torch.Generator, batch_size: int):
    tokens = torch.randint(V, (batch_size, T), generator=generator)        # (B, T)
    targets = torch.full((batch_size, T), IGNORE)
    targets[:, 1:] = tokens[:, :1] * V + tokens[:, :-1]
    return tokens, targets


def one_layer(n_heads: int, seeds: list[int], vocab_out: int = V) -> SeededTransformer:
    """One attention layer and an MLP, d_model = 32 split into n_heads heads; a copy per seed."""
    return SeededTransformer(TransformerConfig(
        vocab_size=max(V, vocab_out), n_ctx=T, d_model=D_MODEL, n_heads=n_heads,
        n_layers=1, d_mlp=64), seeds)
