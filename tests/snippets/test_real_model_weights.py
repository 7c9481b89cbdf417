"""Real weights, our code: the project's encoder runs all-MiniLM-L6-v2 exactly."""


def test_our_encoder_equals_the_reference_bert(results):
    r = results("real_model_weights")
    # measured 4.0e-06 (hidden states) and 1.3e-06 (attention): float32 rounding
    assert r.number("hidden_error") < 1e-5
    assert r.number("attention_error") < 1e-5
    assert r.verdict("C01") == "verified"


def test_the_model_is_six_layers_of_twelve_heads_of_32_dimensions(results):
    r = results("real_model_weights")
    assert (r.number("n_layers"), r.number("n_heads"), r.number("d_model")) == (6, 12, 384)
    assert r.number("head_size") == 32
    assert 22 < r.number("n_params_millions") < 23.5  # measured 22.6


def test_the_key_bias_cannot_change_attention_but_the_query_bias_does(results):
    r = results("real_model_weights")
    # softmax ignores q·b_K, which is the same for every key: measured 1.1e-06
    assert r.number("key_bias_effect") < 1e-5
    # the query bias moves some weight by 0.78: far above rounding
    assert r.number("query_bias_effect") > 0.1
