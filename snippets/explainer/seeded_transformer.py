"""The tiny transformer of ``tiny_transformer.py``, trained for many random seeds at once.

Every parameter has a leading *seed* dimension S: ``W_Q`` is (S, n_layers, C, C),
so S independent models share one forward pass and one optimizer step. Seed s
is initialised from ``torch.Generator().manual_seed(seeds[s])`` exactly as the
one-seed model initialises its layers (nn.Embedding: N(0, 1); nn.Linear:
U(-1/sqrt(fan_in), 1/sqrt(fan_in))), and the seeds never mix: the loss is a
sum of per-seed losses, so each seed's gradient is its own model's gradient.

Same architecture as ``TinyTransformer``: token and learned position
embeddings, residual blocks of attention (plus an MLP if ``d_mlp > 0``), no
layer norm, a linear unembedding; attention has no biases (AttentionConfig's
default). Shapes: S = seeds, B = batch, T = positions, C = d_model,
nh = heads, hs = head size, V = vocabulary, L = layers.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from explainer.tiny_transformer import TransformerConfig


def per_seed_matmul(x, W):
    """x (S, B, T, n) times each seed's own W (S, n, m) -> (S, B, T, m), as one bmm."""
    S, B, T, n = x.shape
    return (x.reshape(S, B * T, n) @ W).view(S, B, T, W.shape[-1])


def _uniform(generator, shape, fan_in):
    bound = fan_in ** -0.5
    return (torch.rand(shape, generator=generator) * 2 - 1) * bound


class SeededTransformer(nn.Module):
    """S tiny transformers with stacked parameters, one per random seed."""

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
        # 1 = head on, 0 = head ablated (zeroed before W_O), per seed: (S, L, nh).
        self.register_buffer("head_mask", torch.ones(len(self.seeds), L, config.n_heads))
        self.keep_weights = True   # keep each layer's weights in passes without gradient
        self.last_weights: list[torch.Tensor] = []       # per layer (S, B, nh, T, T)
        self.keep_head_outputs = False                   # keep (S, B, nh, T, hs) with its graph
        self.last_head_outputs: list[torch.Tensor] = []
        # Std of Gaussian noise added to the input embeddings (robustness probes): None,
        # a number, or one number per seed (S,). Reseed ``noise_generator`` for paired runs.
        self.input_noise = None
        self.noise_generator = torch.Generator().manual_seed(0)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

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
            heads = F.scaled_dot_product_attention(
                q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1),
                is_causal=self.config.causal).view(S, B, self.n_heads, T, self.head_size)
        else:
            # Evaluation: written out, keeping the weights for the head metrics.
            scores = q @ k.transpose(-2, -1) / self.head_size ** 0.5     # (S, B, nh, T, T)
            if self.config.causal:
                future = torch.ones(T, T, dtype=torch.bool).triu(1)
                scores = scores.masked_fill(future, float("-inf"))
            weights = scores.softmax(dim=-1)                             # (S, B, nh, T, T)
            self.last_weights.append(weights.detach())
            heads = weights @ v                                          # (S, B, nh, T, hs)
        heads = heads * self.head_mask[:, layer].view(S, 1, -1, 1, 1)    # ablated heads give 0
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
                               "first (e.g. evaluate_seeds); training uses the fused kernel")
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
