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


# --- Putting the heads together: W_O's blocks in MiniLM (C41) ------------------------------

import functools  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "many_heads" / "splitting_the_space.py"


@functools.lru_cache(maxsize=None)
def fusion() -> dict:
    """The cells that cut W_O into the heads' blocks and split the output's variance."""
    return notebooks.run_tagged(SNIPPET, {"setup", "wo_blocks", "variance_shares"})


def test_a_heads_block_of_w_o_is_its_own_input_columns():
    head_blocks = fusion()["head_blocks"]
    W_O = torch.arange(24.0).view(4, 6)                             # (out, in): 3 heads of 2 columns
    blocks = head_blocks(W_O, 3)                                    # (nh, out, hs)
    assert blocks.shape == (3, 4, 2)
    for h in range(3):
        assert torch.equal(blocks[h], W_O[:, 2 * h:2 * h + 2])
    # A head whose columns are zero has a block of norm 0, and each of its rows is a row of zeros.
    W_O[:, 2:4] = 0
    blocks = head_blocks(W_O, 3)
    assert blocks.flatten(start_dim=1).norm(dim=-1).tolist()[1] == 0
    assert int((blocks == 0).all(dim=-1).sum()) == 4
    # The heads' outputs through their blocks add up to the concatenation through W_O.
    heads = torch.randn(3, 5, 2)                                    # (nh, T, hs)
    concat = heads.transpose(0, 1).reshape(5, 6)                    # (T, C)
    assert torch.allclose((heads @ blocks.transpose(1, 2)).sum(0), concat @ W_O.T)


def test_the_variance_split_gives_own_variances_and_cross_covariances():
    variance_split = fusion()["variance_split"]
    torch.manual_seed(0)
    a = torch.randn(50, 3)                                          # (N, C)
    var_a = a.var(dim=0).sum()                                      # summed over coordinates
    own, cross = variance_split(torch.stack([a, a]))                # two identical heads
    assert torch.allclose(own, torch.stack([var_a, var_a])) and torch.isclose(cross, 2 * var_a)
    own, cross = variance_split(torch.stack([a, -a]))               # two heads that cancel
    assert torch.isclose(cross, -2 * var_a)
    # Own variances plus cross-covariances are the variance of the sum, for any heads.
    c = torch.randn(4, 50, 3)
    own, cross = variance_split(c)
    assert torch.isclose(own.sum() + cross, c.sum(0).var(dim=0).sum(), rtol=1e-5)


def test_the_heads_contributions_add_up_to_minilms_attention_output(results):
    r = results("many_heads.splitting_the_space")
    assert r.number("minilm_contribution_sum_error") < 1e-4          # float32 rounding
    assert r.number("minilm_wo_blocks") == 6 * 12
    # Shares of one layer sum to 1: the smallest is at most an even share, the largest at least.
    assert r.number("minilm_variance_share_min") <= r.number("minilm_variance_share_even") \
        <= r.number("minilm_variance_share_max")
    assert 0 <= r.number("minilm_wo_block_zero_rows") <= 6 * 12 * 384
