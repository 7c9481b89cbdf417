"""Splitting the space: d_model = 512 into 8 heads of 64, checked against PyTorch."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.attention import AttentionConfig, MultiHeadAttention  # noqa: E402


def test_own_multi_head_attention_equals_torch_multihead_attention(results):
    r = results("many_heads.splitting_the_space")
    # float32 rounding only: the same weights and the same maths.
    assert r.number("torch_error") < 1e-5
    assert r.number("torch_weights_error") < 1e-6
    assert r.number("step_error") < 1e-6
    assert r.number("fused_error") < 1e-5


def test_eight_heads_of_64_cost_the_parameters_of_one_head_of_512(results):
    r = results("many_heads.splitting_the_space")
    assert r.number("params_eight_heads") == r.number("params_one_head") == 4 * 512 ** 2
    assert r.number("params_torch") == 4 * 512 ** 2
    assert r.number("params_per_head_slice") * 8 == 512 ** 2


def test_one_head_score_is_the_sum_of_the_eight_head_scores(results):
    r = results("many_heads.splitting_the_space")
    assert r.number("sum_error") < 1e-5  # float32 rounding
    # ...yet one softmax over the sum is not eight softmaxes: any change of the output
    # above 10 % of its norm is far from rounding.
    assert r.number("output_change") > 0.1


def test_heads_with_the_same_input_pick_different_keys(results):
    r = results("many_heads.splitting_the_space")
    # of the seven heads besides head 0, at least one favours another key
    assert 1 <= r.number("heads_with_other_favourite") <= 7


def test_every_head_reads_every_input_feature():
    """The project's attention splits W_Q's outputs, not the token vector: nudging any one
    input feature moves every head's queries and every head's attention weights. A split
    that handed each head a slice of the input would move only the head owning that slice."""
    torch.manual_seed(0)
    d_model, n_heads = 8, 4
    attention = MultiHeadAttention(AttentionConfig(d_model=d_model, n_heads=n_heads))
    x = torch.randn(1, 3, d_model)                                   # (B, T, C)
    with torch.no_grad():
        queries = attention.split_heads(attention.W_Q(x))            # (B, nh, T, hs)
        attention(x)
        weights = attention.last_weights                             # (B, nh, T, S)
        for feature in range(d_model):
            nudged = x.clone()
            nudged[..., feature] += 1.0                              # (B, T, C)
            moved_queries = attention.split_heads(attention.W_Q(nudged)) - queries
            attention(nudged)
            moved_weights = attention.last_weights - weights
            assert (moved_queries.abs().amax(dim=(0, 2, 3)) > 1e-4).all(), feature  # (nh,)
            assert (moved_weights.abs().amax(dim=(0, 2, 3)) > 1e-6).all(), feature  # (nh,)


def test_exercise_answers(results):
    r = results("many_heads.splitting_the_space")
    # 1: splitting is a reshape: 16 heads of 32 cost the same 4 * 512^2 parameters.
    assert r.number("exercise_params_sixteen_heads") == 4 * 512 ** 2
    # 2: two softmaxes over 256-dimensional scores are neither eight softmaxes nor one:
    #    the output is far from the eight heads' (rounding would be about 1e-6).
    assert r.number("exercise_two_heads_change") > 0.1
