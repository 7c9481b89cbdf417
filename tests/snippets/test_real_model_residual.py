"""V and the residual stream in MiniLM: continuity comes from the residual path."""


def test_with_the_residual_a_token_stays_nearest_its_own_embedding(results):
    r = results("real_model_residual")
    # after layer 6: cosine 0.36 with its own embedding vs 0.04 with the others; 87% identified
    assert r.number("own_layer6") > r.number("other_layer6") + 0.2
    assert r.number("identified_layer6") > 0.7


def test_without_the_residual_identity_is_lost_after_one_layer(results):
    r = results("real_model_residual")
    # 0.07 after layer 1 (vs 0.87 with the residual); 15% identified (vs 100%)
    assert r.number("own_no_residual_layer1") < r.number("other_layer1") + 0.1
    assert r.number("own_layer1") > 0.7
    assert r.number("identified_no_residual_layer1") < 0.3


def test_v_is_closest_to_the_embedding_only_in_the_first_layers(results):
    r = results("real_model_residual")
    # V beats Q and K in layers 1-2 only (CKA 0.83 in layer 1, 0.55 in layer 6)
    assert r.number("cka_V_first") > max(r.number("cka_Q_first"), r.number("cka_K_first"))
    assert r.number("layers_v_closest") < 6
    assert r.number("cka_V_last") < r.number("cka_input_last")
    assert r.number("cka_V_last") < r.number("cka_Q_last")  # 0.55 vs 0.61
    assert r.verdict("C19") == "nuanced"


def test_q_and_k_more_abstract_than_v_stays_open(results):
    r = results("real_model_residual")
    assert r.number("layers_q_closest") >= 1  # measured 4 of 6: the proxy is mixed
    assert r.verdict("C20") == "open"
