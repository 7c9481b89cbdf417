"""C36's numbers on any draw of the frames (G2): the sense probe of
real_model/keys_queries/sense_in_values.py, run again on frames drawn with replacement."""

from __future__ import annotations

import numpy as np
import torch

from explainer.centroid_probe import centroid_probe_correct, swap_within_pairs


def sense_rule_numbers(vectors: torch.Tensor, truth: np.ndarray, frame_ids: np.ndarray,
                       word_of: np.ndarray, frames, n_draws: int, seed: int) -> dict:
    """Every number C36's rule reads, on the frames ``frames`` (indices, repeats allowed).

    vectors (L, N, nh, hs): the word's value in every sentence; truth, frame_ids, word_of (N,).
    Each drawn copy of a frame brings all its sentences; its pairs are its own (the senses
    are swapped copy by copy), and every copy of one frame stays in that frame's fold. The
    permutation test draws ``n_draws`` relabellings; the best head's 95 % interval redraws
    the drawn copies 1,000 times."""
    L, _, H, hs = vectors.shape
    rows = np.concatenate([np.flatnonzero(frame_ids == f) for f in frames])        # (n,)
    copy = np.repeat(np.arange(len(frames)), [(frame_ids == f).sum() for f in frames])
    truth, groups, word_of = truth[rows], frame_ids[rows], word_of[rows]
    pairs = np.array([f"{w}/{c}" for w, c in zip(word_of, copy)])
    rng = np.random.default_rng(seed)
    labels = np.vstack([truth, swap_within_pairs(truth, pairs, n_draws, rng)])     # (1 + D, n)
    hits = torch.zeros(len(labels), L, H, len(rows), dtype=torch.bool)
    for word in np.unique(word_of):                                                 # one probe per word
        mine = np.flatnonzero(word_of == word)
        seen = vectors[:, rows[mine]].permute(1, 0, 2, 3).reshape(len(mine), L * H, hs)
        found = centroid_probe_correct(seen, torch.as_tensor(labels[:, mine]), groups[mine], n_folds=5)
        hits[:, :, :, mine] = found.view(len(labels), L, H, len(mine))
    accuracy = hits.double().mean(-1)                                               # (1 + D, L, H)
    observed, null_max = accuracy[0], accuracy[1:, 1:].amax(dim=(1, 2))
    layer, head = divmod(int(observed[1:].argmax()), H)
    best = float(observed[layer + 1, head])
    per_copy = np.array([[hits[0, layer + 1, head, copy == c].double().sum(), (copy == c).sum()]
                         for c in range(len(frames))])                              # (copies, 2)
    redrawn = rng.multinomial(len(frames), np.full(len(frames), 1 / len(frames)), size=1000)
    low, high = np.percentile(redrawn @ per_copy[:, 0] / (redrawn @ per_copy[:, 1]), [2.5, 97.5])
    return dict(best=best, low=float(low), high=float(high),
                p=(1 + int((null_max >= best).sum())) / (1 + n_draws),
                layer1=float(observed[0].max()))
