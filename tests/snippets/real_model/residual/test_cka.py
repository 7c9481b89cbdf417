"""How much of the embedding Q, K and V keep, and how alike consecutive layers' values are, in MiniLM (C19, C29).

The verdicts are the rules' (docs/claims.yml); these tests check that the numbers behind them
are computed consistently, whatever the outcome."""


def test_v_keeps_the_most_of_the_embedding_in_layer_1_but_not_in_layer_6(results):
    r = results("real_model.residual.cka")
    # in layer 1 V keeps more of the embedding's structure than Q and K
    v_first = r.number("cka_V_first") > max(r.number("cka_Q_first"), r.number("cka_K_first"))
    assert v_first
    # each layer has at most one strict winner among Q, K and V, and layer 1 counts for V
    v_closest = r.number("layers_v_closest")
    assert v_closest + r.number("layers_q_closest") + r.number("layers_k_closest") <= 6
    assert v_closest >= v_first
    # the first layer's input is the embedding itself: CKA 1 up to float32 rounding
    assert abs(r.number("cka_input_first") - 1) < 1e-5
    # by layer 6 V is below Q, and all three below the layer input
    assert r.number("cka_V_last") < r.number("cka_Q_last")
    assert max(r.number(f"cka_{n}_last") for n in "QKV") < r.number("cka_input_last")


def test_the_consecutive_layer_ckas_are_ckas(results):
    r = results("real_model.residual.cka")
    # linear CKA lies between 0 and 1 (Cauchy-Schwarz); the smallest is at most the largest
    lowest, shuffled = r.number("cka_V_consecutive_min"), r.number("cka_V_shuffled_max")
    assert 0 <= lowest <= r.number("cka_V_consecutive_max") <= 1 + 1e-6
    assert 0 <= shuffled <= 1 + 1e-6


def test_the_debiased_ckas_and_their_shuffled_nulls_are_consistent(results):
    r = results("real_model.residual.cka")
    steps = [r.number(f"cka_step{k}") for k in range(1, 6)]
    nulls = [r.number(f"cka_step{k}_null95") for k in range(1, 6)]
    # a debiased CKA is at most 1 (Cauchy-Schwarz for the unbiased HSIC, an inner product of
    # U-centred Gram matrices); the minimum and the largest null are those of the per-step values
    assert all(value <= 1 for value in steps)
    assert r.number("cka_v6_embedding") <= 1
    assert abs(r.number("cka_step_min") - min(steps)) < 0.005
    assert abs(r.number("cka_step_null95_max") - max(nulls)) < 0.0005
    # a passing step beats its own null: the count is at most the steps above their nulls
    above_null = sum(value > null for value, null in zip(steps, nulls))
    assert 0 <= r.number("cka_steps_passing") <= above_null
