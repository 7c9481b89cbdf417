"""Does dropout switch whole heads off (C40, the premise of source A's dropout argument)?
The counter, the heads it reads and DropHead, checked on hand-made inputs; the verdict is
the rule's (docs/claims.yml)."""

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
sys.path.insert(0, str(ROOT))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.attention import AttentionConfig, MultiHeadAttention  # noqa: E402
from tools.running import notebooks  # noqa: E402

SNIPPET = ROOT / "snippets" / "many_heads" / "duplicate_heads" / "dropout_premise.py"
DEFINITIONS = {"setup", "heads", "counter", "drophead", "heads_minilm"}   # no counting runs


@functools.lru_cache(maxsize=None)
def cells() -> dict:
    return notebooks.run_tagged(SNIPPET, DEFINITIONS)


def test_the_counter_finds_exactly_the_head_that_is_zero_everywhere():
    c = cells()
    torch.manual_seed(0)
    heads = torch.randn(3, 4, 5, 2)                                 # (B, nh, T, hs)
    heads[1, 2] = 0                                                 # sequence 1, head 2: all positions
    heads[0, 0, :4] = 0                                             # sequence 0, head 0: all but one
    heads[2, 1, :, 0] = 0                                           # sequence 2, head 1: one coordinate
    zero = c["whole_head_zero"](heads)                              # (B, nh)
    assert zero.nonzero().tolist() == [[1, 2]]
    assert c["passes_with_a_zero_head"](heads) == 1
    heads[2, 3] = 0
    assert c["passes_with_a_zero_head"](heads) == 2


def test_the_heads_read_from_torch_are_the_layers_own_under_dropout():
    c = cells()
    torch.manual_seed(1)
    layer = torch.nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True).train()
    x = torch.randn(3, 6, 8)                                        # (B, T, C)
    with torch.no_grad():
        output, heads, weights = c["head_outputs"](layer, x, c["values"](layer, x))
        assert heads.shape == (3, 2, 6, 4)
        assert (weights == 0).any()                                 # dropout did act
        assert torch.allclose(layer.out_proj(c["concat_heads"](heads)), output, atol=1e-6)


def test_drophead_zeroes_whole_heads_and_scales_the_rest():
    c = cells()
    torch.manual_seed(2)
    heads = torch.randn(2000, 4, 3, 2) + 5                          # never zero by chance
    dropped = c["drop_head"](heads, 0.25)
    zero = c["whole_head_zero"](dropped)                            # (B, nh)
    kept = ~zero
    assert torch.allclose(dropped[kept], heads[kept] / 0.75)
    # 8,000 independent heads at p = 0.25: the share lies within 5 standard errors.
    assert abs(zero.float().mean().item() - 0.25) < 5 * (0.25 * 0.75 / 8000) ** 0.5
    assert c["whole_head_zero"](c["drop_head"](heads, 0.0)).sum() == 0


def test_minilms_heads_in_training_are_the_modules_heads_without_dropout():
    c = cells()
    torch.manual_seed(3)
    attention = MultiHeadAttention(AttentionConfig(d_model=8, n_heads=2, bias=True)).eval()
    x = torch.randn(1, 5, 8)                                        # (1, T, C)
    with torch.no_grad():
        heads, dropped = c["heads_in_training"](attention, x, 0.0, 3)   # p = 0: no mask
        assert heads.shape == (3, 2, 5, 4) and torch.allclose(dropped.sum(-1), torch.ones(3, 2, 5))
        concat = heads.transpose(1, 2).reshape(3, 5, 8)
        assert torch.allclose(attention.W_O(concat), attention(x).expand(3, -1, -1), atol=1e-6)
        heads, dropped = c["heads_in_training"](attention, x, 0.5, 200)
        assert not torch.equal(dropped[0], dropped[1])                  # each pass its own mask
        assert set(torch.unique(dropped[dropped != 0] / attention.last_weights.expand(200, -1, -1, -1)[dropped != 0]
                                ).round(decimals=4).tolist()) == {2.0}   # kept weights scaled by 1/(1-p)


def test_the_recorded_counts_are_shares_of_the_passes_run(results):
    r = results("many_heads.duplicate_heads.dropout_premise")
    assert r.number("n_passes_torch") == r.number("n_passes_minilm") == 10_000
    assert r.number("min_tokens_minilm") >= 8 and r.number("tokens_torch") >= 8
    for key in ("whole_head_zero_share_torch", "whole_head_zero_share_minilm", "zeroed_weight_share_torch",
                "zeroed_weight_share_minilm", "drophead_head_zero_share", "drophead_whole_head_zero_share"):
        assert 0 <= r.number(key) <= 1, key
    # Passes with some head zero are at least as many as the zero heads' share per head.
    assert r.number("drophead_whole_head_zero_share") >= r.number("drophead_head_zero_share")
    assert r.number("rebuild_error_torch") < 1e-5                    # the heads are the layer's
    assert abs(r.number("drophead_expected_share") - (1 - 0.9 ** 8)) < 1e-9
