"""Many copies of the tiny 1-layer transformer, one per random seed, trained as one.

A claim about what training *does* must hold over many random seeds, not one
lucky run. Instead of training M models one after the other, every parameter
gets a leading model dimension M and one forward pass runs them all: the
models share nothing but the batched matrix products. Adam updates every
number on its own, so each model follows the path it would follow if trained
alone on the same batches (up to float rounding: checked against TinyTransformer).

``StackedTransformer.from_seeds`` draws model m exactly like
``TinyTransformer`` (explainer/tiny_transformer.py) after
``torch.manual_seed(seeds[m])``, so a stacked model and a single one start from
the same numbers. Attention-only, one layer, causal, no layer norm.
Shapes: M = models, B = batch, T = positions, C = d_model, V = vocabulary,
nh = heads, hs = head size.
"""

import math
from typing import Callable, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import IGNORE, Task

PARAMETERS = ("token_embedding", "position_embedding", "W_Q", "W_K", "W_V", "W_O",
              "unembed", "unembed_bias")


class StackedTransformer(nn.Module):
    """M one-layer attention-only transformers with a leading model dimension."""

    def __init__(self, config: TransformerConfig, n_models: int):
        super().__init__()
        assert config.n_layers == 1 and config.d_mlp == 0, "one attention-only layer"
        self.config = config
        self.n_models = n_models
        self.n_heads = config.n_heads
        self.head_size = config.d_model // config.n_heads
        M, V, T, C = n_models, config.vocab_size, config.n_ctx, config.d_model
        self.token_embedding = nn.Parameter(torch.zeros(M, V, C))
        self.position_embedding = nn.Parameter(torch.zeros(M, T, C))
        # Projections stored like nn.Linear.weight: (out, in); head h owns rows / columns h*hs:(h+1)*hs.
        self.W_Q = nn.Parameter(torch.zeros(M, C, C))
        self.W_K = nn.Parameter(torch.zeros(M, C, C))
        self.W_V = nn.Parameter(torch.zeros(M, C, C))
        self.W_O = nn.Parameter(torch.zeros(M, C, C))
        self.unembed = nn.Parameter(torch.zeros(M, V, C))
        self.unembed_bias = nn.Parameter(torch.zeros(M, V))
        # Per model: heads forced to use head 0's W_Q, W_K, W_V slices (explainer's "shared heads").
        self.register_buffer("shared", torch.zeros(M, dtype=torch.bool))
        # Per model: one head as wide as the model in every head slot: each slot attends with the
        # pattern of q·k over all d_model dimensions (/√d_model), so the slots are one shared map
        # that uses all of W_Q, W_K, W_V, W_O (as many parameters as free heads).
        self.register_buffer("wide", torch.zeros(M, dtype=torch.bool))
        self.last_weights = None       # (M, B, nh, T, T)
        self.last_head_outputs = None  # (M, B, nh, T, C): what each head writes (eval mode only)

    @classmethod
    def from_seeds(cls, config: TransformerConfig, seeds: Sequence[int]) -> "StackedTransformer":
        """Model m starts as ``TinyTransformer(config)`` does after ``torch.manual_seed(seeds[m])``."""
        stacked = cls(config, len(seeds))
        with torch.no_grad():
            for m, seed in enumerate(seeds):
                torch.manual_seed(seed)
                single = TinyTransformer(config)
                attention = single.attentions[0]
                stacked.token_embedding[m] = single.token_embedding.weight
                stacked.position_embedding[m] = single.position_embedding.weight
                for name in ("W_Q", "W_K", "W_V", "W_O"):
                    getattr(stacked, name)[m] = getattr(attention, name).weight
                stacked.unembed[m] = single.unembed.weight
                stacked.unembed_bias[m] = single.unembed.bias
        return stacked

    def head_slices(self, name: str) -> torch.Tensor:
        """Each head's part of one projection: (M, nh, hs, C) for W_Q/W_K/W_V (rows), W_O (columns)."""
        M, nh, hs, C = self.n_models, self.n_heads, self.head_size, self.config.d_model
        weight = getattr(self, name)
        if name == "W_O":
            return weight.view(M, C, nh, hs).permute(0, 2, 3, 1)    # (M, nh, hs, C)
        return weight.view(M, nh, hs, C)                            # (M, nh, hs, C)

    def head_parameters(self) -> torch.Tensor:
        """Each head's whole parameter vector (its W_Q, W_K, W_V rows and W_O columns): (M, nh, 4*hs*C)."""
        return torch.cat([self.head_slices(name).flatten(2) for name in ("W_Q", "W_K", "W_V", "W_O")],
                         dim=-1)

    def _projection(self, name: str) -> torch.Tensor:
        slices = self.head_slices(name)                             # (M, nh, hs, C)
        same = slices[:, :1].expand_as(slices)                      # head 0's slice for every head
        slices = torch.where(self.shared.view(-1, 1, 1, 1), same, slices)
        return slices                                               # (M, nh, hs, C)

    def forward(self, tokens: torch.Tensor, head_mask: torch.Tensor | None = None,
                attention_dropout: torch.Tensor | None = None) -> torch.Tensor:
        """tokens (B, T) shared by all models, or (M, B, T); returns logits (M, B, T, V).

        head_mask (M, B, nh) multiplies each head's output (0 = switched off);
        attention_dropout (M,) drops attention weights with that probability per model (training only).
        """
        M, nh, hs, C = self.n_models, self.n_heads, self.head_size, self.config.d_model
        if tokens.dim() == 2:
            tokens = tokens.expand(M, *tokens.shape)                # (M, B, T)
        B, T = tokens.shape[1:]
        models = torch.arange(M).view(M, 1, 1)
        x = self.token_embedding[models, tokens] + self.position_embedding[:, None, :T]  # (M, B, T, C)
        W_QKV = torch.cat([self._projection(name).reshape(M, C, C) for name in ("W_Q", "W_K", "W_V")],
                          dim=1)                                             # (M, 3C, C)
        qkv = x.view(M, B * T, C) @ W_QKV.transpose(1, 2)                    # (M, B*T, 3C)
        q, k, v = qkv.view(M, B, T, 3, nh, hs).permute(3, 0, 1, 4, 2, 5)     # each (M, B, nh, T, hs)
        scores = q @ k.transpose(-2, -1) / hs ** 0.5                         # (M, B, nh, T, T)
        if self.wide.any():  # q·k over all C dimensions = the sum of the heads' q·k
            one_map = (scores.sum(dim=2, keepdim=True) * (hs / C) ** 0.5).expand_as(scores)
            scores = torch.where(self.wide.view(M, 1, 1, 1, 1), one_map, scores)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(dim=-1)  # rows sum to 1
        self.last_weights = weights.detach()
        if attention_dropout is not None and self.training:
            keep = 1 - attention_dropout.view(M, 1, 1, 1, 1)
            weights = weights * (torch.rand_like(weights) < keep) / keep
        heads = weights @ v                                                  # (M, B, nh, T, hs)
        if head_mask is not None:
            heads = heads * head_mask[..., None, None]                       # (M, B, nh, T, hs)
        if not self.training:  # for analysis: what each head writes into the residual stream
            self.last_head_outputs = torch.einsum("mbhtd,mhdc->mbhtc", heads, self.head_slices("W_O")).detach()
        concat = heads.transpose(2, 3).reshape(M, B * T, C)                  # (M, B*T, C)
        x = x.view(M, B * T, C) + concat @ self.W_O.transpose(1, 2)          # (M, B*T, C)
        logits = x @ self.unembed.transpose(1, 2) + self.unembed_bias[:, None]  # (M, B*T, V)
        return logits.view(M, B, T, -1)                                      # (M, B, T, V)


def losses_on(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of each model over the positions with a target: (M,)."""
    M = logits.shape[0]
    if targets.dim() == 2:
        targets = targets.expand(M, *targets.shape)                         # (M, B, T)
    per_position = F.cross_entropy(logits.flatten(1, 2).transpose(1, 2), targets.flatten(1, 2),
                                   ignore_index=IGNORE, reduction="none")   # (M, B*T)
    scored = (targets.flatten(1, 2) != IGNORE).float()
    return (per_position * scored).sum(1) / scored.sum(1)


@torch.no_grad()
def evaluate_stacked(model: StackedTransformer, tokens, targets, head_mask=None):
    """(loss, accuracy) of every model on one batch, in eval mode: two (M,) tensors."""
    was_training = model.training
    model.eval()
    logits = model(tokens, head_mask=head_mask)                             # (M, B, T, V)
    model.train(was_training)
    if targets.dim() == 2:
        targets = targets.expand(model.n_models, *targets.shape)
    scored = targets != IGNORE                                               # (M, B, T)
    correct = (logits.argmax(-1) == targets) & scored
    return losses_on(logits, targets), correct.sum((1, 2)) / scored.sum((1, 2))


def train_stacked(model: StackedTransformer, task: Task, *, steps: int = 300, batch_size: int = 32,
                  lr: float = 1e-2, warmup: int = 20, data_seeds: Sequence[int] | None = None,
                  head_dropout: torch.Tensor | None = None, attention_dropout: torch.Tensor | None = None,
                  extra_loss: Callable[[StackedTransformer], torch.Tensor] | None = None,
                  on_step: Callable[[int, StackedTransformer], None] | None = None,
                  seed: int = 0, cosine_decay: bool = False) -> torch.Tensor:
    """AdamW on all models at once; returns every model's training loss at every step, (steps, M).

    Model m draws its batches from ``task`` with a generator seeded ``data_seeds[m]``
    (default: all models see the same batches). ``head_dropout`` (M,): each head of
    each sequence is switched off with that probability and the others scaled up.
    ``extra_loss(model)`` returns an (M,) penalty added to each model's loss.
    ``on_step(step, model)`` runs before step 1 (step 0) and after every step.
    ``cosine_decay``: after the warm-up the learning rate falls to 0 along a half cosine
    (so the last steps settle into a minimum instead of bouncing around it).
    """
    M, nh = model.n_models, model.n_heads
    data_seeds = list(data_seeds) if data_seeds is not None else [seed] * M
    generators = {s: torch.Generator().manual_seed(s) for s in dict.fromkeys(data_seeds)}
    torch.manual_seed(seed)                                   # dropout masks
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0, foreach=True)
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        if not cosine_decay:
            return 1.0
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    model.train()
    if on_step is not None:
        on_step(0, model)
    history = []
    for step in range(1, steps + 1):
        batches = {s: task(g, batch_size) for s, g in generators.items()}
        tokens = torch.stack([batches[s][0] for s in data_seeds])          # (M, B, T)
        targets = torch.stack([batches[s][1] for s in data_seeds])         # (M, B, T)
        head_mask = None
        if head_dropout is not None:
            keep = 1 - head_dropout.view(M, 1, 1)
            head_mask = (torch.rand(M, batch_size, nh) < keep) / keep      # (M, B, nh)
        losses = losses_on(model(tokens, head_mask=head_mask, attention_dropout=attention_dropout),
                           targets)                                        # (M,)
        total = losses if extra_loss is None else losses + extra_loss(model)
        optimizer.zero_grad(set_to_none=True)
        total.sum().backward()    # a sum: each model gets exactly its own gradient
        optimizer.step()
        schedule.step()
        history.append(losses.detach())
        if on_step is not None:
            on_step(step, model)
    model.eval()
    return torch.stack(history)                                             # (steps, M)


def per_model(metric, weights: torch.Tensor, *args) -> torch.Tensor:
    """Apply a head metric of explainer/head_metrics.py to stacked weights (M, B, nh, T, S): (M, nh)."""
    M, B, nh = weights.shape[:3]
    as_heads = weights.transpose(0, 1).reshape(B, M * nh, *weights.shape[3:])  # (B, M*nh, T, S)
    return metric(as_heads, *args).view(M, nh)
