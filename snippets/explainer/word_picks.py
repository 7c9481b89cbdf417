"""C32 v2's picks over words and its position rules over verbs (docs/proposed_rules/
2026-12-03-C32-measurement-v2.md with its review's fixes), apart from head_picks.py so that
the other head-role snippets, which import that file, are untouched.

A word's attention is the sum over its WordPiece tokens (a continuation piece "##..." is added to
the word it continues, as Clark et al. 2019 do for attention to a split word); positions are
counted in words. [CLS] and [SEP] are words of their own, as is each punctuation mark. Every
rule is a function of word positions and of the sentence's verbs only, never of the model.
"""

from __future__ import annotations

import numpy as np
import torch

from explainer.head_picks import top_among

# A word's attention is the sum over its WordPiece tokens (a continuation piece "##..." is added
# to the word it continues, as Clark et al. 2019 do for attention to a split word); positions are
# counted in words. [CLS] and [SEP] are words of their own, as is each punctuation mark.

def word_index(tokens: list[str]) -> list[int]:
    """Per token, the index of the word it belongs to (a ``##`` piece joins the word before)."""
    out, word = [], -1
    for token in tokens:
        word += 0 if token.startswith("##") and word >= 0 else 1
        out.append(word)
    return out


def word_rows(rows: torch.Tensor, tokens: list[list[str]]) -> torch.Tensor:
    """(N, heads, W_max): each head's attention row (N, heads, S, zero-padded) summed over the
    pieces of each word of sentence n; words past a sentence's end are 0."""
    return torch.bmm(rows, word_matrix(tokens, rows.shape[-1]).to(rows.dtype))


def word_matrix(tokens: list[list[str]], S: int) -> torch.Tensor:
    """(N, S, W_max) 0/1: token s of sentence n belongs to word w."""
    W = max(max(word_index(t)) + 1 for t in tokens)
    to_word = torch.zeros(len(tokens), S, W)
    for n, t in enumerate(tokens):
        to_word[n, torch.arange(len(t)), torch.tensor(word_index(t))] = 1.0
    return to_word


def allowed_words(tokens: list[str], query_word: int, relaxed: bool = False) -> list[int]:
    """Word positions a top pick may choose: words whose first piece is alphabetic (no [CLS],
    [SEP], punctuation), not the s of 's, not the query word; ``relaxed`` also leaves out the
    words right before and after the query."""
    index, firsts = word_index(tokens), {}
    for i, (token, w) in enumerate(zip(tokens, index)):
        firsts.setdefault(w, i)
    out = []
    for w, i in firsts.items():
        token = tokens[i]
        if not token.isalpha() or w == query_word or (token == "s" and i and tokens[i - 1] == "'"):
            continue
        if relaxed and abs(w - query_word) == 1:
            continue
        out.append(w)
    return out


def best_offset_rule(query_words, target_words, query_tokens=None, target_tokens=None) -> np.ndarray:
    """(N,) bool: the best fixed offset, counted in words or in tokens (words only when no token
    positions are given), whichever candidate is right most often; ties: offsets by absolute
    size, the positive one first, words before tokens (C32 v2, review fix 5). Not
    head_picks.best_fixed_offset: that one counts tokens only and breaks ties in a set's order,
    so the mask (not its share) can differ on ties."""
    words = np.asarray(target_words) - np.asarray(query_words)
    tokens = words if query_tokens is None else np.asarray(target_tokens) - np.asarray(query_tokens)
    units = ((0, words),) if query_tokens is None else ((0, words), (1, tokens))
    candidates = [(abs(d), d < 0, unit, d) for unit, offsets in units for d in set(offsets.tolist())]
    best = max(sorted(candidates), key=lambda c: np.mean((words, tokens)[c[2]] == c[3]))
    return (words, tokens)[best[2]] == best[3]


VERB_ORDINALS = ("right 1", "right 2", "right 3", "last", "second-last", "third-last")


def verb_ordinal_picks(query: int, verbs: list[int]) -> list[int]:
    """The six candidates of the verb-ordinal rule for one sentence (verbs: word positions in
    sentence order): the 1st, 2nd, 3rd verb to the query's right, the last, second-last and
    third-last verb of the sentence (-1 where there is none)."""
    right = [v for v in verbs if v > query]
    return ([right[k] if len(right) > k else -1 for k in range(3)]
            + [verbs[-k] if len(verbs) >= k else -1 for k in (1, 2, 3)])


def best_verb_ordinal(queries, targets, verbs) -> np.ndarray:
    """(N,) bool: the one of the six verb ordinals right most often (ties in VERB_ORDINALS' order)."""
    picks = np.array([verb_ordinal_picks(q, v) for q, v in zip(queries, verbs)])   # (N, 6)
    right = picks == np.asarray(targets)[:, None]
    return right[:, int(np.argmax(right.mean(axis=0)))]     # argmax: the first of tied ones


def last_verb(targets, verbs) -> np.ndarray:
    """(N,) bool: is the target the sentence's last verb?"""
    return np.array([v[-1] == t for t, v in zip(targets, verbs)])


def adjacent_verb(targets, verbs) -> np.ndarray:
    """(N,) bool: is the target the first verb that directly follows another verb (wrong where
    no verb does)?"""
    def pick(v):
        after = [b for a, b in zip(v, v[1:]) if b == a + 1]
        return after[0] if after else -1
    return np.array([pick(v) == t for t, v in zip(targets, verbs)])


# ------------------------------------------------------------------ G1 in the weights

def plant_in_weights(rows: torch.Tensor, to_word: torch.Tensor, allowed: list[list[int]],
                     relaxed: list[list[int]], chosen, target_words, target_tokens) -> torch.Tensor:
    """C32 v2's plant, mixed into one head's token-level attention rows ``rows`` (N, S), each a
    distribution; ``to_word`` (N, S, W) sums pieces into words; ``allowed``/``relaxed``: the word
    positions of the standard and the relaxed top pick. In a chosen item, a' = (1 - w) a + w e_v
    (e_v all on the target's token), w = min(1, (m - a_v) / (1 - a_v + m) + 0.01) when the target
    word is not already the standard pick's top word (m the largest summed weight of another
    allowed word, a_v the target's), else w = 0.01. In another item where the target is the top
    word under either pick, the target's weight moves onto the first piece of the word the relaxed
    pick chooses once the target is left out. The head then picks the target in exactly the
    chosen items under both picks (asserted)."""
    chosen = np.asarray(chosen, dtype=bool)
    words = torch.bmm(rows[:, None, :], to_word)[:, 0, :]                        # (N, W)
    top = top_among(words[:, None, :], allowed)[:, 0]
    top_relaxed = top_among(words[:, None, :], relaxed)[:, 0]
    planted = rows.clone()
    for n in range(len(rows)):
        v, token = int(target_words[n]), int(target_tokens[n])
        if chosen[n]:
            a_v = float(words[n, v])
            m = max(float(words[n, w]) for w in allowed[n] if w != v)
            w = 0.01 if top[n] == v else min(1.0, (m - a_v) / (1 - a_v + m) + 0.01)
            planted[n] = (1 - w) * rows[n]
            planted[n, token] += w
        elif top[n] == v or top_relaxed[n] == v:
            others = [w for w in relaxed[n] if w != v]
            following = int(top_among(words[n][None, None, :], [others])[0, 0])
            first = int(torch.nonzero(to_word[n, :, following])[0, 0])
            planted[n, first] += planted[n, token]
            planted[n, token] = 0.0
    words = torch.bmm(planted[:, None, :], to_word)
    for pick in (allowed, relaxed):
        assert ((top_among(words, pick)[:, 0] == np.asarray(target_words)) == chosen).all(), \
            "a planted head must pick the target in the chosen items only, under both picks"
    return planted
