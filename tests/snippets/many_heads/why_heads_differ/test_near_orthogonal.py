"""Why heads differ (2), C10: random vectors in high dimension are nearly orthogonal — and is
that what makes it costly for training to make two heads the same? The computations behind
the numbers; the verdict is the rule's (docs/claims.yml)."""

import math

from explainer.censored import at_least_twice, median_steps


def test_random_vectors_have_the_known_mean_cosine(results):
    r = results("many_heads.why_heads_differ.near_orthogonal")
    # In d = 2 the angle is uniform, so E|cos| = 2/pi exactly; in high d it tends to
    # sqrt(2/(pi d)). 2000 pairs per d keep the sampling error near 1 %.
    assert abs(r.number("cos_d2") - 2 / math.pi) < 0.03
    assert r.number("max_ratio_to_theory") < 0.1                      # d >= 8
    assert abs(r.number("exercise_cos_d16384") / r.number("exercise_cos_d16384_theory") - 1) < 0.05


def test_fresh_heads_point_in_nearly_unrelated_directions(results):
    r = results("many_heads.why_heads_differ.near_orthogonal")
    # Slices of one random matrix, and random queries: the same sqrt(2/(pi d)) law.
    assert r.number("slice_cos_max") < 0.05
    assert abs(r.number("query_cos_mean_abs") - r.number("query_cos_theory")) < 0.02


def test_a_censored_median_ranks_unfinished_runs_last_and_is_unknown_when_the_middle_is():
    # Known answers: finished runs 100, 300 and an unfinished one -> the median is 300, not
    # the budget averaged in; two of four unfinished -> a middle run is unfinished: unknown.
    assert median_steps([100, 300, 50], [True, True, False]) == 300
    assert median_steps([100, 300, 200, 400], [True, True, True, True]) == 250
    assert median_steps([100, 300, 50, 60], [True, True, False, False]) is None
    assert median_steps([7], [False]) is None


def test_at_least_twice_counts_a_censored_run_only_when_it_surely_is():
    budget = 1200
    # Finished runs compare their own steps; an unfinished run needed more than the budget,
    # so it is at least twice a median of at most budget / 2, and cannot be told above that.
    assert at_least_twice([600, 599, 5], [True, True, False], 300, budget) == [True, False, True]
    assert at_least_twice([5, 5], [False, False], 600, budget) == [True, True]
    assert at_least_twice([5, 1300], [False, True], 601, budget) == [False, True]
    assert at_least_twice([900, 5], [True, False], None, budget) == [False, False]


def test_counts_over_seeds_are_recomputed_from_their_per_seed_values(results):
    r = results("many_heads.why_heads_differ.near_orthogonal")
    for key in ("orthogonal_twice_seeds", "orthogonal_slower_seeds", "free_below_seeds", "free_above_seeds",
                "reached_orthogonal_seeds", "reached_aligned_seeds"):
        assert r.number(key) == sum(r.per_seed(key))
    # Every seed's free heads are either below the random-pair yardstick at every step or not.
    assert [a + b for a, b in zip(r.per_seed("free_below_seeds"), r.per_seed("free_above_seeds"))] == \
        [1.0] * int(r.number("n_seeds"))
    # Below at every step implies below at the end; the largest |cos| decides "below".
    assert all(end >= every for end, every in zip(r.per_seed("free_end_below_seeds"), r.per_seed("free_below_seeds")))
    below = [float(c < r.number("random_pair_cos_p95")) for c in r.per_seed("free_cos_abs_max_max")]
    assert below == r.per_seed("free_below_seeds")
    # A run counted at least twice the aligned median, or slower than its own aligned run,
    # cannot be one whose aligned median is unknown.
    if r.number("steps_aligned_median_known") == 0:
        assert r.number("orthogonal_twice_seeds") == 0

