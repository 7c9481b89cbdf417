"""__TITLE_EN__: what the page claims, asserted on the snippet's run."""


def test_softmax_concentrates_as_scores_grow(results):
    r = results("__NAME__")
    # Replace with your claim. Example measured: 0.11 at scale 1/4, 0.96 at scale 8.
    assert r.number("largest_weight_large_scale") > 0.9
    assert r.number("largest_weight_small_scale") < 0.3


def test_exercise_answers(results):
    r = results("__NAME__")
    # 1: larger scores, sharper softmax; 2: equal scores, an even spread over the 16 keys.
    assert r.number("exercise_largest_weight_scale_16") >= r.number("largest_weight_large_scale")
    assert r.number("exercise_largest_weight_scale_0") == 1 / 16
