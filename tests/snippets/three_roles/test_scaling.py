"""Why divide by √d_k (C05): what the page claims, asserted on the snippet's run."""


def test_unscaled_score_variance_grows_in_proportion_to_d_k(results):
    r = results("three_roles.scaling")
    # Theory says variance = d_k exactly, i.e. slope 1 on log-log axes, over d_k = 1..1024
    # with 2048 query rows each. 0.05 leaves room for sampling noise only.
    assert abs(r.number("variance_slope") - 1) < 0.05
    assert r.number("variance_raw_1024") > 500


def test_scaled_score_variance_stays_near_one(results):
    r = results("three_roles.scaling")
    # Theory says variance 1 at every d_k; 0.1 leaves room for sampling noise only.
    assert 0.9 < r.number("variance_scaled_min") <= r.number("variance_scaled_max") < 1.1


def test_unscaled_softmax_saturates_and_scaled_one_does_not(results):
    r = results("three_roles.scaling")
    # At d_k = 1024 without the division the softmax is near one-hot (largest weight near 1,
    # entropy near 0); with it the row stays as soft as at d_k = 1, near the uniform entropy.
    assert r.number("largest_weight_raw_1024") > 0.9
    assert r.number("entropy_raw_1024") < 0.5
    assert r.number("largest_weight_scaled_max") < 0.25
    assert r.number("entropy_scaled_1024") > 0.8 * r.number("uniform_entropy")


def test_without_scaling_the_gradient_through_the_softmax_collapses(results):
    r = results("three_roles.scaling")
    # Median per-row gradient at d_k = 1024, without against with the division; a "dead" row
    # gets less than 1e-3. "Collapse" = below 1 % of the scaled gradient.
    assert r.number("grad_softmax_ratio_1024") < 0.01
    assert r.number("dead_rows_raw_1024") > 0.3
    assert r.number("dead_rows_scaled_1024") == 0


def test_with_scaling_the_gradient_is_the_same_at_every_d_k(results):
    r = results("three_roles.scaling")
    # Median gradient through the softmax, largest over smallest from d_k = 1 to 1024.
    assert r.number("grad_softmax_scaled_spread") < 1.5


def test_no_gradient_explodes_without_scaling(results):
    r = results("three_roles.scaling")
    # The mean gradient at the query (what the weights receive) levels off: its log-log slope
    # for d_k >= 32 stays far from the 0.5 of the keys' length; a slope above 0.25 would fail.
    assert r.number("grad_query_mean_slope") < 0.25


def test_exercise_answers(results):
    r = results("three_roles.scaling")
    # 1: at d_k = 256 the unscaled softmax is already close to one-hot;
    #    the scaled one stays as soft as at d_k = 1.
    assert r.number("exercise_largest_weight_raw_256") > 0.8
    assert r.number("exercise_largest_weight_scaled_256") < 0.25
    # 2: dividing by d_k shrinks the scores' variance to 1/d_k: the weights become
    #    almost uniform over the 32 keys (largest weight near 1/32, entropy near ln 32).
    assert r.number("exercise_divide_by_d_k_largest_weight") < 1.5 / 32
    assert r.number("exercise_divide_by_d_k_entropy") > 0.99 * r.number("uniform_entropy")
