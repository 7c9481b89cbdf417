"""Why heads differ (2), C10: random vectors in high dimension are nearly orthogonal — and is
that what makes it costly for training to make two heads the same?"""


def test_mean_cosine_shrinks_like_one_over_sqrt_d(results):
    r = results("near_orthogonal")
    # Measured slope -0.511; 1/sqrt(d) is -0.5. 2000 pairs per d keep noise ~1%.
    assert abs(r.number("slope") + 0.5) <= 0.1
    assert r.number("max_ratio_to_theory") < 0.1  # measured 0.054 (d >= 8)
    assert r.number("cos_d4096") < 0.02 < 0.5 < r.number("cos_d2")


def test_fresh_heads_point_in_nearly_unrelated_directions(results):
    r = results("near_orthogonal")
    assert r.number("slice_cos_max") < 0.05  # measured 0.017 over 32,768 numbers
    assert abs(r.number("query_cos_mean_abs") - r.number("query_cos_theory")) < 0.02
    assert abs(r.number("start_cosine_orthogonal_mean")) < 0.1   # the trained model's heads too


def test_near_orthogonal_start_is_not_much_costlier_to_pull_together_than_an_aligned_one(results):
    r = results("near_orthogonal")
    # The statistics C10's rule reads. Measured: 274 vs 238 steps on average (ratio 1.2),
    # slower in 5 of 8 seeds: far from the "twice as many steps" the rule asks for "costly".
    assert r.number("n_seeds") >= 8
    assert r.number("steps_orthogonal_mean") < 2 * r.number("steps_aligned_mean")
    assert r.number("orthogonal_slower_seeds") < 0.75 * r.number("n_seeds")


def test_without_a_pull_the_heads_stay_nearly_orthogonal(results):
    r = results("near_orthogonal")
    # Measured cosine 0.01 at the start and -0.01 after 300 steps (mean over 8 seeds).
    assert abs(r.number("end_cosine_free_mean")) < 0.2
