"""Many small transformers trained as one: every parameter has a leading model dimension.

A claim about what training *does* must hold over many random seeds, not one lucky run.
Instead of training M models one after the other, every parameter gets a leading model
dimension M and one forward pass runs them all: the models share nothing but the batched
matrix products. The loss is the sum of the models' own mean losses and AdamW updates every
number on its own, so each model follows the path it would follow if trained alone on the
same batches (up to float rounding: tests/explainer/test_batched.py checks it against TinyTransformer).

Two models, one loop:

- ``SeededTransformer``: the tiny transformer of ``tiny_transformer.py`` (any number of
  layers, an optional MLP), model s initialised from its own ``torch.Generator().manual_seed(seeds[s])``.
- ``StackedTransformer``: one attention-only layer whose heads can be tied (``shared``) or
  made one wide head (``wide``), with head and attention dropout; ``from_seeds`` starts
  model m exactly as ``TinyTransformer`` does after ``torch.manual_seed(seeds[m])``.
- ``losses_on``, ``evaluate_batched`` and ``train_batched`` work for both.

No layer norm, causal attention, a linear unembedding. Shapes: M = models (S when they are
seeds), B = batch, T = positions, C = d_model, V = vocabulary, L = layers, nh = heads, hs = head size.
"""

import math
from typing import Callable, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.tiny_transformer import TinyTransformer, TransformerConfig
from explainer.training import IGNORE, Task


def per_seed_matmul(x, W):
    """x (S, B, T, n) times each seed's own W (S, n, m) -> (S, B, T, m), as one bmm."""
    S, B, T, n = x.shape
    return (x.reshape(S, B * T, n) @ W).view(S, B, T, W.shape[-1])


def _uniform(generator, shape, fan_in):
    bound = fan_in ** -0.5
    return (torch.rand(shape, generator=generator) * 2 - 1) * bound


class SeededTransformer(nn.Module):
    """S tiny transformers with stacked parameters, one per random seed.

    ``W_Q`` is (S, L, C, C). Seed s is initialised from
    ``torch.Generator().manual_seed(seeds[s])`` as ``TinyTransformer`` initialises its
    layers (nn.Embedding: N(0, 1); nn.Linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in))).
    Attention has no biases (AttentionConfig's default)."""

    classes_last = True    # how losses_on lays out this model's logits (see there)

    def __init__(self, config: TransformerConfig, seeds: list[int]):
        super().__init__()
        assert config.d_model % config.n_heads == 0, "d_model must split evenly into heads"
        assert config.dropout == 0.0, "attention dropout is not implemented for seeded models"
        self.config, self.seeds = config, list(seeds)
        C, V, L, M = config.d_model, config.vocab_size, config.n_layers, config.d_mlp
        self.n_heads, self.head_size = config.n_heads, C // config.n_heads
        shapes = {"token_embedding": (V, C), "position_embedding": (config.n_ctx, C),
                  "W_Q": (L, C, C), "W_K": (L, C, C), "W_V": (L, C, C), "W_O": (L, C, C),
                  "W_unembed": (C, V), "b_unembed": (V,)}
        if M:
            shapes.update({"W_in": (L, C, M), "b_in": (L, M), "W_out": (L, M, C), "b_out": (L, C)})
        fan_in = {"W_Q": C, "W_K": C, "W_V": C, "W_O": C, "W_unembed": C, "b_unembed": C,
                  "W_in": C, "b_in": C, "W_out": M, "b_out": M}
        per_seed = {name: [] for name in shapes}
        for seed in self.seeds:
            generator = torch.Generator().manual_seed(seed)
            for name, shape in shapes.items():
                if name.endswith("embedding"):
                    per_seed[name].append(torch.randn(shape, generator=generator))
                else:
                    per_seed[name].append(_uniform(generator, shape, fan_in[name]))
        for name, tensors in per_seed.items():
            setattr(self, name, nn.Parameter(torch.stack(tensors)))  # (S, *shape)
        # 1 = head on, 0 = head ablated (zeroed before W_O), per seed (S, L, nh) or sequence (S, L, B, nh).
        self.register_buffer("head_mask", torch.ones(len(self.seeds), L, config.n_heads))
        self.keep_weights = True   # keep each layer's weights in passes without gradient
        self.last_weights: list[torch.Tensor] = []       # per layer (S, B, nh, T, T)
        self.keep_head_outputs = False                   # keep (S, B, nh, T, hs) with its graph
        self.last_head_outputs: list[torch.Tensor] = []
        # Std of Gaussian noise added to the input embeddings (robustness probes): None,
        # a number, or one number per seed (S,). Reseed ``noise_generator`` for paired runs.
        self.input_noise = None
        self.noise_generator = torch.Generator().manual_seed(0)
        self.removed_keys = None   # keys out of every head's view in evaluation (token_knockout.py)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    n_models = n_seeds   # the name evaluate_batched and train_batched read

    def embed(self, tokens):
        """tokens (S, B, T), or (B, T) shared by all seeds -> residual stream (S, B, T, C)."""
        S = self.n_seeds
        if tokens.dim() == 2:
            tokens = tokens.expand(S, *tokens.shape)                     # (S, B, T)
        T = tokens.shape[-1]
        assert T <= self.config.n_ctx, f"sequence of {T} tokens, model built for {self.config.n_ctx}"
        seed = torch.arange(S).view(S, 1, 1)
        x = self.token_embedding[seed, tokens]                           # (S, B, T, C)
        return x + self.position_embedding[:, None, :T]                  # (S, B, T, C)

    def split_heads(self, x):
        S, B, T, C = x.shape
        return x.view(S, B, T, self.n_heads, self.head_size).transpose(2, 3)  # (S, B, nh, T, hs)

    def attention(self, x, layer):
        """Causal multi-head self-attention of one layer for every seed: (S, B, T, C) -> same."""
        S, B, T, C = x.shape
        q = self.split_heads(per_seed_matmul(x, self.W_Q[:, layer]))               # (S, B, nh, T, hs)
        k = self.split_heads(per_seed_matmul(x, self.W_K[:, layer]))               # (S, B, nh, T, hs)
        v = self.split_heads(per_seed_matmul(x, self.W_V[:, layer]))               # (S, B, nh, T, hs)
        if torch.is_grad_enabled() or not self.keep_weights:
            # Training (or weights not wanted): PyTorch's fused kernel, the same computation
            # without materialising the weights.
            assert self.removed_keys is None, "keys are removed in evaluation only (token_knockout.py)"
            heads = F.scaled_dot_product_attention(
                q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1),
                is_causal=self.config.causal).view(S, B, self.n_heads, T, self.head_size)
        else:
            # Evaluation: written out, keeping the weights for the head metrics.
            scores = q @ k.transpose(-2, -1) / self.head_size ** 0.5     # (S, B, nh, T, T)
            if self.config.causal:
                future = torch.ones(T, T, dtype=torch.bool).triu(1)
                scores = scores.masked_fill(future, float("-inf"))
            if self.removed_keys is not None:                            # token_knockout.py, every head
                scores = scores.masked_fill(self.removed_keys[:, :, None], float("-inf"))
            weights = scores.softmax(dim=-1)                             # (S, B, nh, T, T)
            self.last_weights.append(weights.detach())
            heads = weights @ v                                          # (S, B, nh, T, hs)
        heads = heads * self.head_mask[:, layer].view(S, -1, self.n_heads, 1, 1)  # ablated heads give 0
        if self.keep_head_outputs:
            if heads.requires_grad:
                heads.retain_grad()
            self.last_head_outputs.append(heads)
        concat = heads.transpose(2, 3).reshape(S, B, T, C)               # (S, B, T, C)
        return per_seed_matmul(concat, self.W_O[:, layer])                       # (S, B, T, C)

    def forward(self, tokens):
        """tokens (S, B, T) or (B, T) -> logits (S, B, T, V)."""
        x = self.embed(tokens)                                           # (S, B, T, C)
        if self.input_noise is not None:
            std = torch.as_tensor(self.input_noise, dtype=x.dtype).reshape(-1, 1, 1, 1)  # (S or 1, 1, 1, 1)
            x = x + std * torch.randn(x.shape, generator=self.noise_generator)
        self.last_weights, self.last_head_outputs = [], []
        for layer in range(self.config.n_layers):
            x = x + self.attention(x, layer)                             # (S, B, T, C)
            if self.config.d_mlp:
                hidden = torch.relu(per_seed_matmul(x, self.W_in[:, layer]) + self.b_in[:, None, None, layer])
                x = x + per_seed_matmul(hidden, self.W_out[:, layer]) + self.b_out[:, None, None, layer]
        return per_seed_matmul(x, self.W_unembed) + self.b_unembed[:, None, None]  # (S, B, T, V)

    def attention_weights(self) -> list[torch.Tensor]:
        """Each layer's attention weights from the last forward pass, (S, B, nh, T, T)."""
        if not self.last_weights:
            raise RuntimeError("no attention weights kept: run a forward pass without gradients "
                               "first (e.g. evaluate_batched); training uses the fused kernel")
        return self.last_weights

    def set_head_mask(self, mask) -> None:
        """``mask`` (S, L, nh), or (L, nh) for every seed: 1 keeps a head, 0 ablates it."""
        mask = torch.as_tensor(mask, dtype=torch.float32)
        self.head_mask.copy_(mask.expand_as(self.head_mask))

    def head_contributions(self, layer: int) -> torch.Tensor:
        """What each head of ``layer`` wrote into the residual stream in the last forward pass,
        (S, B, nh, T, C); needs ``keep_head_outputs``."""
        heads = self.last_head_outputs[layer]                            # (S, B, nh, T, hs)
        W_O = self.W_O[:, layer].view(self.n_seeds, self.n_heads, self.head_size, -1)  # (S, nh, hs, C)
        return torch.einsum("sbhtd,shdc->sbhtc", heads, W_O)               # (S, B, nh, T, C)


PARAMETERS = ("token_embedding", "position_embedding", "W_Q", "W_K", "W_V", "W_O",
              "unembed", "unembed_bias")   # StackedTransformer's


class StackedTransformer(nn.Module):
    """M one-layer attention-only transformers with a leading model dimension."""

    classes_last = False   # how losses_on lays out this model's logits (see there)

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


def per_model(metric, weights: torch.Tensor, *args) -> torch.Tensor:
    """Apply a head metric of explainer/head_metrics.py to stacked weights (M, B, nh, T, S): (M, nh)."""
    M, B, nh = weights.shape[:3]
    as_heads = weights.transpose(0, 1).reshape(B, M * nh, *weights.shape[3:])  # (B, M*nh, T, S)
    return metric(as_heads, *args).view(M, nh)


def losses_on(logits: torch.Tensor, targets: torch.Tensor, classes_last: bool = True) -> torch.Tensor:
    """Mean cross-entropy of each model over the positions that have a target: (M,).

    logits (M, B, T, V); targets (M, B, T), or (B, T) shared by all models.
    ``classes_last`` picks the layout handed to cross_entropy: rows of V logits
    (M*B*T, V), or the vocabulary as dimension 1, (M, V, B*T). Both compute the same
    loss up to float rounding; each model class names the layout its runs were made
    with (``model.classes_last``), so they reproduce bit for bit."""
    M = logits.shape[0]
    if targets.dim() == 2:
        targets = targets.expand(M, *targets.shape)                         # (M, B, T)
    if classes_last:
        per_position = F.cross_entropy(logits.flatten(0, 2), targets.flatten(), ignore_index=IGNORE,
                                       reduction="none").view(targets.shape)         # (M, B, T)
    else:
        per_position = F.cross_entropy(logits.flatten(1, 2).transpose(1, 2), targets.flatten(1, 2),
                                       ignore_index=IGNORE, reduction="none").view(targets.shape)
    scored = (targets != IGNORE).float()                                    # (M, B, T)
    return (per_position * scored).sum(dim=(1, 2)) / scored.sum(dim=(1, 2))  # (M,)


@torch.no_grad()
def evaluate_batched(model, tokens, targets, head_mask=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, accuracy) of every model on one batch, in eval mode: two (M,) tensors.

    tokens and targets (B, T) shared by all models, or (M, B, T). ``head_mask`` (M, B, nh)
    switches heads off (StackedTransformer; a SeededTransformer uses ``set_head_mask``)."""
    was_training = model.training
    model.eval()
    logits = model(tokens) if head_mask is None else model(tokens, head_mask=head_mask)  # (M, B, T, V)
    model.train(was_training)
    if targets.dim() == 2:
        targets = targets.expand(model.n_models, *targets.shape)            # (M, B, T)
    scored = targets != IGNORE                                              # (M, B, T)
    correct = (logits.argmax(-1) == targets) & scored                       # (M, B, T)
    accuracy = correct.sum(dim=(1, 2)) / scored.sum(dim=(1, 2))             # (M,)
    return losses_on(logits, targets, model.classes_last), accuracy


def train_batched(model, task: Task, *, steps: int = 300, batch_size: int = 32, lr: float = 1e-2,
                  warmup: int = 20, cosine_decay: bool = False, weight_decay: float = 0.0,
                  data_seed: int = 0, data_seeds: Sequence[int] | None = None,
                  head_dropout: torch.Tensor | None = None, attention_dropout: torch.Tensor | None = None,
                  dropout_seed: int = 0,
                  extra_loss: Callable[[nn.Module], torch.Tensor] | None = None,
                  on_step: Callable[[int, nn.Module], None] | None = None) -> torch.Tensor:
    """AdamW on all M models at once; returns every model's training loss at every step, (steps, M).

    Data: by default one stream seeded ``data_seed``; each step draws M x batch_size
    examples from it and gives every model its own batch_size of them. With
    ``data_seeds`` (one per model) model m draws from a stream seeded ``data_seeds[m]``;
    models with the same data seed see the same batches (``[0] * M``: all the same).
    Learning rate: linear warm-up over ``warmup`` steps, then constant, or with
    ``cosine_decay`` falling to 0 along a half cosine.
    StackedTransformer only: ``head_dropout`` (M,) switches each head of each sequence off
    with that probability (and scales the others up); ``attention_dropout`` (M,) drops
    attention weights. Their masks come from torch's global generator, seeded
    ``dropout_seed`` when either is given.
    ``extra_loss(model)`` returns an (M,) penalty added to each model's loss.
    ``on_step(step, model)`` runs before step 1 (step 0) and after every step.
    """
    M, B = model.n_models, batch_size
    if data_seeds is None:
        stream = torch.Generator().manual_seed(data_seed)
    else:
        streams = {s: torch.Generator().manual_seed(s) for s in dict.fromkeys(data_seeds)}
    if head_dropout is not None or attention_dropout is not None:
        torch.manual_seed(dropout_seed)                                     # dropout masks
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, foreach=True)

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
        if data_seeds is None:
            tokens, targets = task(stream, M * B)                           # (M*B, T)
            tokens, targets = tokens.view(M, B, -1), targets.view(M, B, -1)  # (M, B, T)
        else:
            batches = {s: task(g, B) for s, g in streams.items()}
            tokens = torch.stack([batches[s][0] for s in data_seeds])      # (M, B, T)
            targets = torch.stack([batches[s][1] for s in data_seeds])     # (M, B, T)
        dropout = {}
        if head_dropout is not None:
            keep = 1 - head_dropout.view(M, 1, 1)
            dropout["head_mask"] = (torch.rand(M, B, model.n_heads) < keep) / keep  # (M, B, nh)
        if attention_dropout is not None:
            dropout["attention_dropout"] = attention_dropout                # (M,)
        losses = losses_on(model(tokens, **dropout), targets, model.classes_last)  # (M,)
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
