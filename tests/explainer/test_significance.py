"""The corrected tests behind the real-model head roles (snippets/explainer/significance.py)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.significance import bonferroni_binomial, pair_relabelling_max_statistic  # noqa: E402


def test_bonferroni_multiplies_by_the_number_of_heads_and_caps_at_one():
    hits = np.array([40, 20, 5])                       # of 40 items, chance 0.5
    p = bonferroni_binomial(hits, 40, 0.5)
    assert p[0] < 1e-9 and p[2] == 1.0
    single = bonferroni_binomial(hits[:1], 40, 0.5)     # one head tried: no multiplication
    assert np.isclose(p[0], 3 * single[0])


def test_a_head_that_always_picks_the_first_noun_never_passes_the_pair_test():
    pair = np.repeat(np.arange(20), 2)                  # 20 minimal pairs
    first_is_right = np.tile([True, False], 20)
    positional = first_is_right                          # right exactly when the first noun is
    follower = np.ones(40, dtype=bool)                   # right in every sentence
    hit_right = np.stack([positional, follower], axis=1)
    hit_wrong = np.stack([~positional, ~follower], axis=1)
    p = pair_relabelling_max_statistic(hit_right, hit_wrong, pair, n_relabellings=2000)
    assert p[0] > 0.5 and p[1] < 0.01
