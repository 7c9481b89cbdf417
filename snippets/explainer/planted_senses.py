"""G1's planted effect for a sense read from values (C36): one head's value vectors at the
ambiguous word, word by word, with the two senses' class means removed and one random
direction u carrying the sense at a chosen size; the same nearest-centroid probe reads it."""

from __future__ import annotations

import numpy as np
import torch

from explainer.centroid_probe import centroid_probe_correct
from explainer.projection_baseline import without_class_means


def planted_senses(vectors: torch.Tensor, truth: np.ndarray, word_of: np.ndarray, size: float,
                   u: torch.Tensor) -> torch.Tensor:
    """``vectors`` (..., N, d): one head's value at the word in every sentence (a leading
    dimension: one head per draw). Word by word: the senses' class means removed, then
    ±size/2 standard deviations (of that word's vectors along the unit direction ``u``
    (..., d)) added along u by sense (sense 1 +, sense 0 −)."""
    out = vectors.double().clone()
    u = torch.nn.functional.normalize(u.double(), dim=-1)
    for word in np.unique(word_of):
        rows = torch.as_tensor(np.flatnonzero(word_of == word))
        base = without_class_means(out[..., rows, :], truth[rows.numpy()])
        along = (base @ u[..., :, None])[..., 0]                                 # (..., n)
        sign = torch.as_tensor(2.0 * truth[rows.numpy()] - 1.0, dtype=base.dtype)  # (n,) ±1
        shift = size / 2 * along.std(dim=-1, keepdim=True) * sign               # (..., n)
        out[..., rows, :] = base + shift[..., None] * u[..., None, :]
    return out


def probe_hits(vectors: torch.Tensor, truth: np.ndarray, frame_ids: np.ndarray,
               word_of: np.ndarray, n_folds: int = 5) -> torch.Tensor:
    """(D, N) bool: held out by frame (``n_folds`` folds), one nearest-centroid probe per
    word, is each sentence's sense read right from ``vectors`` (D, N, d), D heads at once?"""
    hits = torch.zeros(vectors.shape[0], vectors.shape[1], dtype=torch.bool)
    for word in np.unique(word_of):
        rows = np.flatnonzero(word_of == word)
        seen = vectors[:, rows].transpose(0, 1)                                  # (n, D, d)
        found = centroid_probe_correct(seen, torch.as_tensor(truth[rows])[None], frame_ids[rows], n_folds)
        hits[:, rows] = found[0]                                                 # (D, n)
    return hits


def planted_draws(values: torch.Tensor, truth: np.ndarray, frame_ids: np.ndarray, word_of: np.ndarray,
                  size: float, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, torch.Tensor]:
    """``draws`` planted heads: each one of ``values`` (heads, N, d) drawn at random with a random
    direction u, planted at ``size``. Returns (the heads drawn (draws,), probe hits (draws, N))."""
    heads = rng.integers(values.shape[0], size=draws)
    u = torch.as_tensor(rng.standard_normal((draws, values.shape[-1])))
    planted = planted_senses(values[torch.as_tensor(heads)], truth, word_of, size, u)
    return heads, probe_hits(planted, truth, frame_ids, word_of)


def planted_size(values: torch.Tensor, truth: np.ndarray, frame_ids: np.ndarray, word_of: np.ndarray,
                 bar: float, sizes: np.ndarray, draws: int, seed: int = 0) -> tuple[float, float]:
    """The smallest of ``sizes`` at which planted heads reach a mean held-out accuracy of
    ``bar`` over ``draws`` (the same draws at every size), and that mean."""
    for size in sizes:
        _, hits = planted_draws(values, truth, frame_ids, word_of, float(size), draws,
                                np.random.default_rng(seed))
        mean = float(hits.double().mean())
        if mean >= bar:
            return float(size), mean
    raise ValueError(f"no planted size in {sizes[0]:.2f} .. {sizes[-1]:.2f} reaches {bar}")


def frame_interval(hits: torch.Tensor, frame_ids: np.ndarray, n_frames: int,
                   rng: np.random.Generator, redraws: int = 1000) -> tuple[float, float]:
    """95 % interval of the accuracy of ``hits`` (N,): the frames redrawn ``redraws`` times
    (multinomial, as sense_in_values.py does for the best head)."""
    per_frame = np.array([[hits[frame_ids == f].double().sum(), (frame_ids == f).sum()]
                          for f in range(n_frames)])                              # (F, 2)
    drawn = rng.multinomial(n_frames, np.full(n_frames, 1 / n_frames), size=redraws)
    low, high = np.percentile(drawn @ per_frame[:, 0] / (drawn @ per_frame[:, 1]), [2.5, 97.5])
    return float(low), float(high)
