"""One ``over_seeds`` for the snippets and the build (snippets/explainer/seed_statistics.py):
the same numbers, bit for bit, as the two definitions it replaced (frozen below as they were:
explainer/report.py's for one run, tools/verdicts/claims.py's vectorised one for the
resamplings), on many random inputs, and known answers on small ones."""

import math
import os
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets"))
from tools.verdicts import claims as registry  # noqa: E402
with warnings.catch_warnings():
    # numpy came first (tools, conftest): the pin is late, and harmless here: sums, squares and
    # comparisons of floats round the same whichever kernels numpy picked
    warnings.simplefilter("ignore", UserWarning)
    from explainer import report, seed_statistics  # noqa: E402
from explainer.seed_statistics import AGGREGATES, over_seeds  # noqa: E402


# --- the two definitions before they were one (frozen copies, not to be edited) ------------

def old_t_quantile_975(dof: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


OLD_PAST_LINE = {"count_above": lambda v, line: v > line, "count_at_least": lambda v, line: v >= line,
                 "count_below": lambda v, line: v < line, "count_at_most": lambda v, line: v <= line}


def old_explainer_over_seeds(per_seed: list[float], of: str, chance: float = 0.0, line: float = 0.0) -> float:
    n = len(per_seed)
    if n == 0:
        raise ValueError("no per-seed values")
    if of == "count":
        return float(sum(1 for v in per_seed if v))
    if of in OLD_PAST_LINE:
        return float(sum(1 for v in per_seed if OLD_PAST_LINE[of](v, line)))
    if of == "mean":
        return math.fsum(per_seed) / n
    if of == "std":
        mean = math.fsum(per_seed) / n
        return math.sqrt(math.fsum((v - mean) ** 2 for v in per_seed) / n)
    if of in ("min", "max"):
        return float(min(per_seed) if of == "min" else max(per_seed))
    if of in ("ci95_low", "ci95_high"):
        mean = math.fsum(per_seed) / n
        half = old_t_quantile_975(n - 1) * math.sqrt(math.fsum((v - mean) ** 2 for v in per_seed)
                                                     / (n - 1) / n) if n > 1 else math.inf
        return mean - half if of == "ci95_low" else mean + half
    if of == "binomial_p":
        hits = sum(1 for v in per_seed if v)
        return math.fsum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k)
                         for k in range(hits, n + 1))
    raise ValueError(f"unknown aggregate over seeds {of!r}")


OLD_TOOLS_PAST_LINE = {"count_above": np.greater, "count_at_least": np.greater_equal,
                       "count_below": np.less, "count_at_most": np.less_equal}


def old_tools_over_seeds(per_seed, of: str, chance: float = 0.0, line: float = 0.0):
    from scipy.stats import t

    values = np.asarray(per_seed, dtype=float)
    n = values.shape[-1]
    if of == "count":
        return (values != 0).sum(axis=-1).astype(float)
    if of in OLD_TOOLS_PAST_LINE:
        return OLD_TOOLS_PAST_LINE[of](values, line).sum(axis=-1).astype(float)
    if of in ("mean", "std", "min", "max"):
        return getattr(values, of)(axis=-1)
    if of in ("ci95_low", "ci95_high"):
        half = t.ppf(0.975, n - 1) * values.std(axis=-1, ddof=1) / np.sqrt(n)
        return values.mean(axis=-1) + (-half if of == "ci95_low" else half)
    if of == "binomial_p":
        hits = (values != 0).sum(axis=-1)
        tail = np.array([math.fsum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k)
                                   for k in range(h, n + 1)) for h in range(n + 1)])
        return tail[hits]
    raise ValueError(f"unknown aggregate over seeds {of!r}")


# --- random per-seed values of the kinds snippets record -------------------------------------

SIZES = (1, 2, 3, 5, 8, 10, 16, 32, 64)          # seeds: the snippets' 8 to 64, and small edge cases


def values_of(rng: np.random.Generator, shape: tuple[int, ...], nans: bool) -> np.ndarray:
    """Measurements (any scale), tied values (rounded, from a few levels), hits (0/1),
    shares of a few items, exact zeros of both signs, and (with ``nans``) seeds with nothing
    to measure."""
    style = rng.integers(6)
    if style == 0:
        values = rng.normal(size=shape) * 10.0 ** rng.integers(-6, 7)
    elif style == 1:
        values = rng.normal(size=shape).round(1)
    elif style == 2:
        values = (rng.random(shape) < rng.random()).astype(float)
    elif style == 3:
        values = rng.integers(0, 9, size=shape) / 8
    elif style == 4:
        values = rng.choice([0.0, -0.0, 0.1, -0.1, 1 / 3, 0.7], size=shape)
    else:
        values = rng.standard_cauchy(size=shape)
    if nans and rng.random() < 0.5:
        values[rng.random(shape) < 0.2] = np.nan
    return values


def same_bits(a, b) -> bool:
    """Equal to the last bit (the sign of a zero too); any NaN equals any NaN."""
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)


def settings(rng: np.random.Generator, values: np.ndarray) -> dict:
    """A chance for the binomial tail, and a line: a fixed one or a value a seed has (a tie)."""
    finite = values[np.isfinite(values)]
    line = float(rng.choice(finite)) if finite.size and rng.random() < 0.5 else float(rng.choice([0.0, 0.3, -0.5]))
    return {"chance": float(rng.choice([0.0, 0.25, 1 / 3, 0.5, 0.9, 1.0])), "line": line}


@pytest.mark.parametrize("of", AGGREGATES)
def test_one_run_gives_the_snippets_old_number_bit_for_bit(of):
    # Ties, NaNs (a seed with nothing to measure), signed zeros, one seed: whatever the old
    # definition did with them, the new one does, to the last bit; as a list, as an array,
    # and for lists of whole numbers and of booleans, which snippets pass too.
    rng = np.random.default_rng(list(AGGREGATES).index(of))
    for _ in range(600):
        values = values_of(rng, (int(rng.choice(SIZES)),), nans=True)
        given = settings(rng, values)
        expected = old_explainer_over_seeds(values.tolist(), of, **given)
        for per_seed in (values.tolist(), values):
            got = over_seeds(per_seed, of, **given)
            assert type(got) is float and same_bits(got, expected), (of, values.tolist(), given, got, expected)
    for per_seed in ([1, 0, 3, 0, 2], [True, False, True, True], [7]):
        assert same_bits(over_seeds(per_seed, of, chance=0.5, line=1), old_explainer_over_seeds(per_seed, of, 0.5, 1))


@pytest.mark.parametrize("of", AGGREGATES)
def test_resamplings_give_each_draw_the_number_its_seeds_give_alone(of):
    # (draws, n) and deeper: every row is the one-run number of that row, bit for bit, so a
    # draw that picks the recorded seeds gives the recorded number.
    rng = np.random.default_rng(100 + list(AGGREGATES).index(of))
    for _ in range(60):
        shape = (int(rng.integers(1, 40)),) + ((int(rng.integers(1, 4)),) if rng.random() < 0.3 else ()) \
            + (int(rng.choice(SIZES)),)
        values = values_of(rng, shape, nans=True)
        given = settings(rng, values)
        got = over_seeds(values, of, **given)
        assert isinstance(got, np.ndarray) and got.shape == shape[:-1] and got.dtype == float
        rows = values.reshape(-1, shape[-1])
        assert all(same_bits(g, old_explainer_over_seeds(row.tolist(), of, **given))
                   for g, row in zip(got.ravel(), rows)), (of, shape, given)


@pytest.mark.parametrize("of", AGGREGATES)
def test_resamplings_give_the_builds_old_numbers(of):
    # The build's old vectorised definition: the same bits for every count, the binomial tail,
    # min and max (0.0 and -0.0 compare equal: numpy kept either). Means, spreads and
    # intervals summed in another order there (numpy's pairwise sum, x * x for squares), so
    # they agree to rounding; the one definition now sums as the snippets always did. NaNs
    # are left out here: the old build never met one (min and max took them apart differently).
    rng = np.random.default_rng(200 + list(AGGREGATES).index(of))
    exact = of not in ("mean", "std", "ci95_low", "ci95_high")
    for _ in range(200):
        n = int(rng.choice(SIZES[1:]))                      # one seed: the old build's interval was NaN
        values = values_of(rng, (int(rng.integers(1, 300)), n), nans=False)
        given = settings(rng, values)
        got, old = over_seeds(values, of, **given), old_tools_over_seeds(values, of, **given)
        if exact and of in ("min", "max"):
            assert np.array_equal(got, old), (of, n)
        elif exact:
            assert np.array_equal(got.view(np.uint64), np.asarray(old, dtype=float).view(np.uint64)), (of, n)
        else:
            scale = np.abs(values).max(axis=-1)
            assert np.all(np.abs(got - old) <= 1e-13 * scale * n + 1e-300), (of, n, np.abs(got - old).max())


def test_each_aggregate_gives_its_known_answer_on_an_array_of_draws():
    draws = np.array([[1.0, 2.0, 3.0, 6.0], [0.0, 0.0, 1.0, 1.0], [4.0, 4.0, 4.0, 4.0]])
    assert over_seeds(draws, "mean").tolist() == [3.0, 0.5, 4.0]
    assert over_seeds(draws, "min").tolist() == [1.0, 0.0, 4.0]
    assert over_seeds(draws, "max").tolist() == [6.0, 1.0, 4.0]
    assert over_seeds(draws, "std").tolist() == [math.sqrt(3.5), 0.5, 0.0]
    assert over_seeds(draws, "count").tolist() == [4.0, 2.0, 4.0]
    assert over_seeds(draws, "count_above", line=1.0).tolist() == [3.0, 0.0, 4.0]
    assert over_seeds(draws, "count_at_most", line=1.0).tolist() == [1.0, 4.0, 0.0]
    # P(X >= k) for X ~ Binomial(4, 1/2): 1/16 for all 4, 11/16 for at least 2
    assert over_seeds(draws, "binomial_p", chance=0.5).tolist() == [1 / 16, 11 / 16, 1 / 16]
    # mean 3, sample std sqrt(14/3), t(3) quantile 3.182446: 3 + 3.182446 * sqrt(14/3) / 2
    assert over_seeds(draws, "ci95_high")[0] == pytest.approx(3 + 3.182446 * math.sqrt(14 / 3) / 2, rel=1e-6)
    assert over_seeds(draws, "ci95_low")[2] == 4.0                       # no spread: no interval
    assert over_seeds([[5.0]], "ci95_low").tolist() == [-math.inf]       # one seed: no interval at all
    assert over_seeds([math.nan, 1.0], "min") != over_seeds([math.nan, 1.0], "min")   # a NaN first wins
    assert over_seeds([1.0, math.nan], "min") == 1.0                                  # later ones are skipped
    for bad in ([], [[]], 3.0):
        with pytest.raises(ValueError, match="no per-seed values"):
            over_seeds(bad, "mean")
    with pytest.raises(ValueError, match="unknown aggregate"):
        over_seeds(draws, "median")
    with pytest.raises(registry.RegistryError, match="unknown aggregate"):
        registry.aggregate({"of": "median"}, draws)


def test_the_snippets_and_the_build_share_the_one_definition():
    for module in (report, registry):
        assert module.over_seeds.__code__.co_filename == seed_statistics.__file__
        assert set(module.PAST_LINE) == set(seed_statistics.PAST_LINE)
    assert report.over_seeds is seed_statistics.over_seeds
    assert not hasattr(registry, "t")                 # no copy of the interval left in the build


def test_the_build_reads_it_without_importing_the_explainer_package():
    # Importing explainer pins the process's CPU kernels (explainer/__init__.py); the build's
    # processes load the one module by its path instead.
    code = ("import sys, numpy as np; from tools.verdicts import claims\n"
            "print(claims.over_seeds(np.array([[1.0, 2.0, 4.0]]), 'mean')[0], 'explainer' in sys.modules,"
            " 'matplotlib' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == [str(7 / 3), "False", "False"]


def test_the_draws_recompute_only_the_numbers_asked_for_and_the_same_draws():
    numbers = {"n_seeds": {"value": 8.0, "text": "8"}}
    rng = np.random.default_rng(7)
    for key, of in (("a", "mean"), ("b", "std"), ("c", "count"), ("d", "max")):
        per_seed = rng.normal(size=8).round(2).tolist()
        numbers[key] = {"value": over_seeds(per_seed, of), "text": "", "per_seed": per_seed, "of": of}
    results = {"toy": {"numbers": numbers}}
    every = registry.resampled(results, ["toy"], draws=300)
    some = registry.resampled(results, ["toy"], draws=300, names={"toy.b", "toy.d"})
    assert [sorted(s) for s in some] == [["toy.b", "toy.d", "toy.n_seeds"]] * 300
    assert some == [{k: s[k] for k in ("toy.b", "toy.d", "toy.n_seeds")} for s in every]
