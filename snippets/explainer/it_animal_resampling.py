"""C03's real-model numbers on any draw of the minimal pairs (G2), as
real_model/it_animal.py measures them on the 20 pairs: the resolving head is picked again
on the drawn sentences, then its share of v(referent) and the lean test."""

from __future__ import annotations

import numpy as np
import torch


@torch.no_grad()
def head_value_shares(model, output, it: int, right: int) -> np.ndarray:
    """(L, nh): in every head, the share of its output at ``it`` that is the referent's term
    a_r v_r, its projection on the output: (a_r v_r · o) / |o|² (it_animal.py's value_shares)."""
    shares = []
    for layer, block in enumerate(model.layers):
        attention = block.attention
        v = attention.split_heads(attention.W_V(output.hidden_states[layer]))[0]   # (nh, T, hs)
        terms = output.attentions[layer][0, :, it][:, :, None] * v                  # (nh, T, hs)
        o = terms.sum(dim=1)                                                         # (nh, hs)
        shares.append(((terms[:, right] * o).sum(-1) / (o * o).sum(-1).clamp_min(1e-12)).numpy())
    return np.array(shares)


def c03_numbers(correct: np.ndarray, shares: np.ndarray, shift: np.ndarray, pairs,
                n_flips: int, seed: int) -> dict:
    """The numbers C03's rule reads, on the pairs ``pairs`` (indices, repeats allowed).
    correct, shares (2·P, L, nh): per sentence (pair p's at 2p and 2p + 1), whether each head
    picks the referent and its share of v(referent); shift (P,): each pair's lean shift."""
    pairs = np.asarray(pairs)
    rows = np.stack([2 * pairs, 2 * pairs + 1], axis=1).ravel()
    layer, head = np.unravel_index(correct[rows].mean(axis=0).argmax(), correct.shape[1:])
    drawn = shift[pairs]
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n_flips, len(drawn)))
    null = (signs * drawn).mean(axis=1)
    return dict(value_share=float(shares[rows, layer, head].mean()), shift=float(drawn.mean()),
                p=float((1 + (null >= drawn.mean() - 1e-12).sum()) / (1 + n_flips)))
