"""Each layer's values in MiniLM, for every token of a set of sentences.

Used by real_model/residual/cka.py and real_model/residual/probes.py (claims C19, C29): the
values V = W_V x of every layer, x the layer's input, the sentences' tokens concatenated in
order (the row of token p of sentence s is the sentences' lengths before s, plus p)."""

from __future__ import annotations

import torch


def values_by_layer(model, outputs) -> list[torch.Tensor]:
    """``outputs`` from ``minilm.run_sentences`` -> one (N, C) tensor of values per layer,
    N the tokens of all sentences ([CLS] and [SEP] included), heads concatenated."""
    values = []
    for layer, block in enumerate(model.layers):
        x = torch.cat([o.hidden_states[layer][0] for o in outputs])            # (N, C): layer input
        with torch.no_grad():
            values.append(block.attention.W_V(x))                               # (N, C)
    return values
