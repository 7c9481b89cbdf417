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


# ------------------------------------------------------------ C18 (a)'s size, margin and G1 check

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from explainer import role_margins as M  # noqa: E402


def test_the_position_rules_are_every_offset_and_the_nearest_content_word():
    targets, verbs = np.array([3, 5, 2, 6]), np.array([2, 2, 4, 4])       # offsets +1, +3, -2, +2
    rules = M.position_rules(targets, verbs, [True, False, False, True])
    assert rules.shape == (4, 5)                                           # offsets -2, 1, 2, 3; nearest
    assert rules.sum(axis=0).tolist() == [1, 1, 1, 1, 2]
    assert rules.mean(axis=0).max() == 0.5                                 # the size s_r: the nearest word


def test_the_upper_end_of_share_minus_size_on_one_draw_of_everything_is_their_difference():
    hits = np.array([[1, 0], [1, 0], [0, 1], [1, 0]], dtype=bool)          # 4 sentences, 2 heads
    rules = np.array([[1, 0], [0, 1], [0, 1], [0, 0]], dtype=bool)         # the best rule: half of them
    counts = M.item_counts(np.array([[0, 1, 2, 3]]), 4)
    assert M.margin_upper_ends(hits, rules, counts).tolist() == pytest.approx([0.25, -0.25])
    # drawing sentence 0 four times: head 0 always, the first rule always
    counts = M.item_counts(np.array([[0, 0, 0, 0]]), 4)
    assert M.margin_upper_ends(hits, rules, counts).tolist() == pytest.approx([0.0, -1.0])


def test_reaching_views_group_object_and_tool_and_order_best_first():
    upper = {"agent": np.array([0.1, -0.2, 0.0]), "object": np.array([-0.1, 0.2, -0.3]),
             "tool": np.array([-0.1, -0.2, 0.3]), "manner": np.array([-0.5, -0.5, -0.5])}
    assert M.reaching_views(upper) == {"agent": [0, 2], "object_or_tool": [2, 1], "manner": []}


def test_cluster_rates_keep_the_spread_and_hit_the_mean():
    rates = M.cluster_rates([0.1, 0.2, 0.3], 0.4)                          # no clipping: shifted by 0.2
    assert rates == pytest.approx([0.3, 0.4, 0.5])
    clipped = M.cluster_rates([0.0, 0.0, 0.9], 0.5)
    assert clipped.mean() == pytest.approx(0.5) and clipped.max() == 1.0


def test_planting_only_in_free_sentences_keeps_each_clusters_expected_share():
    clusters, free = np.array([0, 0, 0, 0, 1, 1, 1, 1]), np.array([1, 1, 0, 0, 1, 1, 1, 1], dtype=bool)
    p = M.sentence_probabilities([0.25, 0.5], clusters, free)
    assert p.tolist() == [0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]          # expected hits: a quarter, a half
    assert M.sentence_probabilities([0.75, 0.5], clusters, free) is None   # 3 hits in 2 free sentences
    rows = M.padded_rows([torch.ones(2, 3), torch.ones(2, 5)])
    assert rows.shape == (2, 2, 5) and rows[0, :, 3:].abs().sum() == 0


def _planted(bar: float, sinks: bool):
    """A toy: 4 heads, 40 sentences of 6 tokens in 4 clusters, roles at fixed positions; no head
    picks a role (all pick token 0), and the best position rule finds each role in half of them."""
    n, heads = 40, 4
    clusters = np.arange(n) % 4
    targets = {"agent": np.full(n, 1), "object": np.full(n, 2), "tool": np.full(n, 3), "manner": np.full(n, 4)}
    rules = {role: (np.arange(n) % 2 == 0)[:, None] for role in targets}  # one rule, right in half
    top = np.zeros((n, heads), dtype=int)
    rows = torch.full((n, heads, 6), 0.1)
    rows[:, :, 0] = 0.5                                                    # own top pick: token 0
    hits = {role: top == targets[role][:, None] for role in targets}
    counts = M.item_counts(np.random.default_rng(0).integers(0, n, size=(200, n)), n)
    upper = {role: M.margin_upper_ends(hits[role], rules[role], counts) for role in targets}
    sink = np.full((n, heads), sinks)
    from explainer.logit_features import distinct_heads
    return M.planted_detection(top, rows, [list(range(6))] * n, targets, hits, rules,
                               {role: bar for role in targets}, clusters, sink, counts, upper, set(),
                               draws=10, rng=np.random.default_rng(1), distinct=distinct_heads)


def test_two_views_planted_in_every_sentence_are_seen_and_none_planted_are_not():
    assert _planted(1.0, sinks=False) == (1.0, 0, {"agent": 4, "object": 4, "tool": 4, "manner": 4})
    assert _planted(0.0, sinks=False)[:2] == (0.0, 0)
    # heads whose top pick is always a sink cannot carry a plant: every draw unplantable, unseen
    assert _planted(0.5, sinks=True) == (0.0, 10, {"agent": 0, "object": 0, "tool": 0, "manner": 0})


def test_the_margin_numbers_nest(results):
    r = results("real_model.keys_queries.index_and_views")
    assert 0 <= r.number("c18_reaching_views") <= 3 and 0 <= r.number("c18_views") <= 3
    for role in ("agent", "object", "tool", "manner"):
        assert 0 <= r.number(f"c18_{role}_position_bar") <= 0.5                # the design's guarantee
        assert r.number(f"c18_{role}_sized_heads") <= r.number(f"c18_{role}_heads")
    assert 0 <= r.number("c18_planted_unplantable") <= r.number("c18_planted_draws")
    assert r.number("c18_planted_detection_share") <= 1 - r.number("c18_planted_unplantable") / r.number("c18_planted_draws")
