"""Why heads differ (5), C24: do heads that start more positional end more positional?
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import math

import pytest


def test_the_interval_is_the_t_interval_of_the_per_seed_correlations(results):
    r = results("many_heads.why_heads_differ.butterfly_heads")
    rho = r.per_seed("rank_correlation_mean")
    assert len(rho) == r.number("n_seeds") >= 64
    assert all(-1 - 1e-6 <= x <= 1 + 1e-6 for x in rho)              # a rank correlation
    n, mean = len(rho), sum(rho) / len(rho)
    half = (r.number("rank_correlation_ci95_high") - r.number("rank_correlation_ci95_low")) / 2
    sd = math.sqrt(sum((x - mean) ** 2 for x in rho) / (n - 1))
    assert half / (sd / math.sqrt(n)) == pytest.approx(1.998, abs=0.01)    # t(63), 97.5 %
    assert r.number("rank_correlation_ci95_low") < r.number("rank_correlation_mean") \
        < r.number("rank_correlation_ci95_high")


def test_a_rank_correlation_over_8_heads_takes_only_its_possible_values(results):
    # Spearman over 8 distinct ranks: 1 - 6 * sum(d^2) / (8 * 63), with sum(d^2) even.
    r = results("many_heads.why_heads_differ.butterfly_heads")
    for x in r.per_seed("rank_correlation_mean"):
        sum_d2 = (1 - x) * 8 * 63 / 6
        assert abs(sum_d2 - round(sum_d2)) < 1e-3 and round(sum_d2) % 2 == 0


def test_the_binomial_note_counts_against_one_head_in_eight(results):
    r = results("many_heads.why_heads_differ.butterfly_heads")
    n, hits = int(r.number("n_seeds")), int(r.number("kept_lead_seeds"))
    assert r.number("chance") == pytest.approx(1 / 8)
    assert r.number("expected_by_chance") == pytest.approx(n / 8)
    tail = sum(math.comb(n, k) * (1 / 8) ** k * (7 / 8) ** (n - k) for k in range(hits, n + 1))
    assert r.number("binomial_p") == pytest.approx(tail)
    ranks = [r.number(f"positional_started_rank_{rank}") for rank in range(1, 9)]
    assert sum(ranks) == r.number("positional_seeds") and ranks[0] == hits
