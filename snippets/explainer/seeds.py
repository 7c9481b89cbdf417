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


def report_spread(report, key: str, values, fmt: str = "{:.3f}", *, kind: str = "") -> dict:
    """Record ``key_mean``, ``key_std``, ``key_min`` and ``key_max`` of per-seed ``values``
    (each with the per-seed values, so the build can resample the seeds). With
    ``kind="count"`` (one whole count per seed) the lowest and highest seed are written as
    whole numbers and the mean and spread with ``fmt``; ``kind="share"`` writes all four as
    percents. Described in the snippet's strings file, a table per ending ("… (mean over
    seeds)", "…（各种子的平均）"). The caller writes ``key`` out, and these four endings are all
    it gets (tests/test_literal_keys.py): ``grep -rn '"accuracy"'`` finds where ``accuracy_mean`` is made."""
    stats = summary(values)
    spread, ends = ("", "count") if kind == "count" else (kind, kind)   # kinds of mean and std, of min and max
    report.number(key + "_mean", stats["mean"], fmt, kind=spread, per_seed=values, of="mean")
    report.number(key + "_std", stats["std"], fmt, kind=spread, per_seed=values, of="std")
    report.number(key + "_min", stats["min"], fmt, kind=ends, per_seed=values, of="min")
    report.number(key + "_max", stats["max"], fmt, kind=ends, per_seed=values, of="max")
    return stats


def report_mean_range(report, key: str, per_seed, fmt: str = "{:.3f}") -> None:
    """Record ``key_mean``, ``key_min`` and ``key_max`` of ``per_seed`` (a numpy array, one
    value per seed; its own mean/min/max), each with the per-seed values and written with
    ``fmt``. Described in the snippet's strings file. As with ``report_spread``, the caller
    writes ``key`` out: ``grep -rn '"train_exact"'`` finds where ``train_exact_mean`` is made."""
    report.number(key + "_mean", per_seed.mean(), fmt, per_seed=per_seed, of="mean")
    report.number(key + "_min", per_seed.min(), fmt, per_seed=per_seed, of="min")
    report.number(key + "_max", per_seed.max(), fmt, per_seed=per_seed, of="max")


def report_small_run(report, seeds: int, steps: int, *, runs: tuple[str, str] = ("seeds", "种子数")) -> None:
    """Record ``small_run_seeds`` and ``small_run_steps``: the size of the small run a page
    shows in a cell, so its prose states it from the run. ``runs`` names what is counted
    (English, Chinese), e.g. ("colonies", "“蚁群”数")."""
    report.number("small_run_seeds", seeds, "{:.0f}", en=f"{runs[0]} of the small run shown on the page",
                  zh=f"页面上小规模运行的{runs[1]}")
    report.number("small_run_steps", steps, "{:.0f}", en="training steps of the small run shown on the page",
                  zh="页面上小规模运行的训练步数")


def report_seed_count(report, key: str, per_seed, *, en: str = "", zh: str = "") -> int:
    """Record ``key``: in how many seeds ``per_seed`` (one truth value per seed) holds (described
    by ``en``/``zh`` or in the snippet's strings file)."""
    per_seed = torch.as_tensor(per_seed).flatten().bool()
    return int(report.number(key, per_seed.sum(), kind="count", en=en, zh=zh,
                             per_seed=per_seed.float(), of="count"))


def report_seeds_past(report, key: str, measurement, *, of: str, line: float, en: str = "",
                      zh: str = "") -> int:
    """Record ``key``: in how many seeds the per-seed ``measurement`` lies past ``line``
    (``of``: count_above >, count_at_least >=, count_below <, count_at_most <=; a NaN, a seed
    with nothing to measure, never counts). The measurement itself is kept per seed, not only
    whether it lies past the line."""
    measurement = torch.as_tensor(measurement, dtype=torch.float64).flatten()
    return int(report.number(key, over_seeds(measurement.tolist(), of, line=line), kind="count",
                             en=en, zh=zh, per_seed=measurement, of=of, line=line))


def report_mean(report, key: str, values, fmt: str = "{:.3f}", *, kind: str = "") -> None:
    """Record ``key_mean``: the mean of per-seed ``values``, with them (described in the snippet's
    strings file)."""
    report.number(key + "_mean", values.mean(), fmt, kind=kind, per_seed=values, of="mean")


def report_mean_and_max(report, key: str, values, fmt: str = "{:.3f}", *, kind: str = "") -> None:
    """Record ``key_mean`` and ``key_max`` of per-seed ``values``, with them (described in the
    snippet's strings file)."""
    report.number(key + "_mean", values.mean(), fmt, kind=kind, per_seed=values, of="mean")
    report.number(key + "_max", values.max(), fmt, kind=kind, per_seed=values, of="max")
