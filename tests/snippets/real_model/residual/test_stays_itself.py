"""A token against its own embedding in MiniLM, with and without the residual path (C19).

The verdicts are the rules' (docs/claims.yml); these tests check that the numbers behind them
are computed consistently, whatever the outcome."""


def test_with_the_residual_a_token_stays_nearest_its_own_embedding(results):
    r = results("real_model.residual.stays_itself")
    # after layer 6 a token is closer to its own embedding than to the others'
    assert r.number("own_layer6") > r.number("other_layer6")
    assert r.number("identified_layer6") >= 0.5


def test_identified_shares_are_token_counts_over_the_sample(results):
    r = results("real_model.residual.stays_itself")
    # a share of the sample's tokens: a whole number of tokens between none and all
    tokens = r.number("n_tokens")
    for key in ("identified_layer1", "identified_no_residual_layer1", "identified_layer6",
                "identified_no_residual_layer6", "exercise_identified_no_attention_layer6"):
        share = r.number(key)
        assert 0 <= share <= 1 and abs(share * tokens - round(share * tokens)) < 1e-6, key


def test_exercise_answers(results):
    r = results("real_model.residual.stays_itself")
    # 1: without the residual path the identity is gone by layer 6.
    assert r.number("exercise_identified_no_residual_layer6") < r.number("identified_layer6") - 0.5
    # 2: attention is what mixes other tokens in: with every head off and the residual kept,
    #    tokens stay closer to their own embeddings than in the full model.
    assert r.number("exercise_identified_no_attention_layer6") >= r.number("identified_layer6")
    assert r.number("exercise_own_no_attention_layer6") > r.number("own_layer6")
