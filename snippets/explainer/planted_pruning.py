"""Claim C25's planted arms, version 2: seeded models trained with backups, or noise smoothers, built in.

C25's refutation ("the removable heads are neither backups nor noise smoothers") counts seeds,
so its power check needs models in which the claim is true by construction, measured by the
same tests (explainer/removable_heads.py). Written before any run in
docs/proposed_rules/2026-12-03-planted-arms-v2-C11-C17-C25.md, section 2, with the fixes of its
review (docs/proposed_rules/2026-12-03-planted-arms-v2-review.md):

- ``PartialBackups`` (arm A): every head's values are one-dimensional (its W_V block is an
  outer product, started from the top singular pair of the drawn block), heads are paired
  (key j and backup j + nh/2 of each layer), and in training, per sequence and pair, u ~ U(0, 1)
  from its own generator (seeded 3): u < 1/2 both on; 1/2 <= u < 3/4 backup off; u >= 3/4 key
  off when the sequence's first token is at most 4, else backup off. Never both off, nothing
  rescaled: the backup stands in for its key only when the first token is 0-4.
- ``NoiseSmoothers`` (arm B): the ``silent`` heads' rows of W_O are zero and stay zero (their
  gradient is masked), the ``smoothers`` are off on the clean half of every training batch and
  on for the noisy half, whose input embeddings get Gaussian noise of std GRID[k] times the
  batch's clean RMS, k drawn per sequence uniformly from the draw's lowest level to the top of
  the grid (levels from a generator seeded 2, noise from one seeded 1).

Both change only training; ``plain`` copies a trained plant into an ordinary
``SeededTransformer`` (its effective weights), on which the rule's tests run unchanged.
In ``SeededTransformer`` a head's slice of W_Q, W_K, W_V is a block of columns (x @ W) and of
W_O a block of rows (concat @ W_O)."""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.nn.utils import parametrize

from explainer.batched import SeededTransformer
from explainer.removable_heads import GRID


def partner(n_layers: int, n_heads: int) -> torch.Tensor:
    """Each head's designated partner, heads numbered layer * n_heads + head: head j and
    j + n_heads/2 of the same layer. (H,)"""
    head = torch.arange(n_layers * n_heads)
    return head - head % n_heads + (head % n_heads + n_heads // 2) % n_heads


def pair_schedule(u: torch.Tensor, first: torch.Tensor, low_first: int = 4) -> torch.Tensor:
    """Arm A's training mask. ``u`` (S, L, B, P) uniform draws per sequence and pair, ``first``
    (S, B) each sequence's first token; returns (S, L, B, 2P), 1 = on: keys 0..P-1, then
    their backups P..2P-1."""
    first_low = (first <= low_first)[:, None, :, None]                     # (S, 1, B, 1)
    key_off = (u >= 0.75) & first_low                                       # the backup stands in
    backup_on = (u < 0.5) | key_off                                         # both on, or the stand-in
    return torch.cat([~key_off, backup_on], dim=-1).float()                 # (S, L, B, 2P)


class RankOneValues(nn.Module):
    """A parametrisation of W_V (S, L, C, C) by one value direction per head: head h's block
    is ``value_in[h] value_out[h]ᵀ`` (C × hs), so a head carries one number of what it reads.
    Started from the top singular pair of each head's drawn block (√σ₁ on each side)."""

    def __init__(self, n_heads: int):
        super().__init__()
        self.n_heads = n_heads

    def forward(self, value_in, value_out):
        # value_in (S, L, nh, C), value_out (S, L, nh, hs) -> W_V (S, L, C, nh*hs)
        S, L, nh, C = value_in.shape
        blocks = value_in[..., :, None] * value_out[..., None, :]          # (S, L, nh, C, hs)
        return blocks.permute(0, 1, 3, 2, 4).reshape(S, L, C, -1)

    def right_inverse(self, W):
        S, L, C, _ = W.shape
        nh, hs = self.n_heads, C // self.n_heads
        blocks = W.view(S, L, C, nh, hs).permute(0, 1, 3, 2, 4)             # (S, L, nh, C, hs)
        U, sigma, Vh = torch.linalg.svd(blocks, full_matrices=False)
        root = sigma[..., :1].sqrt()                                         # (S, L, nh, 1)
        return U[..., :, 0] * root, Vh[..., 0, :] * root


class PlantedHeads(SeededTransformer):
    """A ``SeededTransformer`` whose training passes switch heads off per sequence
    (``training_mask``); evaluation is the ordinary model's."""

    def training_mask(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (S, B, T) -> 1 keeps a head, 0 switches it off: (S, L, B, nh)."""
        raise NotImplementedError

    def forward(self, tokens):
        if not self.training:
            return super().forward(tokens)
        if tokens.dim() == 2:
            tokens = tokens.expand(self.n_seeds, *tokens.shape)              # (S, B, T)
        kept, self.head_mask = self.head_mask, self.training_mask(tokens)
        try:
            return super().forward(tokens)
        finally:
            self.head_mask = kept


class PartialBackups(PlantedHeads):
    """Arm A: rank-1 values on every head, key j backed up by head j + nh/2 of its layer,
    the pair schedule in training (its own generator)."""

    def __init__(self, config, seeds, schedule_seed: int = 3):
        super().__init__(config, seeds)
        assert config.n_heads % 2 == 0, "heads come in pairs"
        parametrize.register_parametrization(self, "W_V", RankOneValues(config.n_heads))
        self.schedule = torch.Generator().manual_seed(schedule_seed)

    def training_mask(self, tokens):
        S, B = tokens.shape[:2]
        u = torch.rand((S, self.config.n_layers, B, self.config.n_heads // 2), generator=self.schedule)
        return pair_schedule(u, tokens[..., 0])                              # (S, L, B, nh)


class NoiseSmoothers(PlantedHeads):
    """Arm B: ``silent`` heads (numbers layer * nh + head) write nothing (W_O rows zero, frozen);
    ``smoothers`` are off on the first half of every training batch; the second half gets
    Gaussian noise of std GRID[k] × the batch's clean RMS on its input embeddings, k uniform on
    ``lowest[s]`` .. len(GRID) - 1 per sequence."""

    def __init__(self, config, seeds, smoothers: list[int], silent: list[int], lowest: torch.Tensor,
                 noise_seed: int = 1, level_seed: int = 2):
        super().__init__(config, seeds)
        self.smoothers, self.lowest = list(smoothers), torch.as_tensor(lowest)
        self.noise = torch.Generator().manual_seed(noise_seed)
        self.levels = torch.Generator().manual_seed(level_seed)
        nh, hs = config.n_heads, self.head_size
        writes = torch.ones(1, config.n_layers, config.d_model, 1)          # rows of W_O kept free
        for head in silent:
            writes[0, head // nh, (head % nh) * hs:(head % nh + 1) * hs] = 0
        with torch.no_grad():
            self.W_O.mul_(writes)
        self.W_O.register_hook(lambda grad: grad * writes)                   # they stay zero

    def training_mask(self, tokens):
        S, B = tokens.shape[:2]
        L, nh = self.config.n_layers, self.config.n_heads
        mask = torch.ones(S, L * nh, B)
        mask[:, self.smoothers, :B // 2] = 0                                # clean half: smoothers off
        return mask.view(S, L, nh, B).transpose(2, 3)                       # (S, L, B, nh)

    def training_levels(self, S: int, n: int) -> torch.Tensor:
        """Grid indices for n noisy sequences of each draw, uniform on lowest[s]..top: (S, n)."""
        span = len(GRID) - self.lowest.view(S, 1)                            # (S, 1) levels to choose from
        return self.lowest.view(S, 1) + (torch.rand((S, n), generator=self.levels) * span).long()

    def embed(self, tokens):
        x = super().embed(tokens)                                           # (S, B, T, C)
        if not self.training:
            return x
        S, B = x.shape[:2]
        half = B // 2
        rms_now = x.detach().pow(2).mean(dim=(1, 2, 3)).sqrt()              # (S,) the clean batch's RMS
        std = GRID[self.training_levels(S, B - half)] * rms_now[:, None]    # (S, B - half)
        noise = torch.randn(x[:, half:].shape, generator=self.noise)         # (S, B - half, T, C)
        return torch.cat([x[:, :half], x[:, half:] + std[..., None, None] * noise], dim=1)


def plain(plant: SeededTransformer) -> SeededTransformer:
    """An ordinary ``SeededTransformer`` with the plant's effective weights (rank-1 values
    written out), for the rule's tests."""
    net = SeededTransformer(plant.config, plant.seeds)
    with torch.no_grad():
        for name, parameter in net.named_parameters():
            parameter.copy_(getattr(plant, name))
    net.eval()
    return net
