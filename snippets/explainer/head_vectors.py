"""MiniLM's queries, keys and values per head, projected as attention projects them.

``head_vectors`` projects a layer's input with that layer's W_Q, W_K and W_V and splits
the result into heads; ``framed_noun_vectors`` does it for one token, the noun, of every
sentence of ``noun_classes.framed_sentences()`` (the keys/queries pages measure both).
"""

from __future__ import annotations

import torch

from explainer.minilm import MiniLM, Tokenizer, run_sentences
from explainer.noun_classes import FOOD_NOUNS, FRAMES, OTHER_NOUNS, framed_sentences


def head_vectors(model: MiniLM, x: torch.Tensor, layer: int) -> dict[str, torch.Tensor]:
    """Q, K, V of layer ``layer`` for inputs x (N, C), split into heads: each (N, nh, hs)."""
    H = model.config.n_heads
    hs = model.config.d_model // H
    attention = model.layers[layer].attention
    with torch.no_grad():
        return {name: getattr(attention, f"W_{name}")(x).view(-1, H, hs)
                for name in ("Q", "K", "V")}


def framed_noun_vectors(model: MiniLM, tokenizer: Tokenizer) -> tuple[dict[str, torch.Tensor], int]:
    """Q, K, V of the noun in each frame, per layer: each (L, nouns, frames, nh, hs), nouns
    in the order FOOD_NOUNS + OTHER_NOUNS; and in how many sentences the noun is one token
    (a noun that is not stays zeros)."""
    L, H, C = model.config.n_layers, model.config.n_heads, model.config.d_model
    hs = C // H
    nouns = FOOD_NOUNS + OTHER_NOUNS
    n_nouns, n_frames = len(nouns), len(FRAMES)
    framed = framed_sentences()                                        # (sentence, noun, frame)
    outputs = run_sentences(model, tokenizer, [sentence for sentence, _, _ in framed])
    noun_inputs = torch.zeros(L, n_nouns, n_frames, C)                 # (L, n, F, C)
    found = 0
    for (sentence, noun, frame), out in zip(framed, outputs):
        tokens = tokenizer.tokens(sentence)
        if noun not in tokens:                                         # not one token: leave zeros
            continue
        position = tokens.index(noun)
        for layer in range(L):
            noun_inputs[layer, nouns.index(noun), frame] = out.hidden_states[layer][0, position]
        found += 1

    vectors = {name: torch.zeros(L, n_nouns, n_frames, H, hs) for name in ("Q", "K", "V")}
    for layer in range(L):
        flat = noun_inputs[layer].reshape(-1, C)                       # (n*F, C)
        for name, projected in head_vectors(model, flat, layer).items():
            vectors[name][layer] = projected.view(n_nouns, n_frames, H, hs)
    return vectors, found
