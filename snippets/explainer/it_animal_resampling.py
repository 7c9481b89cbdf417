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


# ------------------------------------------------------------------ C03's margin and its G1 check

def resolver_shares(correct: np.ndarray, shares: np.ndarray, pair_draws) -> tuple[np.ndarray, np.ndarray]:
    """For each draw of pairs (draws, P') (indices into the P pairs, repeats allowed): the mean
    share of the head picked again on the drawn sentences (the accuracy argmax, the first head in
    index order on ties, as ``c03_numbers``), and that head's flat index; each (draws,).
    correct, shares (2·P, ...): per sentence, pair p's at 2p and 2p + 1."""
    pair_draws = np.atleast_2d(np.asarray(pair_draws))
    n_pairs = correct.shape[0] // 2
    right = correct.reshape(2 * n_pairs, -1).astype(float)
    part = shares.reshape(2 * n_pairs, -1)
    counts = np.stack([np.bincount(d, minlength=n_pairs) for d in pair_draws]).astype(float)   # (draws, P)
    chosen = (counts @ (right[0::2] + right[1::2])).argmax(axis=1)                             # exact counts
    total = counts @ (part[0::2] + part[1::2])                                                  # (draws, heads)
    return total[np.arange(len(chosen)), chosen] / (2 * pair_draws.shape[1]), chosen


def upper_end(values, level: float = 0.95) -> float:
    """The upper end of the percentile interval at ``level`` (0.95: the 97.5th percentile)."""
    return float(np.percentile(np.asarray(values, dtype=float), 100 * (1 + level) / 2))


def planted_share_detection(correct: np.ndarray, shares: np.ndarray, head: int, bar: float = 0.5,
                            outer: int = 200, inner: int = 1000, seed: int = 3) -> tuple[float, float]:
    """G1 for C03's margin. Head ``head`` (flat index: the head the rule reads) has every
    sentence's share shifted by one constant so that its mean over the sentences is ``bar``: a
    population at the smallest size that makes the claim true, with the real spread. ``outer``
    times, a sample of as many pairs is drawn from it with replacement; on that sample, the
    snippet's resampling (``inner`` draws of its pairs, the head picked again in each) gives the
    upper end of the share's 95 % interval. Returns the share of samples whose upper end is at
    least ``bar`` (the refuted case does not hold) and how often the inner draws picked ``head``."""
    n_pairs = correct.shape[0] // 2
    planted = shares.reshape(2 * n_pairs, -1).astype(float).copy()
    planted[:, head] += bar - planted[:, head].mean()
    rng = np.random.default_rng(seed)
    detected, picked = [], []
    for _ in range(outer):
        sample = rng.integers(0, n_pairs, size=n_pairs)                      # a new draw of pairs
        again = sample[rng.integers(0, n_pairs, size=(inner, n_pairs))]     # its own resampling
        values, chosen = resolver_shares(correct, planted, again)
        detected.append(upper_end(values) >= bar)
        picked.append(np.mean(chosen == head))
    return float(np.mean(detected)), float(np.mean(picked))
