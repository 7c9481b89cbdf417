"""Why heads differ (1), C09: heads that start identical stay identical; random starts differ.
The computations behind the numbers; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import pytest  # noqa: E402
import torch  # noqa: E402

from explainer.batched import StackedTransformer, train_batched  # noqa: E402
from explainer.first_and_previous import T, V, near_and_far  # noqa: E402
from explainer.tiny_transformer import TransformerConfig  # noqa: E402


def gap(model) -> torch.Tensor:
    heads = model.head_parameters()                                    # (M, nh, P)
    return (heads[:, 1] - heads[:, 0]).abs().amax(dim=-1)              # (M,)


def test_the_training_loop_keeps_copied_heads_bit_identical_and_lets_a_nudge_grow():
    # The symmetry C09 rests on, checked on the project's own batched trainer: a copy of
    # head 0 in head 1 gets the same gradient at every step (gap exactly 0), while the same
    # copy nudged by 1e-6 moves on. A trainer that mixed the heads, or a gap measure
    # that could not see a difference, fails here.
    torch.set_num_threads(1)
    config = TransformerConfig(vocab_size=V, n_ctx=T, d_model=16, n_heads=2)
    model = StackedTransformer.from_seeds(config, [0, 0])
    hs = model.head_size
    with torch.no_grad():
        for name in ("W_Q", "W_K", "W_V"):
            weight = getattr(model, name)
            weight[:, hs:2 * hs] = weight[:, :hs]
            weight[1, hs:2 * hs] += 1e-6 * torch.randn(hs, weight.shape[-1], generator=torch.Generator().manual_seed(0))
        model.W_O[:, :, hs:2 * hs] = model.W_O[:, :, :hs]
    start = gap(model)
    train_batched(model, near_and_far, steps=40, batch_size=16, data_seeds=[0, 0])
    end = gap(model)
    assert start[0] == 0 and end[0] == 0
    assert 0 < start[1] < 1e-5 and end[1] > 0 and end[1] != start[1]


def test_the_recorded_counts_follow_from_the_recorded_gaps_and_similarities(results):
    r = results("many_heads.why_heads_differ.head_symmetry")
    stays = r.per_seed("identical_stay_seeds")
    assert (r.number("identical_max_gap") == 0) == all(stays)
    for arm in ("identical", "nudged", "random", "identical_dropout"):
        similarity = r.per_seed(f"{arm}_similarity_mean")
        assert r.per_seed(f"{arm}_differ_seeds") == [float(s < 0.9) for s in similarity], arm
    assert r.number("nudged_start_gap") < 1e-5                          # the nudge as applied


def test_two_identical_heads_are_one_head_doubled(results):
    # Same computation in both heads, so dropping one and doubling the other's slice of
    # W^O gives the same output up to float32 rounding.
    assert results("many_heads.why_heads_differ.head_symmetry").number("one_head_error") < 1e-4


def test_the_exercise_answer_is_a_relative_change(results):
    # ||two heads - one doubled head|| / ||two heads||: not negative; and for the identical
    # pair the same replacement moves the output only by rounding.
    r = results("many_heads.why_heads_differ.head_symmetry")
    assert r.number("exercise_random_one_head_change") >= 0


def test_view_similarity_reads_only_the_rows_asked_for():
    from explainer.entity_pull import view_similarity
    from explainer.head_metrics import pattern_similarity
    # Identical heads: 1 at any rows. Every row as a query: the pattern similarity itself.
    weights = torch.rand(3, 2, 5, 5, generator=torch.Generator().manual_seed(0)).tril()  # (B, nh, T, S), causal
    weights = weights / weights.sum(-1, keepdim=True)
    same = weights[:, :1].expand(3, 2, 5, 5)
    assert torch.allclose(view_similarity(same, torch.tensor([[4, 1]] * 3)), torch.ones(2, 2))
    every = torch.arange(5).expand(3, 5)
    assert torch.allclose(view_similarity(weights, every), pattern_similarity(weights), atol=1e-6)
    # Two heads that differ in one row of 14 only, and there completely (one-hot on different
    # keys): over all rows the similarity is 1 − 1/14 ≈ 0.93; at that row, 0.
    length = 14
    rows = torch.eye(length).repeat(1, 2, 1, 1)                          # (B=1, nh=2, T, S): each row on itself
    rows[0, 1, 9] = torch.nn.functional.one_hot(torch.tensor(3), length).float()
    assert abs(pattern_similarity(rows)[0, 1].item() - (1 - 1 / length)) < 1e-6
    assert view_similarity(rows, torch.tensor([[9]]))[0, 1].item() == 0.0
    assert view_similarity(rows, torch.tensor([[9, 2, 5]]))[0, 1].item() == pytest.approx(2 / 3)


def test_the_recorded_view_and_long_counts_follow_from_their_per_seed_similarities(results):
    r = results("many_heads.why_heads_differ.head_symmetry")
    for count, similarity in (("random_differ_view_seeds", "random_view_similarity_mean"),
                              ("random_differ_long_seeds", "random_long_similarity_mean"),
                              ("random_differ_view_long_seeds", "random_view_long_similarity_mean")):
        assert r.per_seed(count) == [float(s < 0.9) for s in r.per_seed(similarity)], count
    assert len(r.per_seed("random_long_accuracy_mean")) == r.number("n_seeds")
    assert r.number("steps_long") > 0
