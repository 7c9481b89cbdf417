"""V and the residual stream in MiniLM (C19, C29).

The verdicts are the rules' (docs/claims.yml); these tests check that the shares, CKAs and
counts behind them are computed consistently, whatever the outcome."""


def test_with_the_residual_a_token_stays_nearest_its_own_embedding(results):
    r = results("real_model.residual")
    # after layer 6 a token is closer to its own embedding than to the others'
    assert r.number("own_layer6") > r.number("other_layer6")
    assert r.number("identified_layer6") >= 0.5


def test_identified_shares_are_token_counts_over_the_sample(results):
    r = results("real_model.residual")
    # a share of the sample's tokens: a whole number of tokens between none and all
    tokens = r.number("n_tokens")
    for key in ("identified_layer1", "identified_no_residual_layer1", "identified_layer6",
                "identified_no_residual_layer6", "exercise_identified_no_attention_layer6"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * tokens - round(share * tokens)) < 1e-6, key


def test_v_keeps_the_most_of_the_embedding_in_layer_1_but_not_in_layer_6(results):
    r = results("real_model.residual")
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
    r = results("real_model.residual")
    # linear CKA lies between 0 and 1 (Cauchy-Schwarz); the smallest is at most the largest
    lowest, shuffled = r.number("cka_V_consecutive_min"), r.number("cka_V_shuffled_max")
    assert 0 <= lowest <= r.number("cka_V_consecutive_max") <= 1 + 1e-6
    assert 0 <= shuffled <= 1 + 1e-6


def test_the_four_parts_rebuild_each_layers_output(results):
    r = results("real_model.residual")
    assert r.number("split_error") < 1e-3
    total = sum(r.number(f"{part}_share_mean") for part in ("residual", "attention", "ffn", "offset"))
    assert abs(total - 1) < 1e-3


def test_the_next_layer_reads_mostly_the_residual_stream_not_the_values(results):
    r = results("real_model.residual")
    # on average the incoming stream outweighs the attention output, a small correction
    assert r.number("residual_share_mean") > r.number("attention_share_mean")
    assert r.number("attention_share_mean") < 0.25


def test_the_layer_counts_agree_with_the_shares(results):
    r = results("real_model.residual")
    # a layer whose largest part is the incoming stream has no attention output above it
    above = r.number("attention_above_residual_layers")
    assert 0 <= above <= 6 - r.number("residual_largest_layers")
    assert r.number("attention_share_min") <= r.number("attention_share_mean") <= r.number("attention_share_max")


def test_exercise_answers(results):
    r = results("real_model.residual")
    # 1: without the residual path the identity is gone by layer 6.
    assert r.number("exercise_identified_no_residual_layer6") < r.number("identified_layer6") - 0.5
    # 2: attention is what mixes other tokens in: with every head off and the residual kept,
    #    tokens stay closer to their own embeddings than in the full model.
    assert r.number("exercise_identified_no_attention_layer6") >= r.number("identified_layer6")
    assert r.number("exercise_own_no_attention_layer6") > r.number("own_layer6")


def test_the_debiased_ckas_and_their_shuffled_nulls_are_consistent(results):
    r = results("real_model.residual")
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


def test_the_sense_probe_cannot_tell_the_senses_apart_in_layer_1(results):
    r = results("real_model.residual")
    # by construction both sentences of a pair give the word the same layer-1 value, so the
    # nearest-centroid probe names the same sense for both: exactly one of each pair is right
    assert r.number("sense_probe_layer1") == 0.5
    assert r.number("n_sense_sentences") == 5 * 20 * 2


def test_the_sense_gain_is_the_best_later_layer_minus_layer_1(results):
    r = results("real_model.residual")
    gain = r.number("sense_probe_best") - r.number("sense_probe_layer1")
    assert abs(r.number("sense_probe_gain") - gain) < 1e-9
    assert r.number("sense_probe_layer6") <= r.number("sense_probe_best")
    assert 2 <= r.number("sense_probe_best_layer") <= 6
    assert r.number("sense_probe_gain_low") <= r.number("sense_probe_gain_high")


def test_the_g1_check_is_the_residual_probe_against_the_majority_guess(results):
    r = results("real_model.residual")
    margin = r.number("neighbour_residual6_probe") - r.number("neighbour_majority_share")
    assert abs(r.number("neighbour_g1_margin") - margin) < 1e-9
    assert r.number("neighbour_g1_held") in (0, 1)
    # a share of the probe items: a whole number of items named right
    share, n_items = r.number("neighbour_residual6_probe"), r.number("n_probe_items")
    assert abs(share * n_items - round(share * n_items)) < 1e-6
