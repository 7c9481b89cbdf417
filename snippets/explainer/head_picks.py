"""Which key each of a model's heads picks for one query, and the position-only rules a head
must beat (real_model/head_roles/: one claim per file, these pieces shared).

A head's *top pick* for a query is the key it attends to most among the allowed positions.
Heads are numbered flat, 0 .. layers * heads - 1 (layer-major), and named "layer-head"
1-based, as Clark et al. (2019) name them.
"""

from __future__ import annotations

import numpy as np
import torch

from explainer.head_role_sets import EXPLORER_EXAMPLES, EXPLORER_INDEX

MINILM_HEADS = 12          # heads per layer of all-MiniLM-L6-v2
MINILM_LAYERS = 6


def head_name(flat: int, n_heads: int = MINILM_HEADS) -> str:
    """1-based 'layer-head' for a flat head index."""
    return f"{flat // n_heads + 1}-{flat % n_heads + 1}"


def head_direction(flat_both: int, n_heads: int = MINILM_HEADS, n_layers: int = MINILM_LAYERS) -> str:
    """Name of a head tried in two directions: flat 0 .. L*H-1 verb → object, L*H .. 2*L*H-1
    object → verb."""
    every = n_layers * n_heads
    return ("verb → object " if flat_both < every else "object → verb ") + head_name(flat_both % every, n_heads)


def stacked_attention(outputs) -> list[torch.Tensor]:
    """One (L, nh, T, T) tensor per sentence."""
    return [torch.stack([a[0] for a in out.attentions]) for out in outputs]


def query_rows(attentions, queries: list[int]) -> torch.Tensor:
    """(N, L*nh, S_max): the attention row of one query per sentence, zero-padded."""
    S = max(a.shape[-1] for a in attentions)
    heads = attentions[0].shape[0] * attentions[0].shape[1]
    rows = torch.zeros(len(attentions), heads, S)
    for n, (a, q) in enumerate(zip(attentions, queries)):
        rows[n, :, :a.shape[-1]] = a[:, :, q, :].reshape(heads, -1)
    return rows


def mask_of(positions: list[list[int]], S: int) -> torch.Tensor:
    """(N, S) bool from lists of allowed positions."""
    mask = torch.zeros(len(positions), S, dtype=torch.bool)
    for n, allowed in enumerate(positions):
        mask[n, allowed] = True
    return mask


def top_among(rows: torch.Tensor, allowed: list[list[int]]) -> np.ndarray:
    """(N, heads): each head's most attended key among the allowed positions."""
    return rows.masked_fill(~mask_of(allowed, rows.shape[-1])[:, None, :], -1.0).argmax(dim=-1).numpy()


def weight_on(attentions, queries, keys) -> np.ndarray:
    """(N, L*nh): attention from query[n] to key[n] in every head."""
    return np.stack([a[:, :, q, k].reshape(-1).numpy() for a, q, k in zip(attentions, queries, keys)])


def words_of(tokens: list[str], skip: int) -> list[int]:
    """Positions of the sentence's words: no [CLS]/[SEP], punctuation, the s of 's, or the query."""
    return [i for i, w in enumerate(tokens)
            if w.isalpha() and i != skip and not (w == "s" and tokens[i - 1] == "'")]


# ------------------------------------------------------------------ position-only rules

def best_fixed_offset(queries, targets) -> np.ndarray:
    """(N,) bool: is the target d tokens from the query, for the one offset d that is right
    most often ("always pick the word d tokens away", Clark et al.'s baseline)? Its mean is
    the rule's share right (sense_heads.position_rules takes it so); of tied offsets the
    first in the set's order wins. Kept apart: word_picks.best_offset_rule (offsets in words
    or tokens, ties broken by size) and role_margins.position_rules (every offset's hits, the
    best chosen again on each resampling of the items)."""
    offsets = np.asarray(targets) - np.asarray(queries)
    best = max(set(offsets.tolist()), key=lambda d: np.mean(offsets == d))
    return offsets == best


def nearest(position: int, among: list[int], side: str = "both") -> int:
    """The nearest of ``among`` to ``position`` (left, right or either side; ties to the left)."""
    pool = [i for i in among if (side == "both" and i != position) or (side == "left" and i < position)
            or (side == "right" and i > position)]
    return min(pool, key=lambda i: (abs(i - position), i)) if pool else -1


# ------------------------------------------------------------------ links into the explorer

def explorer_links(example: str, passing: np.ndarray, best: int, token_of, names,
                   n_heads: int = MINILM_HEADS, n_layers: int = MINILM_LAYERS) -> dict:
    """Both languages: a markdown link that opens the attention explorer on each passing head
    (flat index, possibly over two directions) with ``token_of(flat)`` pinned, or on the best
    head when none passes; ``names(flat)`` gives the (en, zh) label."""
    def link(flat: int, token: str, en: str, zh: str) -> tuple[str, str]:
        s = EXPLORER_INDEX + list(EXPLORER_EXAMPLES).index(example)
        target = f"explorer.md?s={s}&l={flat // n_heads + 1}&h={flat % n_heads + 1}&t={token}"
        name = head_name(flat, n_heads)
        return f"[head {name}, {en}]({target})", f"[头 {name}，{zh}]({target})"

    chosen = [int(f) for f in np.flatnonzero(passing)]
    made = [link(f % (n_layers * n_heads), token_of(f), *names(f)) for f in (chosen or [best])]
    en, zh = ", ".join(m[0] for m in made), "、".join(m[1] for m in made)
    if not chosen:
        return dict(en=f"no head passes; the best is {en}", zh=f"没有头通过；最好的是{zh}")
    return dict(en=en, zh=zh)
