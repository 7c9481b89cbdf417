"""explainer/head_metrics.py and the near-and-far model: known answers on hand-made weights."""

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
from explainer.first_and_previous import D_MODEL, T, V, one_layer  # noqa: E402
from explainer.head_metrics import first_token_score, per_head, previous_token_score, takes_role  # noqa: E402


def one_hot_rows(keys: list[int]) -> torch.Tensor:
    """Weights (T, T) whose query t puts all its weight on key keys[t]."""
    return torch.eye(len(keys))[keys]


def test_scores_of_pure_heads():
    previous = one_hot_rows([0] + list(range(T - 1)))           # t looks at t - 1
    first = one_hot_rows([0] * T)                               # every query looks at 0
    weights = torch.stack([previous, first])[None]              # (B=1, nh=2, T, T)
    assert previous_token_score(weights).tolist() == pytest.approx([1.0, 1 / (T - 1)])
    assert first_token_score(weights).tolist() == pytest.approx([1 / (T - 1), 1.0])


def test_per_head_stacks_one_score_per_seed_and_head():
    previous = one_hot_rows([0] + list(range(T - 1)))
    first = one_hot_rows([0] * T)
    seed_a = torch.stack([previous, first])[None]               # (1, 2, T, T)
    seed_b = torch.stack([first, previous])[None]
    scores = per_head(previous_token_score, torch.stack([seed_a, seed_b]))   # (S=2, nh=2)
    assert scores.shape == (2, 2)
    assert torch.equal(scores[0], previous_token_score(seed_a)) and torch.equal(scores[1], previous_token_score(seed_b))
    assert scores.tolist() == [pytest.approx([1.0, 1 / (T - 1)]), pytest.approx([1 / (T - 1), 1.0])]


def test_takes_role_needs_the_target_as_top_pick_often_and_beyond_chance():
    previous = one_hot_rows([0] + list(range(T - 1)))           # t looks at t - 1
    first = one_hot_rows([0] * T)                               # every query looks at 0
    weights = torch.stack([previous, first])[None].repeat(8, 1, 1, 1)   # (B=8, nh=2, T, T)
    rows = torch.arange(8)
    queries = torch.full((8,), T - 1)                           # the last query of each row
    roles, shares = takes_role(weights, rows, queries, queries - 1, share_bar=0.5, alpha=0.05)
    assert shares.tolist() == [1.0, 0.0]                        # head 0 always picks t - 1
    assert roles.tolist() == [True, False]
    roles, _ = takes_role(weights, rows, queries, queries - 1, share_bar=0.5, alpha=1e-9)
    assert roles.tolist() == [False, False]                     # no permutation p is that small
    roles, _ = takes_role(weights, rows, queries, torch.zeros(8, dtype=torch.long), share_bar=0.5, alpha=0.05)
    assert roles.tolist() == [False, True]                      # the target is key 0: head 1's pick


def test_one_layer_splits_the_width_into_heads_and_keeps_each_seed():
    model = one_layer(4, [0, 1], vocab_out=V * V)
    assert model.W_Q.shape[:2] == (2, 1)                        # a copy per seed, one layer
    assert model.W_Q.shape[-1] == D_MODEL                       # one layer of width 32
    assert model.config.n_heads == 4 and model.config.n_layers == 1
    assert model.config.vocab_size == V * V
    again = one_layer(4, [1], vocab_out=V * V)                  # seed 1 alone: the same draw
    assert torch.equal(again.W_Q[0], model.W_Q[1])
