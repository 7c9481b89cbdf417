"""Source A's backups / noise smoothing (C25) on the heads the C37 yardstick removes from a
trained 16-head model. The computations behind the numbers; the verdicts are the rules'."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "snippets"))
import explainer  # noqa: E402, F401 — first: it pins torch's CPU kernels
import torch  # noqa: E402

from explainer.residuals import above_reference, fit, residuals  # noqa: E402


def test_the_fit_recovers_exact_linear_data_and_leaves_zero_residuals():
    # two seeds, y = a + b * clean + c * size exactly: the fit gives a, b, c, the residuals are 0
    generator = torch.Generator().manual_seed(0)
    x = torch.stack([torch.rand(2, 50, generator=generator),
                     torch.randint(1, 16, (2, 50), generator=generator).float()], dim=2)   # (2, 50, 2)
    truth = torch.tensor([[0.1, -0.5, 0.02], [-0.3, 2.0, -0.01]], dtype=torch.float64)
    y = truth[:, :1] + (x.double() * truth[:, None, 1:]).sum(dim=2)
    coefficients = fit(y, x)
    assert torch.allclose(coefficients, truth, atol=1e-10)
    assert residuals(y, x, coefficients).abs().max() < 1e-10
    # a target on the same line: residual 0, not above the reference's 95th percentile (0 as well)
    test = above_reference(y[:, 0], x[:, 0], y, x)
    assert test["residual"].abs().max() < 1e-10 and not test["above"].any()


def test_a_target_far_above_the_fit_is_flagged_and_one_below_is_not():
    generator = torch.Generator().manual_seed(1)
    x = torch.stack([torch.rand(1, 200, generator=generator),
                     torch.randint(1, 16, (1, 200), generator=generator).float()], dim=2)  # (1, 200, 2)
    noise = 0.01 * torch.randn(1, 200, generator=generator)
    y = 0.2 - 0.4 * x[..., 0] + 0.01 * x[..., 1] + noise
    x_target = torch.tensor([[0.05, 8.0]])
    on_the_line = 0.2 - 0.4 * 0.05 + 0.01 * 8
    high = above_reference(torch.tensor([on_the_line + 0.1]), x_target, y, x)   # 10 noise sd above
    low = above_reference(torch.tensor([on_the_line - 0.1]), x_target, y, x)
    assert high["above"].all() and not low["above"].any()
    assert abs(high["residual"].item() - 0.1) < 0.01
    # the threshold is the 95th percentile of the 200 reference residuals: 10 of them lie above it
    reference = residuals(y, x, high["coefficients"])
    assert (reference > high["threshold"][:, None]).sum().item() == 10


def test_the_target_is_not_part_of_the_fit():
    # the reference sets lie exactly on a plane; an outlying target must not pull the fit
    generator = torch.Generator().manual_seed(2)
    x = torch.stack([torch.rand(1, 20, generator=generator),
                     torch.randint(1, 16, (1, 20), generator=generator).float()], dim=2)   # (1, 20, 2)
    y = 0.5 + 1.0 * x[..., 0].double() - 0.02 * x[..., 1].double()
    test = above_reference(torch.tensor([10.0]), torch.tensor([[0.5, 10.0]]), y, x)
    assert torch.allclose(test["coefficients"][0], torch.tensor([0.5, 1.0, -0.02], dtype=torch.float64),
                          atol=1e-8)
    assert abs(test["residual"].item() - (10.0 - (0.5 + 0.5 - 0.2))) < 1e-8 and test["above"].all()


def test_the_removable_heads_are_the_prunable_share_of_16(results):
    # the removable heads of each seed are those the yardstick of how_many removes
    shares = results("many_heads.pruning.how_many").per_seed("prunable_share_mean")
    r = results("many_heads.pruning.backup_or_noise")
    assert r.per_seed("removable_heads_mean") == [share * 16 for share in shares]


def test_a_seed_without_removable_heads_shows_neither_backups_nor_smoothing(results):
    # Per seed, backup_seeds keeps the share of removable heads that are backups (counted at
    # >= 1/2) and smoothing_seeds the removable set's residual minus the random sets' 95th
    # percentile (counted above 0); a seed without removable heads has neither: NaN, never counted.
    r = results("many_heads.pruning.backup_or_noise")
    numbers = r.data["numbers"]
    assert (numbers["backup_seeds"]["of"], numbers["backup_seeds"]["line"]) == ("count_at_least", 0.5)
    assert (numbers["smoothing_seeds"]["of"], numbers["smoothing_seeds"]["line"]) == ("count_above", 0.0)
    for removable, share, margin, residual, q95 in zip(
            r.per_seed("removable_heads_mean"), r.per_seed("backup_seeds"), r.per_seed("smoothing_seeds"),
            r.per_seed("removable_residual_mean"), r.per_seed("random_residual_q95_mean")):
        if removable == 0:
            assert math.isnan(share) and math.isnan(margin)
        else:
            assert 0 <= share <= 1 and abs(share * removable - round(share * removable)) < 1e-5
            assert margin == residual - q95
    assert r.number("backup_heads") <= r.number("removable_heads_total")
