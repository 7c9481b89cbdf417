"""How many random seeds to train, and what to record over them.

A trained result is counted over seeds with its spread, never the best run:
``n_seeds`` says how many seeds a snippet trains (the build may ask for more),
``summary`` gives the mean and spread of a per-seed value, and the ``report_*``
helpers record them on a snippet's ``Report`` together with the per-seed values,
so the build can resample the seeds.
"""

import os

import torch

from explainer.report import over_seeds


def n_seeds(default: int) -> int:
    """How many random seeds to train: ``default``, unless the build asks for more
    (``EXPLAINER_SEEDS``, set when a verdict is borderline at ``default`` seeds)."""
    return int(os.environ.get("EXPLAINER_SEEDS", default))


def summary(values) -> dict[str, float]:
    """Mean, standard deviation, minimum and maximum over seeds."""
    values = torch.as_tensor(values, dtype=torch.float64).flatten()
    return {"mean": values.mean().item(), "std": values.std(unbiased=False).item(),
            "min": values.min().item(), "max": values.max().item()}


def report_spread(report, values, fmt: str = "{:.3f}", *, kind: str = "", mean: str, std: str, min: str,
                  max: str) -> dict:
    """Record the mean, standard deviation, minimum and maximum of per-seed ``values`` under the
    four keys the caller writes out (``mean="accuracy_mean"``, ...), each with the per-seed
    values, so the build can resample the seeds. With ``kind="count"`` (one whole count per seed)
    the lowest and highest seed are written as whole numbers and the mean and spread with
    ``fmt``; ``kind="share"`` writes all four as percents. Described in the snippet's strings
    file: one ``[accuracy]`` table with ``spread = true`` describes all four."""
    stats = summary(values)
    spread, ends = ("", "count") if kind == "count" else (kind, kind)   # kinds of mean and std, of min and max
    report.number(mean, stats["mean"], fmt, kind=spread, per_seed=values, of="mean")
    report.number(std, stats["std"], fmt, kind=spread, per_seed=values, of="std")
    report.number(min, stats["min"], fmt, kind=ends, per_seed=values, of="min")
    report.number(max, stats["max"], fmt, kind=ends, per_seed=values, of="max")
    return stats


def report_mean_range(report, per_seed, fmt: str = "{:.3f}", *, mean: str, min: str, max: str) -> None:
    """Record the mean, minimum and maximum of ``per_seed`` (a numpy array, one value per seed;
    its own mean/min/max) under the three keys the caller writes out, each with the per-seed
    values and written with ``fmt``. Described in the snippet's strings file."""
    report.number(mean, per_seed.mean(), fmt, per_seed=per_seed, of="mean")
    report.number(min, per_seed.min(), fmt, per_seed=per_seed, of="min")
    report.number(max, per_seed.max(), fmt, per_seed=per_seed, of="max")


def report_seed_count(report, key: str, per_seed) -> int:
    """Record ``key``: in how many seeds ``per_seed`` (one truth value per seed) holds (described
    in the snippet's strings file)."""
    per_seed = torch.as_tensor(per_seed).flatten().bool()
    return int(report.number(key, per_seed.sum(), kind="count",
                             per_seed=per_seed.float(), of="count"))


def report_seeds_past(report, key: str, measurement, *, of: str, line: float) -> int:
    """Record ``key``: in how many seeds the per-seed ``measurement`` lies past ``line``
    (``of``: count_above >, count_at_least >=, count_below <, count_at_most <=; a NaN, a seed
    with nothing to measure, never counts). The measurement itself is kept per seed, not only
    whether it lies past the line. Described in the snippet's strings file."""
    measurement = torch.as_tensor(measurement, dtype=torch.float64).flatten()
    return int(report.number(key, over_seeds(measurement.tolist(), of, line=line), kind="count",
                             per_seed=measurement, of=of, line=line))
