"""Is one observation unusually high once a few covariates are accounted for?

Used by many_heads/pruning.py (claim C25, noise smoothing): per seed, a least-squares fit
``y ~ 1 + x_1 + … + x_k`` over random reference sets, and the residual of one target set
compared with the reference sets' own residuals."""

from __future__ import annotations

import torch


def fit(y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Least squares ``y ~ 1 + x`` separately for every row (seed).

    y (S, N), x (S, N, k) -> coefficients (S, k + 1): intercept first, then one slope per
    column of ``x``. Computed in float64; a column that does not vary gets the minimum-norm
    solution (no error)."""
    y, x = torch.as_tensor(y, dtype=torch.float64), torch.as_tensor(x, dtype=torch.float64)
    design = torch.cat([torch.ones(*x.shape[:-1], 1, dtype=torch.float64), x], dim=-1)  # (S, N, k+1)
    return torch.linalg.lstsq(design, y.unsqueeze(-1), driver="gelsd").solution.squeeze(-1)


def residuals(y: torch.Tensor, x: torch.Tensor, coefficients: torch.Tensor) -> torch.Tensor:
    """y (S, N), x (S, N, k), coefficients (S, k + 1) -> y minus the fit, (S, N)."""
    y, x = torch.as_tensor(y, dtype=torch.float64), torch.as_tensor(x, dtype=torch.float64)
    predicted = coefficients[:, :1] + (x * coefficients[:, None, 1:]).sum(dim=-1)
    return y - predicted


def above_reference(y_target: torch.Tensor, x_target: torch.Tensor, y_reference: torch.Tensor,
                    x_reference: torch.Tensor, quantile: float = 0.95) -> dict[str, torch.Tensor]:
    """Fit ``y ~ 1 + x`` on the reference sets of each seed (the target is not in the fit) and
    compare the target's residual with the ``quantile`` of the reference residuals
    (torch.quantile, linear interpolation).

    y_target (S,), x_target (S, k), y_reference (S, N), x_reference (S, N, k) -> per seed:
    ``coefficients`` (S, k + 1), ``residual`` of the target (S,), ``threshold`` (S,) and
    ``above`` (S,) bool: the residual is strictly above the threshold."""
    coefficients = fit(y_reference, x_reference)
    reference = residuals(y_reference, x_reference, coefficients)                     # (S, N)
    residual = residuals(torch.as_tensor(y_target)[:, None], torch.as_tensor(x_target)[:, None],
                         coefficients)[:, 0]                                           # (S,)
    threshold = torch.quantile(reference, quantile, dim=1)                            # (S,)
    return {"coefficients": coefficients, "residual": residual, "threshold": threshold,
            "above": residual > threshold}
