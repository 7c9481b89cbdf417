"""Why heads differ (1), C09: heads that start identical stay identical; random starts differ."""


def test_identically_initialised_heads_never_diverge_in_any_seed(results):
    r = results("head_symmetry")
    # Exact equality, not a tolerance: same computation, same gradient, same step.
    assert r.number("n_seeds") >= 8
    assert r.number("identical_stay_seeds") == r.number("n_seeds")
    assert r.number("identical_max_gap") == 0.0
    assert r.number("identical_similarity_min") > 0.999


def test_two_identical_heads_are_one_head(results):
    r = results("head_symmetry")
    assert r.number("one_head_error") < 1e-4  # measured 3.8e-06 (float32 rounding)


def test_randomly_started_heads_end_different_in_most_seeds(results):
    r = results("head_symmetry")
    # The statistic C09's rule reads: measured 8 of 8 seeds below similarity 0.9 (mean 0.31).
    assert r.number("random_differ_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("random_similarity_mean") < 0.9


def test_a_tiny_nudge_or_dropout_also_breaks_the_symmetry(results):
    r = results("head_symmetry")
    # A ~1e-6 difference grows past 0.01 (measured in 8 of 8 seeds, around step 96).
    assert r.number("nudged_start_gap") < 1e-5
    assert r.number("nudged_separated_seeds") >= 0.75 * r.number("n_seeds")
    assert r.number("identical_dropout_separated_seeds") >= 0.75 * r.number("n_seeds")
