"""Why heads differ (2): random vectors in high dimension are nearly orthogonal."""


def test_mean_cosine_shrinks_like_one_over_sqrt_d(results):
    r = results("near_orthogonal")
    # Measured slope -0.511; 1/sqrt(d) is -0.5. 2000 pairs per d keep noise ~1%.
    assert abs(r.number("slope") + 0.5) < 0.05
    assert r.number("max_ratio_to_theory") < 0.1  # measured 0.054 (d >= 8)
    assert r.number("cos_d4096") < 0.02 < 0.5 < r.number("cos_d2")


def test_fresh_heads_point_in_nearly_unrelated_directions(results):
    r = results("near_orthogonal")
    assert r.number("slice_cos_max") < 0.05  # measured 0.017 over 32,768 numbers
    assert abs(r.number("query_cos_mean_abs") - r.number("query_cos_theory")) < 0.02


def test_verdict_on_c10(results):
    assert results("near_orthogonal").verdict("C10") == "verified"
