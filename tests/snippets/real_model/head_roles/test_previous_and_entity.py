"""C07 in MiniLM: a previous-token head and an entity head in one layer. The counts nest as
their definitions say, whatever the outcome; the verdict is the rule's."""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
from explainer.head_picks import top_among  # noqa: E402
from explainer.max_statistic import top_pick_max_statistic  # noqa: E402
from explainer.planted_heads import planted_top_picks  # noqa: E402

LAYERS, HEADS = 6, 72          # MiniLM: 6 layers x 12 heads


def test_c07_split_layers_need_a_head_of_each_role(results):
    r = results("real_model.head_roles.previous_and_entity")
    for role in ("previous_token", "entity"):
        assert 0 <= r.number(f"c07_{role}_clear_heads") <= r.number(f"c07_{role}_heads") \
            <= r.number(f"c07_{role}_possible_heads") <= HEADS
    layers = [r.number(f"c07_minilm_split_layers{k}") for k in ("_clear", "", "_possible")]
    assert layers == sorted(layers) and layers[-1] <= LAYERS
    if layers[1] >= 1:
        assert r.number("c07_previous_token_heads") >= 1 and r.number("c07_entity_heads") >= 1


def test_a_planted_head_picks_the_target_exactly_in_the_chosen_rows():
    rows = torch.softmax(torch.randn(30, 8, generator=torch.Generator().manual_seed(0)), dim=-1)
    targets = np.arange(30) % 8
    rows[::3, :] = 0.0
    rows[np.arange(0, 30, 3), targets[::3]] = 1.0          # the head's own top pick is the target in every third row
    allowed = [list(range(8))] * 30
    chosen = np.random.default_rng(2).random(30) < 0.5
    top = planted_top_picks(rows, allowed, chosen, targets)
    assert ((top == targets) == chosen).all()
    own = top_among(rows[:, None, :], allowed)[:, 0]
    kept = ~chosen & (own != targets)
    assert (top[kept] == own[kept]).all()                  # elsewhere its own top pick


def test_a_head_planted_in_every_row_is_found_and_one_in_no_row_is_not():
    rng = np.random.default_rng(0)
    n, heads, S = 48, 6, 10
    rows = torch.softmax(torch.randn(n, heads, S, generator=torch.Generator().manual_seed(1)), dim=-1)
    targets, allowed = rng.integers(S, size=n), [list(range(S))] * n
    for share, found in ((1.0, True), (0.0, False)):
        top = top_among(rows, allowed)
        top[:, 2] = planted_top_picks(rows[:, 2], allowed, np.full(n, share == 1.0), targets)
        hits, p = top_pick_max_statistic(top, targets, allowed, n_draws=500, seed=3)
        assert hits[2] == (n if found else 0) and (p[2] < 0.05) == found
