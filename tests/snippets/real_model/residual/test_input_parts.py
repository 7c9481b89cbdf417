"""What the next layer of MiniLM reads: each layer's output split into four parts (C29).

The verdicts are the rules' (docs/claims.yml); these tests check that the numbers behind them
are computed consistently, whatever the outcome."""


def test_the_four_parts_rebuild_each_layers_output(results):
    r = results("real_model.residual.input_parts")
    assert r.number("split_error") < 1e-3
    total = sum(r.number(f"{part}_share_mean") for part in ("residual", "attention", "ffn", "offset"))
    assert abs(total - 1) < 1e-3


def test_the_next_layer_reads_mostly_the_residual_stream_not_the_values(results):
    r = results("real_model.residual.input_parts")
    # on average the incoming stream outweighs the attention output, a small correction
    assert r.number("residual_share_mean") > r.number("attention_share_mean")
    assert r.number("attention_share_mean") < 0.25


def test_the_layer_counts_agree_with_the_shares(results):
    r = results("real_model.residual.input_parts")
    # a layer whose largest part is the incoming stream has no attention output above it
    above = r.number("attention_above_residual_layers")
    assert 0 <= above <= 6 - r.number("residual_largest_layers")
    assert r.number("attention_share_min") <= r.number("attention_share_mean") <= r.number("attention_share_max")
