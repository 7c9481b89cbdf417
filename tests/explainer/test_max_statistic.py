"""The max-over-heads permutation tests (snippets/explainer/max_statistic.py) on planted cases:
a planted head must pass, pure noise must pass no more than 5 % of the time."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
from explainer.max_statistic import sign_flip_max_statistic, top_pick_max_statistic  # noqa: E402


def noise_top_picks(rng, n_items=40, n_heads=72, n_keys=8):
    top = rng.integers(0, n_keys, size=(n_items, n_heads))
    target = rng.integers(0, n_keys, size=n_items)
    return top, target, [np.arange(n_keys)] * n_items


def test_a_planted_top_pick_head_passes_and_the_others_do_not():
    rng = np.random.default_rng(1)
    top, target, candidates = noise_top_picks(rng)
    top[:30, 5] = target[:30]                       # head 5 right in 30 of 40 items (chance 1/8)
    hits, p = top_pick_max_statistic(top, target, candidates, n_draws=1000)
    assert hits[5] >= 30 and p[5] < 0.01
    assert (p[np.arange(72) != 5] >= 0.05).all()


def test_pure_noise_passes_in_at_most_5_percent_of_experiments():
    # The family-wise error: the share of noise experiments in which ANY head passes.
    rng = np.random.default_rng(2)
    any_pass = [(top_pick_max_statistic(*noise_top_picks(rng), n_draws=200, seed=s)[1] < 0.05).any()
                for s in range(60)]
    assert np.mean(any_pass) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 60)   # 5 % plus two standard errors


def test_the_correction_is_stricter_than_one_head_alone():
    # With 72 heads, a head right in 12 of 40 items (chance 1/8, binomial p ~ 0.002 alone) is not
    # enough: some noise head does that well by luck.
    rng = np.random.default_rng(3)
    top, target, candidates = noise_top_picks(rng)
    top[:, 7] = (target + 1) % 8
    top[:12, 7] = target[:12]
    _, p = top_pick_max_statistic(top, target, candidates, n_draws=1000)
    assert p[7] > 0.002


def test_sign_flip_planted_head_passes_noise_does_not():
    rng = np.random.default_rng(4)
    d = rng.choice([-1.0, 1.0], size=(48, 144))
    d[:, 10] = np.where(np.arange(48) < 40, 1.0, -1.0)   # prefers A in 40 of 48
    p = sign_flip_max_statistic(d, n_draws=2000)
    assert p[10] < 0.01
    assert (p[np.arange(144) != 10] >= 0.05).mean() > 0.9
    any_pass = [(sign_flip_max_statistic(rng.choice([-1.0, 1.0], size=(48, 72)), n_draws=200, seed=s)
                 < 0.05).any() for s in range(60)]
    assert np.mean(any_pass) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 60)


def test_p_values_are_permutation_p_values():
    # Never 0 (the observed labelling counts as one draw), at most 1, and one draw's worth apart.
    rng = np.random.default_rng(5)
    top, target, candidates = noise_top_picks(rng)
    _, p = top_pick_max_statistic(top, target, candidates, n_draws=99)
    assert (p >= 1 / 100).all() and (p <= 1).all()
    assert np.allclose(p * 100, np.round(p * 100))


def test_wilson_interval_known_values():
    from explainer.max_statistic import wilson_interval
    low, high = wilson_interval(np.array([80, 0, 40]), 96)
    # 80 of 96: 0.746 to 0.895 (Wilson 1927; as scipy.stats.binomtest(80, 96).proportion_ci(method="wilson"))
    assert np.allclose([low[0], high[0]], [0.7459, 0.8946], atol=1e-3)
    assert low[1] == 0 and 0 < high[1] < 0.05
    assert low[2] < 40 / 96 < high[2]
