"""Putting the block together: each part does what the page says, checked on the run."""


def test_attention_alone_ignores_the_order_of_tokens(results):
    r = results("transformer_block")
    # Shuffled tokens give shuffled outputs (up to float rounding); positions break the symmetry.
    assert r.number("permutation_error_without_positions") < 1e-5
    assert r.number("permutation_change_with_positions") > 0.05


def test_the_causal_mask_hides_the_future_exactly(results):
    r = results("transformer_block")
    assert r.number("masked_weight_above_diagonal") == 0
    assert r.number("masked_change_before_last") == 0
    assert r.number("unmasked_change_before_last") > 0.05


def test_layer_norm_gives_each_token_mean_zero_and_unit_spread(results):
    r = results("transformer_block")
    assert r.number("layer_norm_largest_mean") < 1e-5
    assert abs(r.number("layer_norm_std") - 1) < 1e-3


def test_the_mlp_sees_one_position_at_a_time(results):
    r = results("transformer_block")
    assert r.number("mlp_change_elsewhere") == 0
    assert r.number("mlp_params") > 2 * r.number("attention_params")


def test_our_block_equals_pytorchs_encoder_layer(results):
    assert results("transformer_block").number("block_vs_torch_error") < 1e-5


def test_exercise_answers(results):
    r = results("transformer_block")
    # 1: the last position sees every token, mask or not.
    assert abs(r.number("exercise_last_moves_unmasked") - r.number("exercise_last_moves_masked")) < 1e-5
    # 2: without the residual path little of the input survives; with it, most does.
    assert r.number("exercise_cosine_without_residual") < 0.5 < r.number("residual_cosine_mean")
    # 3: a 1x MLP has 2*C*C + 2*C parameters for C = 32.
    assert r.number("exercise_mlp_params_1x") == 2 * 32 * 32 + 2 * 32
