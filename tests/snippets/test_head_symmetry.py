"""Why heads differ (1): heads that start identical stay identical, to the last bit."""


def test_identically_initialised_heads_never_diverge(results):
    r = results("head_symmetry")
    # Exact equality, not a tolerance: same computation, same gradient, same step.
    assert r.number("identical_max_gap") == 0.0
    assert r.number("identical_final_gap") == 0.0
    assert r.number("identical_pattern_gap") == 0.0


def test_two_identical_heads_are_one_head(results):
    r = results("head_symmetry")
    assert r.number("one_head_error") < 1e-4  # measured 5.7e-06 (float32 rounding)


def test_random_start_separates_the_heads_and_learns_better(results):
    r = results("head_symmetry")
    assert r.number("random_pattern_gap") > 0.5         # measured 1.00
    # Measured 0.978 vs 0.924 (loss 0.050 vs 0.140).
    assert r.number("random_accuracy") > r.number("identical_accuracy")
    assert r.number("random_loss") < r.number("identical_loss")


def test_a_tiny_nudge_or_dropout_also_breaks_the_symmetry(results):
    r = results("head_symmetry")
    # A ~1e-6 difference grows past 0.01 (measured at step 80; final 0.40).
    assert r.number("nudged_start_gap") < 1e-5
    assert r.number("nudged_final_gap") > 0.01
    assert r.number("identical_dropout_final_gap") > 0.01


def test_verdict_on_c09(results):
    assert results("head_symmetry").verdict("C09") == "verified"
