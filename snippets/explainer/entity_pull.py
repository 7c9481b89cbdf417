"""C09's power check (many_heads.why_heads_differ.head_symmetry): where two heads look at the
rows that need a view, and an extra loss that pulls one head of a model into the entity role.

``view_similarity`` is ``head_metrics.pattern_similarity`` read only at chosen query positions
(in the pronoun language: *it* and the two adverbs, the rows whose prediction needs a view), so
a pair that differs in one row per sentence is not diluted by the rows where any two heads
agree. ``attention_at`` recomputes a StackedTransformer's attention from one position to
another with gradient, and ``entity_pull`` turns it into ``train_batched``'s ``extra_loss``.
"""

import torch


def view_similarity(weights: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
    """(nh, nh): mean cosine similarity between two heads' attention rows at the given queries.

    ``weights`` (B, nh, T, S) as in explainer/head_metrics.py; ``queries`` (B, K): K query
    positions per sequence. The mean is over the B × K rows; 1 = the two heads look at the same
    keys with the same weights there. With every position as a query it is
    ``pattern_similarity``."""
    b = torch.arange(weights.shape[0])[:, None]                       # (B, 1)
    rows = torch.nn.functional.normalize(weights[b, :, queries], dim=-1)   # (B, K, nh, S)
    return torch.einsum("bkhs,bkgs->hg", rows, rows) / (rows.shape[0] * rows.shape[1])


def attention_at(model, tokens: torch.Tensor, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
    """(M, nh): each head's attention from position ``query[b]`` to ``key[b]`` of sequence b,
    mean over the sequences, for every model of a StackedTransformer (free heads, causal).

    Computed as the model's forward pass computes it, with gradient through each head's W_Q and
    W_K only: the embeddings that feed them are read as constants. tokens (B, T); query, key (B,)."""
    assert not (model.shared.any() or model.wide.any()), "free heads only"
    M, hs = model.n_models, model.head_size
    B, T = tokens.shape
    with torch.no_grad():
        x = model.token_embedding[:, tokens] + model.position_embedding[:, None, :T]   # (M, B, T, C)
    sequences = torch.arange(B)
    q = torch.einsum("mbc,mhdc->mbhd", x[:, sequences, query], model.head_slices("W_Q"))  # (M, B, nh, hs)
    k = torch.einsum("mbtc,mhdc->mbhtd", x, model.head_slices("W_K"))                    # (M, B, nh, T, hs)
    scores = torch.einsum("mbhd,mbhtd->mbht", q, k) / hs ** 0.5                         # (M, B, nh, T)
    future = torch.arange(T)[None, :] > query[:, None]                                  # (B, T)
    weights = scores.masked_fill(future[None, :, None, :], float("-inf")).softmax(dim=-1)  # (M, B, nh, T)
    at_key = weights.gather(-1, key.view(1, B, 1, 1).expand(*weights.shape[:3], 1))       # (M, B, nh, 1)
    return at_key.squeeze(-1).mean(dim=1)                                                # (M, nh)


def entity_pull(tokens: torch.Tensor, query: torch.Tensor, key: torch.Tensor, pulled: torch.Tensor,
                weight: torch.Tensor, target: float = 0.55):
    """``extra_loss`` for ``train_batched``: per model m, ``weight[m]`` · relu(``target`` − head
    ``pulled[m]``'s mean attention from ``query`` to ``key`` on ``tokens``), an (M,) tensor. It
    pulls that head until its mean reaches ``target`` and no further; the other heads get no
    pull (no gradient reaches their W_Q, W_K), and a model with weight 0 gets none at all."""
    def loss(model) -> torch.Tensor:
        attention = attention_at(model, tokens, query, key)                 # (M, nh)
        own = attention.gather(1, pulled.view(-1, 1)).squeeze(1)            # (M,)
        return weight * torch.relu(target - own)                             # (M,)
    return loss
