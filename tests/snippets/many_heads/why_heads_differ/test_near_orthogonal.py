"""Why heads differ (2), C10's geometry: random vectors in high dimension are nearly orthogonal,
and so are the heads of a fresh layer. The computations behind the numbers; the verdict is the
rule's (docs/claims.yml)."""

import math


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
