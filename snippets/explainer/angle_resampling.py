"""C23 on another draw of its sentences (G2): the heads that pass C02, C21 and C22 chosen
again on the drawn sentences, and the centred angles of those whose target takes at least
0.3 of the attention (real_model/head_roles/angles.py).

Every head's angles are measured once per sentence (``head_angles.centred_angles_all``); a
draw only indexes them, so choosing the passing heads again costs no model run.
"""

from __future__ import annotations

import numpy as np
from explainer.sense_heads import ambiguity_test
from explainer.significance import pair_relabelling_max_statistic


def c02_passes(ours_right, ours_wrong, items, *, alpha, majority, seed=0, n_relabellings=20000):
    """C02's passing heads on the drawn sentences ``items`` (whole pairs, each pair's two
    sentences next to each other; each drawn copy of a pair relabelled as a pair of its own)."""
    items = np.asarray(items)
    pair = np.repeat(np.arange(len(items) // 2), 2)
    p = pair_relabelling_max_statistic(ours_right[items], ours_wrong[items], pair, n_relabellings, seed)
    return (p < alpha) & (ours_right[items].sum(axis=0) / len(items) >= majority)


def c21_passes(hit_ambiguous, hit_plain, items, *, gap_min, alpha, seed=0, n_draws=2000):
    """C21's ambiguity test on the drawn frames ``items``."""
    gap, p = ambiguity_test(hit_ambiguous[items], hit_plain[items], n_draws=n_draws, seed=seed)
    return (gap >= gap_min) & (p < alpha)


def c23_counts(passes, weights, angles, items, *, share, small, gap, large) -> dict[str, int]:
    """C23's counts on one draw. Per claim: ``passes`` (heads,) bool on the draw, ``weights``
    (N, heads) each sentence's target weight, ``angles`` (to_target (N, heads), to_others per
    sentence (heads, c)) from ``centred_angles_all``, ``items`` the drawn sentences."""
    heads = n_small = n_large = 0
    for claim, chosen in passes.items():
        rows = np.asarray(items[claim])
        to_target, to_others = angles[claim]
        for f in np.flatnonzero(chosen & (weights[claim][rows].mean(axis=0) >= share)):
            target = float(np.median(to_target[rows, f]))
            others = float(np.median(np.concatenate([to_others[i][f] for i in rows])))
            heads += 1
            n_small += target < small and others - target >= gap
            n_large += target > large
    return dict(heads=heads, small_heads=n_small, large_heads=n_large)


__all__ = ["c02_passes", "c21_passes", "c23_counts"]
