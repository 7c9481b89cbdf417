"""C18's size and margin for "several heads, several views" (part (a)), and its G1 check.

The size s_r of a role is the best share of sentences that a role-blind position rule gets on
the same sentences: the largest over every fixed offset from the verb and the nearest content
word. A head reaches a role when the upper end of its top-pick share's interval, with the
sentences resampled by cluster, reaches s_r: the 97.5th percentile, over the draws, of its share
minus s_r, both computed on the drawn sentences, is at least 0."""

from __future__ import annotations

import numpy as np


def position_rules(targets, verbs, nearest) -> np.ndarray:
    """(N, R) bool: whether each role-blind rule finds the role in each sentence; the rules are
    every fixed offset from the verb that occurs, then the nearest content word.
    targets, verbs (N,): positions; nearest (N,): the nearest content word is the role's.
    Every offset's column, not head_picks.best_fixed_offset's one mask: the best offset is
    chosen again on each draw of the sentences (``margin_upper_ends``), not once on all."""
    offsets = np.asarray(targets) - np.asarray(verbs)
    return np.column_stack([offsets[:, None] == np.unique(offsets)[None, :],
                            np.asarray(nearest, dtype=bool)])


def item_counts(draws, n_items: int) -> np.ndarray:
    """(draws, n_items) float: how often each item is in each draw ((draws, N') item indices)."""
    return np.stack([np.bincount(d, minlength=n_items) for d in np.atleast_2d(draws)]).astype(float)


def margin_upper_ends(hits: np.ndarray, rules: np.ndarray, counts: np.ndarray,
                      level: float = 0.95) -> np.ndarray:
    """(heads,): per head, the upper end of the interval at ``level`` of its share of hits minus
    the best rule's share, both on each draw's items. hits (N, heads), rules (N, R) bool;
    counts (draws, N) from ``item_counts``."""
    n = counts.sum(axis=1, keepdims=True)
    head = counts @ hits.astype(float) / n                            # (draws, heads)
    bar = (counts @ rules.astype(float)).max(axis=1, keepdims=True) / n
    return np.percentile(head - bar, 100 * (1 + level) / 2, axis=0)


def reaching_views(upper: dict[str, np.ndarray]) -> dict[str, list[int]]:
    """The source's three role groups (agent; object or tool; manner), each with the heads
    whose upper end reaches a role of the group (>= 0), best first (ties in head order)."""
    either = np.maximum(upper["object"], upper["tool"])
    order = {"agent": upper["agent"], "object_or_tool": either, "manner": upper["manner"]}
    return {group: [int(h) for h in np.argsort(-values, kind="stable") if values[h] >= 0]
            for group, values in order.items()}


def cluster_rates(own_rates, share: float) -> np.ndarray:
    """Per-cluster hit rates with mean ``share`` and the spread of ``own_rates`` between
    clusters: ``own_rates`` shifted by one constant, clipped to [0, 1], the constant found by
    bisection so that the clipped rates' mean is ``share``."""
    own = np.asarray(own_rates, dtype=float)
    low, high = -1.0 - own.max(), 1.0 - own.min() + 1.0
    for _ in range(100):
        middle = (low + high) / 2
        if np.clip(own + middle, 0, 1).mean() < share:
            low = middle
        else:
            high = middle
    return np.clip(own + (low + high) / 2, 0, 1)


def sentence_probabilities(rates, clusters, free) -> np.ndarray | None:
    """(N,) the probability with which each sentence is planted so that each cluster's expected
    share of hits is its rate, planting only in the ``free`` sentences (where the head's own top
    pick is not a sink); None when some cluster's free sentences cannot carry its rate."""
    clusters, free = np.asarray(clusters), np.asarray(free, dtype=bool)
    p = np.zeros(len(clusters))
    for c, rate in enumerate(rates):
        members = clusters == c
        if rate <= 0:
            continue
        if free[members].sum() == 0 or rate * members.sum() > free[members].sum():
            return None
        p[members & free] = rate * members.sum() / free[members].sum()
    return p


def planted_detection(top: np.ndarray, rows, allowed, targets: dict, hits: dict, rules: dict, bars: dict,
                      clusters, sinks: np.ndarray, counts: np.ndarray, upper: dict, passing: set,
                      draws: int, rng: np.random.Generator, distinct) -> tuple[float, int, dict]:
    """G1 for C18 (a)'s refutation. In each draw, two of the three role groups are drawn (for
    "object or tool", one of the two at random) and, for each, a head at random among those
    that neither pass (``passing``) nor reach a role in the real run (so a plant adds a view and
    overwrites none) and can carry the plant. Its top picks from the verb are planted sentence
    by sentence: each cluster's hit rate is ``cluster_rates`` of the role's best real head's
    per-cluster rates (its ``hits``) at mean ``bars[role]``, planted only where the head's own top
    pick is not a sink (``sinks`` (N, heads)), which it keeps; where its own top pick is the role
    word and no plant falls, the pick moves to its second choice (``planted_top_picks``). Its
    upper ends are computed again for every role on ``counts``, and the draw is detected when at
    least two groups get different reaching heads (``distinct``: logit_features.distinct_heads),
    i.e. (a) is not clearly absent. top (N, heads): own top picks; rows (N, heads, S): attention
    rows from the verb; allowed: per sentence, its positions; clusters (N,): 0 .. C-1.
    Returns the detection share, the draws in which no head could be planted (counted as not
    detected), and per role how many heads could carry a plant."""
    from explainer.planted_heads import planted_top_picks

    clusters = np.asarray(clusters)
    excluded = set(passing) | {h for heads in reaching_views(upper).values() for h in heads}
    rates = {role: cluster_rates([hits[role][clusters == c, int(hits[role].sum(axis=0).argmax())].mean()
                                  for c in range(clusters.max() + 1)], bars[role]) for role in hits}
    carry = {role: {h: p for h in range(top.shape[1]) if h not in excluded
                    for p in [sentence_probabilities(rates[role], clusters, ~sinks[:, h])] if p is not None}
             for role in hits}
    groups = (("agent",), ("object", "tool"), ("manner",))
    detected, unplantable = [], 0
    for _ in range(draws):
        planted_upper = {role: values.copy() for role, values in upper.items()}
        used = []
        for g in rng.choice(len(groups), size=2, replace=False):
            role = str(rng.choice(groups[g]))
            able = sorted(set(carry[role]) - set(used))
            if not able:
                break
            head = int(rng.choice(able))
            used.append(head)
            chosen = rng.random(len(top)) < carry[role][head]
            column = planted_top_picks(rows[:, head, :], allowed, chosen, targets[role])
            for other in upper:
                planted_upper[other][head] = margin_upper_ends((column == targets[other])[:, None],
                                                               rules[other], counts)[0]
        if len(used) < 2:
            unplantable += 1
            detected.append(False)
            continue
        detected.append(distinct(reaching_views(planted_upper))[0] >= 2)
    return float(np.mean(detected)), unplantable, {role: len(heads) for role, heads in carry.items()}


def padded_rows(rows) -> "torch.Tensor":
    """(N, heads, S): each item's attention rows (heads, T_n), padded with zeros to the longest."""
    import torch

    out = torch.zeros(len(rows), rows[0].shape[0], max(r.shape[-1] for r in rows))
    for n, r in enumerate(rows):
        out[n, :, :r.shape[-1]] = r
    return out


# ------------------------------------------------------------ C18's outcome sentences (en, zh)

def views_outcome(n_views: int, found: dict) -> dict[str, str]:
    """The sentence on (a): ``found`` maps each role group given a head (its English and Chinese
    names) to the head's name, its top-pick share and its share of sinks, as text."""
    en = (f"{n_views} of the three roles get a head of their own ("
          + "; ".join(f"{r}: head {h}, its top pick in {a} of the sentences, [CLS] or [SEP] in {k}"
                      for (r, _), (h, a, k) in found.items()) + ")" if n_views else
          "No role is the top pick of any head beyond chance and at least as often as the best position rule")
    zh = (f"三种角色中有 {n_views} 种各有自己的头（"
          + "；".join(f"{z}：头 {h}，首选该角色词的比例为 {a}，首选 [CLS] 或 [SEP] 的比例为 {k}"
                     for (_, z), (h, a, k) in found.items()) + "）" if n_views else
          "没有哪种角色能超出偶然、且不低于最好的位置规则地成为某个头的首选")
    if n_views >= 2:
        return {"en": en + ": several heads are several views, in this sense.",
                "zh": zh + "：在这个意义上，多个头确实是多个视角。"}
    return {"en": en + ": fewer than two roles have a head of their own.", "zh": zh + "：各有自己的头的角色不到两种。"}


def c18_outcome(a_shown: bool, a_absent: bool, b_count: int, spread_count: int, heads: int) -> str:
    """Which case of C18's rule the run met, from (a) and the counts of (b), for the page to word:
    ``verified`` ((a) holds and (b) in at least 3/4 of the heads), ``refuted`` ((a) clearly absent
    and the matches spread as widely as the keys in at least half), else ``undecided_`` plus what (a)
    did (``holds``, ``absent``, ``open``)."""
    if a_shown and b_count >= 0.75 * heads:
        return "verified"
    if a_absent and spread_count >= 0.5 * heads:
        return "refuted"
    return "undecided_" + ("holds" if a_shown else "absent" if a_absent else "open")
