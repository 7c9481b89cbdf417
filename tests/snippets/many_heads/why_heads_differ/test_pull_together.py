"""Why heads differ (3), C10: does a near-orthogonal start make it costly for training to make two
heads the same, and do free heads grow alike? The computations behind the numbers; the verdict is
the rule's (docs/claims.yml)."""

import pytest
import torch

from explainer.batched import StackedTransformer
from explainer.censored import at_least_twice, median_steps
from explainer.head_pull import bilinear_forms, form_cosine
from explainer.tiny_transformer import TransformerConfig


def test_a_censored_median_ranks_unfinished_runs_last_and_is_unknown_when_the_middle_is():
    # Known answers: finished runs 100, 300 and an unfinished one -> the median is 300, not
    # the budget averaged in; two of four unfinished -> a middle run is unfinished: unknown.
    assert median_steps([100, 300, 50], [True, True, False]) == 300
    assert median_steps([100, 300, 200, 400], [True, True, True, True]) == 250
    assert median_steps([100, 300, 50, 60], [True, True, False, False]) is None
    assert median_steps([7], [False]) is None


def test_at_least_twice_counts_a_censored_run_only_when_it_surely_is():
    budget = 1200
    # Finished runs compare their own steps; an unfinished run needed more than the budget,
    # so it is at least twice a median of at most budget / 2, and cannot be told above that.
    assert at_least_twice([600, 599, 5], [True, True, False], 300, budget) == [True, False, True]
    assert at_least_twice([5, 5], [False, False], 600, budget) == [True, True]
    assert at_least_twice([5, 1300], [False, True], 601, budget) == [False, True]
    assert at_least_twice([900, 5], [True, False], None, budget) == [False, False]


def hand_made(models: int = 2) -> StackedTransformer:
    """Two 2-head models, d_model 4 (head size 2), every weight zero until a test sets it."""
    config = TransformerConfig(vocab_size=3, n_ctx=2, d_model=4, n_heads=2)
    return StackedTransformer(config, models)


def test_a_heads_bilinear_form_gives_its_attention_scores():
    torch.manual_seed(0)
    model = hand_made()
    with torch.no_grad():
        model.W_Q.normal_()
        model.W_K.normal_()
    x, y = torch.randn(4), torch.randn(4)
    forms = bilinear_forms(model).view(2, 2, 4, 4)                  # (M, nh, C, C)
    for m in range(2):
        for h in range(2):
            rows = slice(2 * h, 2 * h + 2)      # head h's rows of W_Q and W_K (nn.Linear layout)
            q, k = model.W_Q[m, rows] @ x, model.W_K[m, rows] @ y                # (hs,) each
            assert torch.allclose(x @ forms[m, h] @ y, q @ k, atol=1e-5)


def test_the_form_cosine_of_hand_made_heads():
    model = hand_made()
    e = torch.eye(4)
    with torch.no_grad():
        # Model 0: head 0 matches e0 to e1; head 1 the same form written with other rows
        # (W_Q -> A W_Q, W_K -> A^-T W_K leaves W_Q^T W_K as it is): cosine 1.
        A = torch.tensor([[2.0, 1.0], [0.0, 0.5]])
        model.W_Q[0, 0:2] = torch.stack([e[0], e[2]])
        model.W_K[0, 0:2] = torch.stack([e[1], e[3]])
        model.W_Q[0, 2:4] = A @ model.W_Q[0, 0:2]
        model.W_K[0, 2:4] = torch.linalg.inv(A).T @ model.W_K[0, 0:2]
        # Model 1: head 0 the opposite form of model 0's head 0, head 1 a form on other coordinates.
        model.W_Q[1, 0:2] = torch.stack([e[0], e[2]])
        model.W_K[1, 0:2] = -torch.stack([e[1], e[3]])
        model.W_Q[1, 2:4] = torch.stack([e[1], e[1]])
        model.W_K[1, 2:4] = torch.stack([e[0], e[0]])
    same_model = form_cosine(model, (torch.tensor([0, 1]), 0), (torch.tensor([0, 1]), 1))
    assert torch.allclose(same_model, torch.tensor([1.0, 0.0]), atol=1e-6)
    # Across models, as the null pairs them: head 0 of one model with head 1 of another.
    across = form_cosine(model, (torch.tensor([0, 1]), 0), (torch.tensor([1, 0]), 1))
    assert torch.allclose(across, torch.tensor([0.0, -1.0]), atol=1e-6)
    # The heads' whole parameter vectors in model 0 are not alike, though their forms are equal.
    heads = model.head_parameters()[0]                                           # (nh, P)
    assert torch.cosine_similarity(heads[0], heads[1], dim=0) < 0.99


def test_counts_over_seeds_are_recomputed_from_their_per_seed_values(results):
    r = results("many_heads.why_heads_differ.pull_together")
    n = int(r.number("n_seeds"))
    for key in ("orthogonal_twice_seeds", "orthogonal_slower_seeds", "free_rise_above_seeds", "planted_reachable_seeds",
                "planted_detected_seeds", "reached_orthogonal_seeds", "reached_aligned_seeds"):
        assert r.number(key) == sum(r.per_seed(key))
    # A seed's free heads rise above when their statistic exceeds the null's 95th percentile;
    # a planted pull is detected by the same comparison.
    p95 = r.number("null_p95")
    assert [float(c > p95) for c in r.per_seed("free_form_cos_abs_max_max")] == r.per_seed("free_rise_above_seeds")
    assert [float(c > p95) for c in r.per_seed("planted_form_cos_abs_max_max")] == r.per_seed("planted_detected_seeds")
    assert r.number("planted_detection_rate") == pytest.approx(r.number("planted_detected_seeds") / n)
    # The planted target is twice the null's 95th percentile, which lies within the null's range.
    assert r.number("planted_target") == pytest.approx(2 * p95)
    # Whether a pull can end at the target is one fact, the same for every seed.
    assert r.per_seed("planted_reachable_seeds") == [float(r.number("planted_target") < 1)] * n
    assert r.number("null_pairs") == 2 * n
    assert r.number("null_form_cos_abs_max_min") <= p95 <= r.number("null_form_cos_abs_max_max")
    # A statistic is a largest |cos| over the steps: at least the |cos| at the last step.
    for largest, end in ((r.per_seed("free_form_cos_abs_max_max"), r.per_seed("free_form_cos_end_max")),
                         (r.per_seed("planted_form_cos_abs_max_max"), r.per_seed("planted_form_cos_end_max"))):
        assert all(0 <= abs(e) <= m <= 1 + 1e-6 for m, e in zip(largest, end))
    # A run counted at least twice the aligned median, or slower than its own aligned run,
    # cannot be one whose aligned median is unknown.
    if r.number("steps_aligned_median_known") == 0:
        assert r.number("orthogonal_twice_seeds") == 0
