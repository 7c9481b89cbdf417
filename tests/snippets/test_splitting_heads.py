"""Splitting the space: d_model = 512 into 8 heads of 64, checked against PyTorch."""


def test_own_multi_head_attention_equals_torch_multihead_attention(results):
    r = results("splitting_heads")
    # float32 rounding: measured 5.4e-07 (outputs) and 1.8e-07 (weights).
    assert r.number("torch_error") < 1e-5
    assert r.number("torch_weights_error") < 1e-6
    assert r.number("step_error") < 1e-6
    assert r.number("fused_error") < 1e-5


def test_eight_heads_of_64_cost_the_parameters_of_one_head_of_512(results):
    r = results("splitting_heads")
    assert r.number("params_eight_heads") == r.number("params_one_head") == 4 * 512 ** 2
    assert r.number("params_torch") == 4 * 512 ** 2
    assert r.number("params_per_head_slice") * 8 == 512 ** 2


def test_one_head_score_is_the_sum_of_the_eight_head_scores(results):
    r = results("splitting_heads")
    assert r.number("sum_error") < 1e-5  # measured 6.0e-07
    # ...yet one softmax over the sum is not eight softmaxes: the output moves
    # by 0.85 of its norm (measured); any change above 10% is far from rounding.
    assert r.number("output_change") > 0.1


def test_heads_with_the_same_input_pick_different_keys(results):
    r = results("splitting_heads")
    assert r.number("heads_with_other_favourite") >= 1  # measured 5 of 7


def test_every_head_reads_all_512_input_features(results):
    r = results("splitting_heads")
    # The split is of W_Q's outputs: each head's 64 rows read the whole token vector.
    # A head that "sees only part of the features" would read fewer than d_model inputs.
    assert r.number("input_features_read_per_head_min") == r.number("d_model") == 512
