"""Named head behaviours, measured on attention weights (after TransformerLens'
``head_detector``): a head's role is a number, not an impression of a heatmap.

Every function takes the weights of one layer, shape (B, nh, T, S) with rows
that sum to 1 (query t attends over keys s), and returns one score per head,
shape (nh,), averaged over the batch and the queries it applies to.
"""

import torch


def previous_token_score(weights: torch.Tensor) -> torch.Tensor:
    """Mean weight that a query at position t puts on position t-1 (t >= 1)."""
    T = weights.shape[-2]
    t = torch.arange(1, T)
    return weights[:, :, t, t - 1].mean(dim=(0, 2))                   # (nh,)


def first_token_score(weights: torch.Tensor) -> torch.Tensor:
    """Mean weight that a query at position t >= 1 puts on position 0."""
    return weights[:, :, 1:, 0].mean(dim=(0, 2))                      # (nh,)


def induction_score(weights: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Mean weight on the token that *followed* an earlier copy of the current token.

    For a query at t, the induction targets are the keys s <= t with
    tokens[s-1] == tokens[t] ("... A B ... A -> look at B"). Queries without
    any earlier copy of their token are left out.
    """
    B, T = tokens.shape
    previous = torch.cat([torch.full((B, 1), -1), tokens[:, :-1]], dim=1)  # (B, S): token before s
    targets = previous[:, None, :] == tokens[:, :, None]                   # (B, T, S)
    targets &= torch.ones(T, T, dtype=torch.bool).tril()                   # only s <= t
    has_target = targets.any(dim=-1)                                       # (B, T)
    mass = (weights * targets[:, None]).sum(dim=-1)                        # (B, nh, T)
    return (mass * has_target[:, None]).sum(dim=(0, 2)) / has_target.sum()  # (nh,)


def attention_to(weights: torch.Tensor, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
    """Mean weight from position ``query[b]`` to position ``key[b]``, one pair per sequence.

    With ``query`` = the pronoun and ``key`` = its antecedent this is the
    *antecedent score*.
    """
    b = torch.arange(weights.shape[0])
    return weights[b, :, query, key].mean(dim=0)                      # (nh,)


def entropy(weights: torch.Tensor) -> torch.Tensor:
    """Mean entropy of a head's attention rows, in nats (0 = all on one key)."""
    plogp = weights * weights.clamp_min(1e-12).log()                  # (B, nh, T, S)
    return -plogp.sum(dim=-1).mean(dim=(0, 2))                        # (nh,)


def pattern_similarity(weights: torch.Tensor) -> torch.Tensor:
    """(nh, nh): mean cosine similarity between two heads' attention rows.

    1 = the two heads look at the same keys with the same weights.
    """
    rows = torch.nn.functional.normalize(weights, dim=-1)             # (B, nh, T, S)
    return torch.einsum("bhts,bgts->hg", rows, rows) / (rows.shape[0] * rows.shape[2])
