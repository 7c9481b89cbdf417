"""Named head behaviours, measured on attention weights (after TransformerLens'
``head_detector``): a head's role is a number, not an impression of a heatmap.

Every function takes the weights of one layer, shape (B, nh, T, S) with rows
that sum to 1 (query t attends over keys s), and returns one score per head,
shape (nh,), averaged over the batch and the queries it applies to.
"""

import numpy as np
import torch

from explainer.max_statistic import top_pick_max_statistic


def per_head(score_fn, weights: torch.Tensor) -> torch.Tensor:
    """One of these scores for every seed of a batched model: weights (S, B, nh, T, T) -> (S, nh)."""
    return torch.stack([score_fn(w) for w in weights])


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


def next_token_score(weights: torch.Tensor) -> torch.Tensor:
    """Mean weight that a query at position t puts on position t+1 (t < T-1)."""
    t = torch.arange(weights.shape[-2] - 1)
    return weights[:, :, t, t + 1].mean(dim=(0, 2))                   # (nh,)


def last_token_score(weights: torch.Tensor) -> torch.Tensor:
    """Mean weight on the last position (in BERT always [SEP]), queries t < T-1."""
    return weights[:, :, :-1, -1].mean(dim=(0, 2))                    # (nh,)


def top_key_hits(weights: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, int]:
    """How often a head's most attended key is the target key.

    ``target`` (B, T) holds, for each query, the key position it should pick, or -1
    to leave that query out. Returns hits per head (nh,) and the number of queries
    counted. (Previous token: target[t] = t-1; [CLS] sink: target[t] = 0.)
    """
    top = weights.argmax(dim=-1)                                      # (B, nh, T)
    counted = target >= 0                                             # (B, T)
    hits = (top == target[:, None, :]) & counted[:, None, :]          # (B, nh, T)
    return hits.sum(dim=(0, 2)), int(counted.sum())


def top_candidate_hits(rows: torch.Tensor, candidates: torch.Tensor,
                       target: torch.Tensor) -> torch.Tensor:
    """(N, nh) bool: among the allowed keys, is the most attended one the target?

    ``rows`` (N, nh, S): the attention row of one query per item (e.g. from the verb);
    ``candidates`` (N, S) bool: the keys that may be picked (e.g. every word but the
    verb); ``target`` (N,): the key that should win (e.g. the direct object).
    This is Clark et al.'s accuracy: the most attended word among the candidates.
    """
    masked = rows.masked_fill(~candidates[:, None, :], -1.0)           # (N, nh, S)
    return masked.argmax(dim=-1) == target[:, None]                   # (N, nh)


def prefers(rows: torch.Tensor, target: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    """(N, nh) bool: does the query give key ``target`` more weight than key ``other``?"""
    n = torch.arange(rows.shape[0])
    return rows[n, :, target] > rows[n, :, other]                     # (N, nh)


def takes_role(weights: torch.Tensor, item_rows: torch.Tensor, queries: torch.Tensor,
               targets: torch.Tensor, share_bar: float, alpha: float, draws: int = 1000):
    """Which heads take a role by the top-pick test: over the items, the head's top pick among
    the keys the query sees (causal: keys 0..t) is the target in at least ``share_bar`` of
    them, and beyond chance after correcting for every head tried (a max-statistic
    permutation, explainer/max_statistic.py: corrected p < ``alpha``).

    ``weights`` (B, nh, T, T) of one model; ``item_rows``, ``queries``, ``targets`` (N,): each
    item's batch row, query position and target key. Returns (nh,) bool and (nh,) top-pick
    shares, as numpy arrays.
    """
    top = weights[item_rows, :, queries, :].argmax(dim=-1).numpy()    # (items, nh)
    visible = [np.arange(int(q) + 1) for q in queries]                 # causal: keys 0..t
    hits, p = top_pick_max_statistic(top, targets.numpy(), visible, n_draws=draws)
    share = hits / len(queries)
    return (share >= share_bar) & (p < alpha), share
