"""__TITLE_EN__: what the page claims, asserted on the snippet's run."""


def test_softmax_concentrates_as_scores_grow(results):
    r = results("__NAME__")
    # Replace with your claim. Example measured: 0.11 at scale 1/4, 0.96 at scale 8.
    assert r.number("largest_weight_large_scale") > 0.9
    assert r.number("largest_weight_small_scale") < 0.3
