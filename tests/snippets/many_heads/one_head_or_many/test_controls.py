"""One head or many (2), C08's controls (many_heads.one_head_or_many.controls): a token taken
out of every head's view (explainer/token_knockout.py), the planted single head, the single
heads trained twice as long; the verdict is the rule's (docs/claims.yml)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import numpy as np  # noqa: E402


def test_key_mask_removes_exactly_the_named_keys():
    import torch
    from explainer.token_knockout import key_mask

    mask = key_mask(1, 4, torch.tensor([2, 3]), torch.tensor([1, 2]))      # every sequence alike
    assert mask.shape == (1, 1, 4, 4)
    assert mask.nonzero().tolist() == [[0, 0, 2, 1], [0, 0, 3, 2]]
    mask = key_mask(2, 5, torch.tensor([[4], [3]]), torch.tensor([[0], [2]]))   # one pair per sequence
    assert mask.shape == (1, 2, 5, 5)
    assert mask.nonzero().tolist() == [[0, 0, 4, 0], [0, 1, 3, 2]]


def test_a_removed_key_gets_no_weight_and_an_empty_mask_changes_nothing():
    import torch
    from explainer.batched import SeededTransformer
    from explainer.tiny_transformer import TransformerConfig
    from explainer.token_knockout import correct_at, key_mask, logits_without

    model = SeededTransformer(TransformerConfig(vocab_size=10, n_ctx=6, d_model=8, n_heads=2, n_layers=1,
                                                d_mlp=16), [0, 1])
    tokens = torch.randint(10, (3, 6), generator=torch.Generator().manual_seed(0))
    queries = torch.arange(2, 6)
    removed = key_mask(3, 6, queries, queries - 1)
    with torch.no_grad():
        model.eval()
        plain = model(tokens)
        assert torch.equal(logits_without(model, tokens, torch.zeros_like(removed)), plain)
        knocked = logits_without(model, tokens, removed)
        assert model.removed_keys is None                                 # only for that pass
        weights = model.attention_weights()[0]                            # (S, B, nh, T, T)
    assert weights[:, :, :, queries, queries - 1].abs().max() == 0
    assert torch.allclose(weights.sum(dim=-1), torch.ones(()), atol=1e-6)   # rows renormalised
    assert torch.equal(knocked[:, :, :2], plain[:, :, :2])               # one layer: other rows untouched
    targets = plain.argmax(-1)[0]                                         # seed 0's own answers
    assert correct_at(model, tokens, targets)[0].all()


def test_the_mixing_share_gives_the_planted_level_and_is_clipped():
    import torch
    from explainer.token_knockout import mixing_share

    share = mixing_share(torch.tensor([1.0, 0.9, 0.7, 0.9]), torch.tensor([0.2, 0.4, 0.1, 0.9]), 0.8)
    assert torch.allclose(share, torch.tensor([0.25, 0.2, 0.0, 1.0]))
    # the expected accuracy of the mixture is the level where the share is not clipped
    a2, knocked = torch.tensor([1.0, 0.9]), torch.tensor([0.2, 0.4])
    mixed = (1 - mixing_share(a2, knocked, 0.8)) * a2 + mixing_share(a2, knocked, 0.8) * knocked
    assert torch.allclose(mixed, torch.tensor([0.8, 0.8]))
    assert mixing_share(torch.tensor([0.8]), torch.tensor([0.8]), 0.8).item() == 0   # undefined: 0


def test_the_planted_head_answers_each_sequence_intact_or_knocked_out_by_its_seeds_draw():
    import torch
    from explainer.token_knockout import planted_accuracy

    B, T = 6, 3
    scored = torch.ones(B, T, dtype=torch.bool)
    intact = torch.ones(2, B, T, dtype=torch.bool)
    knocked = torch.zeros(2, B, T, dtype=torch.bool)
    assert planted_accuracy(intact, knocked, scored, torch.tensor([0.0, 0.0]), [0, 1]).tolist() == [1.0, 1.0]
    assert planted_accuracy(intact, knocked, scored, torch.tensor([1.0, 1.0]), [0, 1]).tolist() == [0.0, 0.0]
    out = torch.rand(B, generator=torch.Generator().manual_seed(1000 + 7)) < 0.5   # seed 7's draw
    expected = 1 - out.float().mean()
    assert planted_accuracy(intact[:1], knocked[:1], scored, torch.tensor([0.5]), [7]).item() == expected.item()


def test_c08s_counts_are_the_per_seed_comparisons_they_describe(results):
    # The 1- and 2-head runs are one_head_or_many's: the counts here, recomputed from its
    # per-seed values, also check that this snippet trained the same models again.
    tested, r = results("many_heads.one_head_or_many"), results("many_heads.one_head_or_many.controls")
    v = {key: np.float32(tested.per_seed(key)) for key in (
        "accuracy_1_mean", "accuracy_2_mean", "pair_accuracy_1_mean", "pair_accuracy_2_mean",
        "single_previous_mean", "single_first_mean", "pair_previous_mean", "pair_first_mean")}
    v.update({key: np.float32(r.per_seed(key)) for key in (
        "accuracy_1_long_mean", "pair_accuracy_1_long_mean", "sum_two_at_control_mean",
        "sum_without_previous_mean", "sum_without_first_mean", "pair_two_at_control_mean",
        "pair_without_previous_mean", "pair_without_first_mean")})
    f = np.float32
    for task, one, two, prev, first, long in (
            ("sum", "accuracy_1_mean", "accuracy_2_mean", "single_previous_mean", "single_first_mean",
             "accuracy_1_long_mean"),
            ("pair", "pair_accuracy_1_mean", "pair_accuracy_2_mean", "pair_previous_mean", "pair_first_mean",
             "pair_accuracy_1_long_mean")):
        fails = (v[one] < f(0.8)) & (v[two] >= f(0.95)) & (v[prev] >= f(0.3)) & (v[first] >= f(0.3)) \
            & (v[long] < f(0.8))
        assert r.per_seed(f"{task}_single_fails_seeds") == fails.astype(float).tolist(), task
        no_cost = v[one] >= v[two] - f(0.01)
        assert r.per_seed(f"{task}_no_cost_seeds") == no_cost.astype(float).tolist(), task
        both = (v[f"{task}_two_at_control_mean"] >= f(0.95)) & (v[f"{task}_without_previous_mean"] < f(0.8)) \
            & (v[f"{task}_without_first_mean"] < f(0.8))
        assert r.per_seed(f"{task}_needs_both_seeds") == both.astype(float).tolist(), task


def test_the_planted_share_is_the_least_over_the_tasks_whose_control_passes(results):
    r = results("many_heads.one_head_or_many.controls")
    n = r.number("n_seeds")
    shares = [r.number(f"{task}_planted_detected_seeds") / n for task in ("sum", "pair")
              if sum(r.per_seed(f"{task}_needs_both_seeds")) >= 0.75 * n]
    assert r.number("c08_planted_detection_share") == min(shares, default=1.0)
    for task in ("sum", "pair"):
        assert 0 <= r.number(f"{task}_planted_detected_seeds") <= n


def test_the_long_single_head_runs_train_twice_the_steps_and_score_shares(results):
    r = results("many_heads.one_head_or_many.controls")
    assert r.number("steps_long") == 2 * 400 and r.number("pair_steps_long") == 2 * 200   # the snippet's STEPS, PAIR_STEPS
    for key in ("accuracy_1_long_mean", "pair_accuracy_1_long_mean", "sum_without_previous_mean",
                "sum_without_first_mean", "pair_without_previous_mean", "pair_without_first_mean"):
        assert all(0 <= v <= 1 for v in r.per_seed(key)), key
    assert max(r.per_seed("accuracy_1_long_mean")) == r.number("accuracy_1_long_max")
