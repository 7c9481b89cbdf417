"""A number over random seeds from its per-seed values, defined once: a snippet records it
with it (``Report.number(..., per_seed=..., of=...)``, explainer/report.py) and the build
recomputes it with it on each resampling of the seeds (tools/verdicts/claims.py), so a
redraw that happens to pick the recorded seeds gives the recorded number, bit for bit.

This module imports nothing of explainer: the build loads it by its path, without importing
the package (whose ``__init__`` pins the CPU kernels of the process that imports it).
"""

from __future__ import annotations

import functools
import math

import numpy as np

# Counts of seeds whose per-seed measurement lies past a stated ``line`` (``Report.number(...,
# line=...)``): above (>), at least (>=), below (<), at most (<=). A seed whose measurement does
# not exist (NaN, e.g. no head to measure) never counts.
PAST_LINE = {"count_above": np.greater, "count_at_least": np.greater_equal,
             "count_below": np.less, "count_at_most": np.less_equal}

AGGREGATES = ("count", "mean", "std", "min", "max", "ci95_low", "ci95_high", "binomial_p", *PAST_LINE)


@functools.lru_cache(maxsize=None)
def t_quantile_975(dof: int) -> float:
    """The 97.5 % quantile of Student's t with ``dof`` degrees of freedom (for 95 % intervals)."""
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def over_seeds(per_seed, of: str, chance: float = 0.0, line: float = 0.0):
    """A number over seeds from its per-seed values: ``count`` (of non-zero values), ``mean``,
    ``std`` (population), ``min``, ``max``, ``ci95_low`` / ``ci95_high`` (the mean's 95 %
    t-interval; infinite for one seed), ``binomial_p`` (one-sided binomial tail: P(at least
    the observed count of hits) when each seed is a hit with ``chance``), or a count of seeds
    past ``line`` (``count_above``, ``count_at_least``, ``count_below``, ``count_at_most``:
    see PAST_LINE).

    ``per_seed`` is one run's values (a list or 1-D array: returns a float) or an array whose
    last axis holds the seeds, e.g. (draws, n) resamplings (returns an array over the other
    axes). Each row is computed as one run is: sums are exact (``math.fsum``) and squares are
    Python's, so a row equals the same values given alone, bit for bit. The counts are
    vectorised; min and max are Python's (a NaN wins only where it comes first)."""
    if of not in AGGREGATES:
        raise ValueError(f"unknown aggregate over seeds {of!r} ({', '.join(AGGREGATES)})")
    values = np.asarray(per_seed, dtype=float)
    if values.ndim == 0 or values.shape[-1] == 0:
        raise ValueError("no per-seed values")
    n = values.shape[-1]
    if of in ("count", "binomial_p") or of in PAST_LINE:
        hits = (values != 0 if of in ("count", "binomial_p") else PAST_LINE[of](values, line)).sum(axis=-1)
        if of == "binomial_p":
            tail = [math.fsum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k)
                              for k in range(h, n + 1)) for h in range(n + 1)]
            result = np.asarray(tail)[hits]
        else:
            result = hits.astype(float)
    else:
        rows = values.reshape(-1, n)
        if of in ("min", "max"):
            if np.isnan(rows).any() or (rows == 0).any():
                # as Python's min and max of a list: a NaN first wins, later ones are skipped,
                # and of 0.0 and -0.0 the first stays (numpy's may keep either)
                result = list(map(min if of == "min" else max, rows.tolist()))
            else:
                result = rows.min(axis=-1) if of == "min" else rows.max(axis=-1)
        else:
            # Sums exactly rounded (math.fsum), squares as Python's ** (the C library's pow,
            # which can differ from numpy's x * x in the last bit); subtraction, division and
            # square roots round alike in numpy and Python.
            means = np.array(list(map(math.fsum, rows.tolist()))) / n
            if of == "mean":
                result = means
            else:
                squares = np.array([math.fsum([d ** 2 for d in row]) for row in (rows - means[:, None]).tolist()])
                if of == "std":
                    result = np.sqrt(squares / n)
                else:
                    half = t_quantile_975(n - 1) * np.sqrt(squares / (n - 1) / n) if n > 1 else np.inf
                    result = means - half if of == "ci95_low" else means + half
        result = np.asarray(result, dtype=float).reshape(values.shape[:-1])
    return float(result) if values.ndim == 1 else result
