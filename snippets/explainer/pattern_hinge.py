"""The plant of C11's power check, version 2 (many_heads.duplicate_heads.head_dropout;
docs/proposed_rules/2026-12-03-planted-arms-v2-C11-C17-C25.md, section 3, with its review's fixes).

A head-dropout model trained with one more loss: a hinge on how alike its heads' attention
patterns are at the positions that carry a target (the two adverbs and *it* of each sentence of
the pronoun language). ``PatternHinge`` keeps the tokens of its last pass; ``hinge`` recomputes
that pass's attention weights with their graph (the same computation as the forward pass, without
values) and returns λ · relu(S − margin · target) per model, where S (``scored_similarity``) is
the mean off-diagonal pattern similarity of the heads over those query rows.
"""

import torch

from explainer.batched import StackedTransformer
from explainer.pronoun_language import ADVERBS, ID

SCORED = torch.tensor([ID[w] for w in ADVERBS] + [ID["it"]])   # the tokens whose position carries a target
N_SCORED = 3                                                  # two adverbs and one "it" per sentence


class PatternHinge(StackedTransformer):
    """A StackedTransformer that keeps the tokens of its last forward pass, (M, B, T)."""

    def forward(self, tokens, head_mask=None, attention_dropout=None):
        self.last_tokens = tokens if tokens.dim() == 3 else tokens.expand(self.n_models, *tokens.shape)
        return super().forward(tokens, head_mask, attention_dropout)


def attention_weights(model: StackedTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """The attention weights of the forward pass on tokens (M, B, T), with their graph:
    (M, B, nh, T, T). Embeddings, W_Q and W_K as StackedTransformer.forward uses them."""
    M, T = model.n_models, tokens.shape[-1]
    models = torch.arange(M).view(M, 1, 1)
    x = model.token_embedding[models, tokens] + model.position_embedding[:, None, :T]   # (M, B, T, C)
    q = torch.einsum("mbtc,mhdc->mbhtd", x, model._projection("W_Q"))                  # (M, B, nh, T, hs)
    k = torch.einsum("mbtc,mhdc->mbhtd", x, model._projection("W_K"))
    scores = q @ k.transpose(-2, -1) / model.head_size ** 0.5                          # (M, B, nh, T, T)
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    return scores.masked_fill(future, float("-inf")).softmax(dim=-1)


def scored_positions(tokens: torch.Tensor) -> torch.Tensor:
    """The three positions of each sentence whose token is an adverb or it: (..., 3), in order."""
    scored = torch.isin(tokens, SCORED)                                                 # (..., T)
    assert (scored.sum(-1) == N_SCORED).all(), "every sentence has two adverbs and one it"
    return torch.argsort((~scored).int(), dim=-1, stable=True)[..., :N_SCORED]


def scored_similarity(weights: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """S: pattern_similarity (explainer.head_metrics) over the query rows at the scored positions
    only, the mean of its off-diagonal entries, per model. weights (M, B, nh, T, T), tokens
    (M, B, T): (M,)."""
    M, B, nh, T, _ = weights.shape
    where = scored_positions(tokens)[:, :, None, :, None].expand(M, B, nh, N_SCORED, T)
    rows = torch.nn.functional.normalize(weights.gather(3, where), dim=-1)              # (M, B, nh, 3, T)
    similarity = torch.einsum("mbhts,mbgts->mhg", rows, rows) / (B * N_SCORED)          # (M, nh, nh)
    return similarity[:, ~torch.eye(nh, dtype=torch.bool)].mean(-1)


def hinge(model: PatternHinge, targets: torch.Tensor, lam: float, margin: float = 0.9) -> torch.Tensor:
    """The extra loss of one training step: λ · relu(S(this step's batch) − margin · target), (M,).
    targets (M,): each draw's T_i, the no-dropout model's S on the sentences seeded 777."""
    tokens = model.last_tokens
    return lam * torch.relu(scored_similarity(attention_weights(model, tokens), tokens) - margin * targets)


@torch.no_grad()
def similarity_on(model: StackedTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """S of every model on the same sentences tokens (B, T): (M,)."""
    tokens = tokens.expand(model.n_models, *tokens.shape)
    return scored_similarity(attention_weights(model, tokens), tokens)
