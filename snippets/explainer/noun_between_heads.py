"""C22's test on one sentence set (real_model/head_roles/noun_between.py runs it on each set):
which head-directions link a verb to its direct object past another noun, and could the
test have seen such a head (G1, a planted one).

144 head-directions: flat 0 .. 71 read from the verb (verb -> object), 72 .. 143 from the
object (object -> verb), as ``head_picks.head_direction`` names them. Positions are token
positions (every marked word is one token).
"""

from __future__ import annotations

import numpy as np

from explainer.head_picks import best_fixed_offset, nearest, query_rows, top_among, weight_on, words_of
from explainer.max_statistic import sign_flip_max_statistic, top_pick_max_statistic, wilson_interval
from explainer.planted_heads import plant_rows, planted_items


def _between(between: list[list[int]], j: int) -> list[int]:
    """The j-th intervening noun of each sentence (its last one if it has fewer)."""
    return [b[min(j, len(b) - 1)] for b in between]


def preferences(attention, verbs, objects, between) -> np.ndarray:
    """(N, 2 * heads) sign per sentence: does the head prefer the object to the intervening
    nouns? verb -> object: the object gets more of the verb's attention than each of (up to)
    two intervening nouns; object -> verb: the verb gets more from the object than from them."""
    to_object = weight_on(attention, verbs, objects)                                  # (N, heads)
    to_between = np.max([weight_on(attention, verbs, _between(between, j)) for j in (0, 1)], axis=0)
    from_object = weight_on(attention, objects, verbs)
    from_between = np.max([weight_on(attention, _between(between, j), verbs) for j in (0, 1)], axis=0)
    return np.concatenate([np.sign(to_object - to_between), np.sign(from_object - from_between)], axis=1)


def c22_test(attention, tokens, verbs, objects, between, *, n_draws=2000, significance=0.05, lead=0.75) -> dict:
    """Every number C22's rule reads on one set, per head-direction (arrays of 2 * heads).

    A head *picks* a word when it is its most attended word of the sentence (the query,
    [CLS], [SEP] and punctuation left out). It passes when it picks its target (verb ->
    object: the object; object -> verb: the verb) in >= ``lead`` of the sentences, prefers
    the object to the intervening noun in >= ``lead`` beyond 1/2 (sign flips, max over the
    144, p < ``significance``), and (object -> verb) the intervening noun picks the verb in <= 25 %.
    *clear*: each share's 95 % Wilson interval past its threshold; *possible*: it reaches it.
    """
    tops = top_picks(attention, tokens, verbs, objects, between)
    pick_p = {name: top_pick_max_statistic(top, targets, allowed, n_draws=n_draws)[1]
              for name, (top, targets, allowed) in tops.items()}
    hit = {name: top == targets[:, None] for name, (top, targets, _) in tops.items()}
    out = c22_decision(hit, preferences(attention, verbs, objects, between), np.arange(len(tokens)),
                       n_draws=n_draws, significance=significance, lead=lead)
    pick = {name: hit[name].sum(axis=0) / len(tokens) for name in ("verb_object", "object_verb")}
    return out | dict(
        pick_heads={name: (pick[name] >= 0.5) & (pick_p[name] < significance) for name in pick},
        pick_max={name: pick[name].max() for name in pick})


def top_picks(attention, tokens, verbs, objects, between) -> dict:
    """Per query (verb -> object, object -> verb, the nearest intervening noun -> verb): each
    head's top pick (N, heads), the targets (N,), and each sentence's allowed keys."""
    first = [b[0] for b in between]                                   # the noun nearest the verb
    out = {}
    for name, queries, targets in (("verb_object", verbs, objects), ("object_verb", objects, verbs),
                                   ("between_verb", first, verbs)):
        allowed = [words_of(t, q) for t, q in zip(tokens, queries)]
        out[name] = top_among(query_rows(attention, queries), allowed), np.array(targets), allowed
    return out


def c22_decision(hit, prefer, items, *, n_draws=2000, significance=0.05, lead=0.75, seed=0) -> dict:
    """C22's per-head-direction decision on the sentences ``items`` (indices, repeats allowed:
    a repeated sentence is flipped on its own). ``hit``: per query name (``top_picks``), (N,
    heads) whether the top pick is the target; ``prefer`` (N, 2 * heads) from ``preferences``."""
    items = np.asarray(items)
    n = len(items)
    pick = {name: h[items].sum(axis=0) / n for name, h in hit.items()}
    heads = len(pick["verb_object"])
    prefer = prefer[items]
    prefer_p = sign_flip_max_statistic(prefer, n_draws=n_draws, seed=seed)   # corrected over 2 * heads
    prefer_share = (prefer > 0).mean(axis=0)
    pick_both = np.concatenate([pick["verb_object"], pick["object_verb"]])
    between_verb = np.concatenate([np.zeros(heads), pick["between_verb"]])  # object -> verb only
    pick_low, pick_high = wilson_interval(pick_both * n, n)
    prefer_low, prefer_high = wilson_interval(prefer_share * n, n)
    between_low, between_high = wilson_interval(between_verb * n, n)
    significant = prefer_p < significance
    return dict(
        n=n, pick=pick_both, pick_low=pick_low, prefer=prefer, prefer_share=prefer_share,
        prefer_low=prefer_low, prefer_p=prefer_p, between_verb=between_verb,
        passes=(pick_both >= lead) & (prefer_share >= lead) & significant & (between_verb <= 0.25),
        clear=(pick_low >= lead) & (prefer_low >= lead) & significant & (between_high <= 0.25),
        possible=(pick_high >= lead) & (prefer_high >= lead) & significant & (between_low <= 0.25),
        beats_half=(prefer_share > 0.5) & significant,
        best=int(np.argmax(np.minimum(pick_both, prefer_share) - 1e-3 * (between_verb > 0.25))))


def planted_detection(attention, verbs, objects, between, prefer, head, *, share=0.75, draws=200,
                      seed=22, n_draws=2000, significance=0.05) -> float:
    """G1: the share of ``draws`` in which C22's refutation test sees a planted head. Head
    ``head``'s attention row at the verb is overridden to put all its weight on the object in
    ``share`` of the sentences, chosen at random (elsewhere its own attention); the preference
    of that head-direction is recomputed from the overridden rows, the other 143 kept
    (``prefer``, from ``preferences``), and the same sign-flip test runs over all 144. Detected
    when the planted head-direction prefers the object beyond 1/2 (corrected, p < ``significance``)."""
    rng = np.random.default_rng(seed)
    rows = query_rows(attention, list(verbs))                                    # (N, heads, S)
    index = np.arange(len(verbs))
    detected = 0
    for _ in range(draws):
        planted = plant_rows(rows, head, planted_items(len(verbs), share, rng), objects)[:, head].numpy()
        to_between = np.max([planted[index, _between(between, j)] for j in (0, 1)], axis=0)
        column = prefer.copy()
        column[:, head] = np.sign(planted[index, list(objects)] - to_between)
        p = sign_flip_max_statistic(column, n_draws=n_draws)
        detected += bool((column[:, head] > 0).mean() > 0.5 and p[head] < significance)
    return detected / draws


def position_rules(verbs, objects, nouns, verbs_in) -> dict[str, float]:
    """Share of sentences each position-only rule gets right: from the verb, the best fixed
    offset, the next, nearest, second-after-the-verb and last noun; from the object, the best
    fixed offset, the nearest verb to its left and the nearest verb. ``nouns``: each sentence's
    noun positions; ``verbs_in``: its verb positions (the verb first)."""
    trio = list(zip(verbs, nouns, objects))
    return {
        "verb_object_fixed_offset": best_fixed_offset(verbs, objects).mean(),
        "verb_object_next_noun": np.mean([nearest(v, n, "right") == o for v, n, o in trio]),
        "verb_object_nearest_noun": np.mean([nearest(v, n) == o for v, n, o in trio]),
        "verb_object_second_noun": np.mean([[i for i in n if i > v][1] == o for v, n, o in trio]),
        "verb_object_last_noun": np.mean([n[-1] == o for n, o in zip(nouns, objects)]),
        "object_verb_fixed_offset": best_fixed_offset(objects, verbs).mean(),
        "object_verb_nearest_verb_left": np.mean([nearest(o, vs, "left") == v for o, vs, v in zip(objects, verbs_in, verbs)]),
        "object_verb_nearest_verb": np.mean([nearest(o, vs) == v for o, vs, v in zip(objects, verbs_in, verbs)]),
    }
