"""A share's (or a mean difference's) template-robust interval (C32 v2): sentences come in
templates, and templates in fixed strata (a sentence's body), so the standard error is the
stratified cluster one, from the templates' means within their strata:

    SE^2 = sum_g (n_g / n)^2 * 1 / (G_g (G_g - 1)) * sum_{t in g} (xbar_t - xbar_g)^2

with G_g the templates of stratum g, xbar_t a template's mean and xbar_g the mean of its
stratum's template means; the ends are xbar -/+ t_df * SE, Student's t with df = sum_g (G_g - 1).
In a resampling draw each drawn template counts as one template, a template drawn twice
counting twice (each with its own draw of items)."""

from __future__ import annotations

import numpy as np
from scipy import stats

DRAWS = 1000


def t_quantile(df: int, one_sided: float = 0.0125) -> float:
    """Student's t at one-sided ``one_sided`` (1.25 %: each end of a two-sided 97.5 % interval)."""
    return float(stats.t.ppf(1 - one_sided, df))


def template_se(x, templates, strata) -> tuple[np.ndarray, int]:
    """(SE per column of ``x`` (n,) or (n, k), df): ``templates`` and ``strata`` label each row."""
    x = np.asarray(x, dtype=float)
    x2 = x[:, None] if x.ndim == 1 else x
    templates, strata = np.asarray(templates), np.asarray(strata)
    n, var, df = len(x2), np.zeros(x2.shape[1]), 0
    for g in dict.fromkeys(strata.tolist()):
        in_g = strata == g
        ts = list(dict.fromkeys(templates[in_g].tolist()))
        G = len(ts)
        means = np.stack([x2[templates == t].mean(axis=0) for t in ts])          # (G, k)
        var += (in_g.sum() / n) ** 2 * ((means - means.mean(axis=0)) ** 2).sum(axis=0) / (G * (G - 1))
        df += G - 1
    se = np.sqrt(var)
    return (se if x.ndim > 1 else se[0]), df


def template_ends(x, templates, strata, one_sided: float = 0.0125):
    """(lower, upper) template-robust ends of the mean of ``x`` per column."""
    x = np.asarray(x, dtype=float)
    se, df = template_se(x, templates, strata)
    t = t_quantile(df, one_sided)
    mean = x.mean(axis=0)
    return mean - t * se, mean + t * se


def stratified_cluster_draws(strata, templates, draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """(draws, N) item indices in two stages: within each stratum (e.g. a sentence body, whose
    templates the design fixes) its templates drawn with replacement, and within each drawn
    template its items drawn with replacement. Every template must hold the same number m of
    items and every stratum the same number of templates; the strata in order of first
    appearance, their templates likewise. Positions k*m .. (k+1)*m - 1 of a draw hold its k-th
    drawn template (a template drawn twice fills two such slots, each with its own items), so
    ``np.arange(N) // m`` labels a draw's templates and, for items listed in that order, the
    items' own."""
    strata, templates = np.asarray(strata), np.asarray(templates)
    order = list(dict.fromkeys(strata.tolist()))
    members = {s: [np.flatnonzero(templates == t) for t in dict.fromkeys(templates[strata == s].tolist())]
               for s in order}
    sizes = {m.size for ts in members.values() for m in ts}
    if len(sizes) != 1 or len({len(ts) for ts in members.values()}) != 1:
        raise ValueError("stratified_cluster_draws needs templates of one size, strata of one count")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        row = []
        for s in order:
            ts = members[s]
            for pick in rng.integers(0, len(ts), size=len(ts)):
                row.append(rng.choice(ts[pick], size=ts[pick].size))
        out.append(np.concatenate(row))
    return np.stack(out)
