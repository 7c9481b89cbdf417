"""A tiny decoder-only transformer built on the project's MultiHeadAttention.

Token and learned position embeddings, a stack of residual blocks, a linear
unembedding. Each block is attention (plus an MLP if ``d_mlp > 0``); with
``d_mlp = 0`` the model is *attention-only*, the setting in which Elhage et
al. (2021) found previous-token and induction heads. There is no layer norm,
so every head's contribution to the residual stream stays a plain sum.
Shapes: B = batch, T = positions, C = d_model, V = vocabulary.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn

from explainer.attention import AttentionConfig, MultiHeadAttention


@dataclass
class TransformerConfig:
    vocab_size: int = 16   # V
    n_ctx: int = 16        # longest sequence (one learned embedding per position)
    d_model: int = 32      # C, width of the residual stream
    n_heads: int = 2       # per layer; head size is d_model // n_heads
    n_layers: int = 1
    d_mlp: int = 0         # hidden width of the MLP after attention; 0 = attention-only
    causal: bool = True    # each position sees itself and the past only
    dropout: float = 0.0   # attention dropout, on the weights


class Block(nn.Module):
    """x + attention(x), then x + mlp(x) if the block has an MLP."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.attention = MultiHeadAttention(AttentionConfig(
            d_model=config.d_model, n_heads=config.n_heads,
            causal=config.causal, dropout=config.dropout))
        self.mlp = None
        if config.d_mlp:
            self.mlp = nn.Sequential(nn.Linear(config.d_model, config.d_mlp), nn.ReLU(),
                                     nn.Linear(config.d_mlp, config.d_model))

    def forward(self, x):
        x = x + self.attention(x)        # (B, T, C)
        if self.mlp is not None:
            x = x + self.mlp(x)          # (B, T, C)
        return x


class TinyTransformer(nn.Module):
    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Embedding(config.n_ctx, config.d_model)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.unembed = nn.Linear(config.d_model, config.vocab_size)

    @property
    def attentions(self) -> list[MultiHeadAttention]:
        """The attention layer of each block, first layer first."""
        return [block.attention for block in self.blocks]

    def forward(self, tokens):
        B, T = tokens.shape
        assert T <= self.config.n_ctx, f"sequence of {T} tokens, model built for {self.config.n_ctx}"
        positions = torch.arange(T, device=tokens.device)
        x = self.token_embedding(tokens) + self.position_embedding(positions)  # (B, T, C)
        for block in self.blocks:
            x = block(x)                 # (B, T, C)
        return self.unembed(x)           # (B, T, V) logits

    def attention_weights(self) -> list[torch.Tensor]:
        """Each layer's attention weights from the last forward pass, (B, nh, T, T)."""
        weights = [attention.last_weights for attention in self.attentions]
        if any(w is None for w in weights):
            raise RuntimeError("no attention weights kept: run a forward pass first "
                               "(the fused path does not keep them)")
        return weights

    def set_head_mask(self, mask) -> None:
        """``mask[layer][head]`` = 1 keeps a head, 0 ablates it (zeroed before W_O)."""
        mask = torch.as_tensor(mask, dtype=torch.float32)  # (n_layers, nh)
        assert mask.shape == (self.config.n_layers, self.config.n_heads), mask.shape
        for attention, row in zip(self.attentions, mask):
            attention.head_mask.copy_(row)
