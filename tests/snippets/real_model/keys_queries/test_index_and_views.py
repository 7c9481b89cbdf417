"""Keys, queries and values in MiniLM (2), C18: an index and its views.
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.head_vectors import head_vectors  # noqa: E402
from explainer.minilm import MiniLM  # noqa: E402


def test_head_vectors_split_each_projection_into_consecutive_head_slices():
    # head h's query is columns h*hs .. (h+1)*hs of W_Q x: the split attention uses
    model = MiniLM.from_pretrained()
    H, hs = model.config.n_heads, model.config.d_model // model.config.n_heads
    x = torch.randn(5, model.config.d_model, generator=torch.Generator().manual_seed(0))
    vectors = head_vectors(model, x, 2)
    attention = model.layers[2].attention
    with torch.no_grad():
        for name in ("Q", "K", "V"):
            full = getattr(attention, f"W_{name}")(x)                   # (5, C)
            assert vectors[name].shape == (5, H, hs)
            for h in (0, H - 1):
                assert torch.equal(vectors[name][:, h], full[:, h * hs:(h + 1) * hs])


def test_the_head_counts_are_counts_of_the_72_heads(results):
    r = results("real_model.keys_queries.index_and_views")
    heads = r.number("n_heads")
    assert heads == 6 * 12
    for key in ("c18_b_heads", "c18_share_heads", "c18_carry_heads", "c18_spread_heads",
                "c18_key_only_heads", "c18_sink_top_heads", "c18_heads_above_floor"):
        assert 0 <= r.number(key) <= heads, key
    # (b) needs both halves: a head where it holds counts in each
    assert r.number("c18_b_heads") <= min(r.number("c18_share_heads"), r.number("c18_carry_heads"))
    assert r.number("c18_b_heads_above_floor") <= min(r.number("c18_b_heads"), r.number("c18_heads_above_floor"))
    # a head counts among the views only once: at most one per role group
    assert 0 <= r.number("c18_views") <= 3
    for role in ("agent", "object", "tool", "manner"):
        assert 1 <= r.number(f"c18_{role}_best_layer") <= 6 and 1 <= r.number(f"c18_{role}_best_head") <= 12
        assert 0 <= r.number(f"c18_{role}_heads") <= heads
