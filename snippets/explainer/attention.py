"""Multi-head attention, written once for the whole project.

The manual computation sits next to PyTorch's fused kernel so a reader can
see they are the same thing. Every tensor line carries its shape:
B = batch, T = query positions, S = key positions, C = d_model,
nh = number of heads, hs = head size (d_k = d_v).
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class AttentionConfig:
    d_model: int = 64      # width of the residual stream (C)
    n_heads: int = 4       # nh; each head works in d_model // n_heads dimensions
    causal: bool = False   # mask future positions (decoder / language model)
    dropout: float = 0.0   # attention dropout, on the weights
    bias: bool = False     # biases on W_Q, W_K, W_V, W_O (BERT has them)


class MultiHeadAttention(nn.Module):
    """Q, K, V projections, per-head scaled dot-product attention, concat, W_O."""

    def __init__(self, config: AttentionConfig):
        super().__init__()
        assert config.d_model % config.n_heads == 0, "d_model must split evenly into heads"
        self.config = config
        self.n_heads = config.n_heads
        self.head_size = config.d_model // config.n_heads
        self.W_Q = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_K = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_V = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_O = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)
        # 1 = head on, 0 = head ablated: its output is zeroed *before* W_O.
        self.register_buffer("head_mask", torch.ones(config.n_heads))
        self.last_weights = None  # (B, nh, T, S), kept for head metrics and figures
        # Opt-in: keep each head's output (B, nh, T, hs) *with* its graph, so a
        # gradient-based head importance (Michel et al. 2019) can read its .grad.
        self.keep_head_outputs = False
        self.last_head_outputs = None

    def split_heads(self, x):
        B, T, C = x.shape
        return x.view(B, T, self.n_heads, self.head_size).transpose(1, 2)  # (B, nh, T, hs)

    def forward(self, x, context=None, fused: bool = False):
        """Self-attention on ``x`` (B, T, C); cross-attention if ``context`` (B, S, C) is given."""
        context = x if context is None else context
        q = self.split_heads(self.W_Q(x))        # (B, nh, T, hs)
        k = self.split_heads(self.W_K(context))  # (B, nh, S, hs)
        v = self.split_heads(self.W_V(context))  # (B, nh, S, hs)
        T, S = q.shape[2], k.shape[2]
        if fused:
            heads = F.scaled_dot_product_attention(
                q, k, v, is_causal=self.config.causal,
                dropout_p=self.config.dropout if self.training else 0.0)  # (B, nh, T, hs)
            self.last_weights = None
        else:
            scores = q @ k.transpose(-2, -1) / self.head_size ** 0.5  # (B, nh, T, S)
            if self.config.causal:
                future = torch.ones(T, S, dtype=torch.bool, device=x.device).triu(1)
                scores = scores.masked_fill(future, float("-inf"))
            weights = scores.softmax(dim=-1)     # (B, nh, T, S), rows sum to 1
            self.last_weights = weights.detach()
            heads = self.dropout(weights) @ v    # (B, nh, T, hs)
        heads = heads * self.head_mask.view(1, -1, 1, 1)  # (B, nh, T, hs)
        if self.keep_head_outputs and heads.requires_grad:
            heads.retain_grad()
            self.last_head_outputs = heads
        B = x.shape[0]
        concat = heads.transpose(1, 2).reshape(B, T, self.config.d_model)  # (B, T, C)
        return self.W_O(concat)                  # (B, T, C)
