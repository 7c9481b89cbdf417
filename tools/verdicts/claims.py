"""The claims registry (docs/claims.yml) and its rules: one verdict per claim.

Snippets only record numbers. A claim's rule in the registry (its versions: rules_history.py)
reads those numbers as ``snippet.key`` (or ``reference.key`` for a paper's own numbers)
and gives the verdict:

    rule:
      cases:                       # checked in order; the first that holds decides
        - refuted: "three_roles.scaling.grad_softmax_ratio_1024 < 0.01"
      otherwise: nuanced

A condition is a small expression: numbers, names, + - * /, comparisons, and / or / not,
abs / min / max, and within(low, high, x, …) (how many of x, … lie in [low, high]).
Nothing else is allowed, so a rule reads the same to a reviewer as to
the build.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import itertools
import json
import math
import os
import sys
import zlib
import operator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

import yaml

# libyaml's loader (in the PyYAML wheel) reads the registry 40x faster than the pure-Python one
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

REGISTRY = Path(__file__).resolve().parents[2] / "docs" / "claims.yml"
# A number over seeds: the snippets' own definition (Report.number), which the resampling
# recomputes. Loaded by its path: importing the explainer package would pin this process's
# CPU kernels (explainer/__init__.py), and the build's processes must not (snippet_runner.py).
SEED_STATISTICS = Path(__file__).resolve().parents[2] / "snippets" / "explainer" / "seed_statistics.py"


def _seed_statistics():
    """explainer.seed_statistics: the module already imported, else loaded from its file."""
    module = sys.modules.get("explainer.seed_statistics")
    if module is None:
        spec = importlib.util.spec_from_file_location("explainer_seed_statistics", SEED_STATISTICS)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


# NaN (a seed with nothing to measure) is never past a line; over_seeds works on (draws, n) too.
_statistics = _seed_statistics()
PAST_LINE, over_seeds = _statistics.PAST_LINE, _statistics.over_seeds

VERDICTS = ("verified", "nuanced", "refuted", "open")
TYPES = ("empirical", "mathematical", "definitional", "historical")
KINDS = ("construction", "trained", "real", "equivalence", "literature")


class RegistryError(ValueError):
    """The registry itself is malformed (a claim, rule or experiment entry)."""


class MissingMeasurement(KeyError):
    """A rule reads a number that no run recorded."""

    def __init__(self, claim_id: str, name: str, source: str, key: str):
        self.claim_id, self.name = claim_id, name
        where = (f"snippets/{source.replace('.', '/')}.py recorded no number '{key}'" if source
                 else f"'{name}' is not written snippet.key")
        super().__init__(f"{claim_id}: its rule reads {name}, but {where}")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


@dataclass
class Experiment:
    kind: str
    snippet: str = ""          # a snippet that recorded numbers
    reference: str = ""        # or a paper, with its own numbers
    show: list[str] = field(default_factory=list)
    numbers: dict[str, float] = field(default_factory=dict)
    note: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)   # a literature number's name in a table
    planted: bool = False      # a trained arm with the effect built in (G1): its draws are not the tested seeds


@dataclass
class Claim:
    id: str
    title: dict[str, str]
    source: list[str]
    type: str
    text: dict[str, str]
    experiments: list[Experiment]
    rule_text: dict[str, str]
    cases: list[tuple[str, str]]
    otherwise: str
    examples: dict[str, dict[str, float]]
    seed_cap: int = 0          # trained claims: the most seeds the build may train (doubling)
    item_cap: dict[str, int] = field(default_factory=dict)   # real claims (G2): snippet -> the most
                               # items its one second look may measure (EXPLAINER_ITEMS)
    baseline: dict[str, str] | None = None   # real-model claims: what it is compared with, corrected how
    related: list[str] = field(default_factory=list)   # other claims the ledger lists beside it
    power: str = ""            # empirical claims that can be refuted: `snippet.key`, the share of
                               # planted effects the same test detects (G1: a refutation needs >= POWERED)
    plant: list[dict[str, float | dict[str, float]]] = field(default_factory=list)   # or, for trained claims, the
                               # numbers over seeds to plant at the size that would make the claim
                               # true (planted()); several sets are planted one at a time (power:
                               # the least), where any one of several effects would make it true

    def trained_snippets(self) -> list[str]:
        return [e.snippet for e in self.experiments if e.kind == "trained"]

    def tested_snippets(self) -> list[str]:
        """The trained snippets whose seeds the verdict rests on: not the planted arms."""
        return [e.snippet for e in self.experiments if e.kind == "trained" and not e.planted]

    def reachable(self) -> set[str]:
        """The verdicts this rule can give."""
        return {verdict for verdict, _ in self.cases} | {self.otherwise}

    def names(self) -> set[str]:
        """Every ``source.key`` the rule reads."""
        return {name for _, condition in self.cases for name in _names(_parsed(self.id, condition))}


_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv}
def within(low: float, high: float, *values: float) -> int:
    """How many of ``values`` lie between ``low`` and ``high`` (both included)."""
    return sum(low <= value <= high for value in values)


_FUNCTIONS = {"abs": abs, "min": min, "max": max, "within": within}


def _dotted(node) -> str | None:
    """``many_heads.pruning.prunable_share`` (an attribute chain on a name) as one string."""
    if isinstance(node, ast.Attribute):
        head = node.value.id if isinstance(node.value, ast.Name) else _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _parse(claim_id: str, condition: str) -> ast.Expression:
    try:
        tree = ast.parse(condition, mode="eval")
    except SyntaxError as error:
        raise RegistryError(f"{claim_id}: cannot read the condition {condition!r}: {error.msg}") from None
    for node in ast.walk(tree):
        allowed = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
                   ast.BinOp, ast.Compare, ast.Constant, ast.Attribute, ast.Name, ast.Load,
                   ast.Call, *_COMPARE, *_ARITHMETIC)
        if not isinstance(node, allowed):
            raise RegistryError(f"{claim_id}: {type(node).__name__} is not allowed in a rule "
                                f"({condition!r})")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise RegistryError(f"{claim_id}: only numbers may appear in a rule ({condition!r})")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in _FUNCTIONS):
            raise RegistryError(f"{claim_id}: only abs, min and max may be called ({condition!r})")
    return tree


def _names(tree) -> list[str]:
    """Every snippet.key a rule reads, in order (a dotted chain is one name, not its parts)."""
    dotted = _dotted(tree)
    if dotted:
        return [dotted]
    return [name for child in ast.iter_child_nodes(tree) for name in _names(child)]


def _evaluate(claim_id: str, node, lookup):
    if isinstance(node, ast.Expression):
        return _evaluate(claim_id, node.body, lookup)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute):
        name = _dotted(node)
        if name is None:
            raise RegistryError(f"{claim_id}: write numbers as snippet.key")
        return lookup(name)
    if isinstance(node, ast.Name):
        raise MissingMeasurement(claim_id, node.id, "", "")
    if isinstance(node, ast.BoolOp):
        values = (_evaluate(claim_id, value, lookup) for value in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(claim_id, node.operand, lookup)
        return (not value) if isinstance(node.op, ast.Not) else -value
    if isinstance(node, ast.BinOp):
        return _ARITHMETIC[type(node.op)](_evaluate(claim_id, node.left, lookup),
                                          _evaluate(claim_id, node.right, lookup))
    if isinstance(node, ast.Compare):
        left = _evaluate(claim_id, node.left, lookup)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(claim_id, right_node, lookup)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        return _FUNCTIONS[node.func.id](*(_evaluate(claim_id, a, lookup) for a in node.args))
    raise RegistryError(f"{claim_id}: cannot evaluate {ast.dump(node)}")


def _experiment(claim_id: str, entry: dict) -> Experiment:
    kind = entry.get("kind")
    if kind not in KINDS:
        raise RegistryError(f"{claim_id}: experiment kind must be one of {KINDS}, not {kind!r}")
    if bool(entry.get("snippet")) == bool(entry.get("reference")):
        raise RegistryError(f"{claim_id}: an experiment names either a snippet or a reference")
    if (kind == "literature") != bool(entry.get("reference")):
        raise RegistryError(f"{claim_id}: literature (and only literature) names a reference")
    if entry.get("planted", False) not in (True, False) or (entry.get("planted") and kind != "trained"):
        raise RegistryError(f"{claim_id}: 'planted: true' marks a trained arm with the effect built in")
    return Experiment(kind=kind, snippet=entry.get("snippet", ""), planted=entry.get("planted", False),
                      reference=entry.get("reference", ""), show=list(entry.get("show", [])),
                      numbers={k: float(v) for k, v in (entry.get("numbers") or {}).items()},
                      note=dict(entry.get("note") or {}),
                      labels={k: str(v) for k, v in (entry.get("labels") or {}).items()})


def _claim(claim_id: str, entry: dict) -> Claim:
    for key in ("title", "source", "type", "en", "zh", "rule"):
        if key not in entry:
            raise RegistryError(f"{claim_id}: missing '{key}'")
    if entry["type"] not in TYPES:
        raise RegistryError(f"{claim_id}: type must be one of {TYPES}, not {entry['type']!r}")
    rule = entry["rule"]
    cases = []
    for case in rule.get("cases") or []:
        if not (isinstance(case, dict) and len(case) == 1):
            raise RegistryError(f"{claim_id}: each case is one 'verdict: condition' pair")
        (verdict, condition), = case.items()
        if verdict not in VERDICTS:
            raise RegistryError(f"{claim_id}: verdict must be one of {VERDICTS}, not {verdict!r}")
        _parse(claim_id, str(condition))
        cases.append((verdict, str(condition)))
    otherwise = rule.get("otherwise")
    if otherwise not in VERDICTS:
        raise RegistryError(f"{claim_id}: rule.otherwise must be one of {VERDICTS}")
    for lang in ("en", "zh"):
        if not str(rule.get(lang, "")).strip():
            raise RegistryError(f"{claim_id}: the rule needs plain words in '{lang}'")
    if set(entry["title"]) != {"en", "zh"}:
        raise RegistryError(f"{claim_id}: the title needs 'en' and 'zh'")
    if any(e.get("kind") == "trained" for e in entry.get("experiments") or []) \
            and int(entry.get("seed_cap", 0)) < 8:
        raise RegistryError(f"{claim_id}: a claim decided by trained models needs seed_cap "
                            f"(the most random seeds the build may train, at least 8)")
    baseline = entry.get("baseline")
    if any(e.get("kind") == "real" for e in entry.get("experiments") or []) and not (
            isinstance(baseline, dict) and all(str(baseline.get(lang, "")).strip() for lang in ("en", "zh"))):
        raise RegistryError(f"{claim_id}: a claim decided on the real model says what its measurements are "
                            f"compared with and how they are corrected for the heads tried: "
                            f"'baseline: {{en: …, zh: …}}'")
    return Claim(id=claim_id, title=dict(entry["title"]), source=list(entry["source"]), type=entry["type"],
                 text={"en": entry["en"], "zh": entry["zh"]},
                 experiments=[_experiment(claim_id, e) for e in entry.get("experiments") or []],
                  rule_text={"en": rule["en"], "zh": rule["zh"]}, cases=cases, otherwise=otherwise,
                 examples={v: dict(m) for v, m in (rule.get("examples") or {}).items()},
                 seed_cap=int(entry.get("seed_cap", 0)),
                 item_cap=_item_cap(claim_id, entry),
                 baseline=dict(baseline) if baseline else None,
                 related=[str(other) for other in entry.get("related") or []],
                 **_power(claim_id, entry))


def _item_cap(claim_id: str, entry: dict) -> dict[str, int]:
    """G2's one more look: ``item_cap: {snippet: items}`` for the claim's real snippets."""
    caps = entry.get("item_cap") or {}
    real = {e.get("snippet") for e in entry.get("experiments") or [] if e.get("kind") == "real"}
    if not isinstance(caps, dict) or not set(caps) <= real:
        raise RegistryError(f"{claim_id}: 'item_cap' is {{snippet: items}} for its real-model snippets")
    return {str(k): int(v) for k, v in caps.items()}


def _power(claim_id: str, entry: dict) -> dict:
    """The claim's power check (G1): a recorded detection share (``power: snippet.key``), or
    for a trained claim the numbers to plant (``power: {plant: {snippet.key: size}}``), or a
    list of such sets, each planted alone (``power: {plant: [{…}, {…}]}``: the least power).
    A size is a mean, or ``{verified_bar: x}`` (``verified_bar_shift``)."""
    power = entry.get("power") or ""
    if isinstance(power, dict):
        plant = power.get("plant")
        sets = plant if isinstance(plant, list) else [plant]
        if set(power) != {"plant"} or not sets or not all(isinstance(s, dict) and s for s in sets):
            raise RegistryError(f"{claim_id}: 'power' is snippet.key, {{plant: {{snippet.key: size}}}} "
                                "or {plant: [{snippet.key: size}, ...]}")
        trained = {e.get("snippet") for e in entry.get("experiments") or [] if e.get("kind") == "trained"}
        for name in (name for one in sets for name in one):
            if name.rpartition(".")[0] not in trained:
                raise RegistryError(f"{claim_id}: power plants {name}, not a number of its trained snippets")
        return {"plant": [{str(k): _size(claim_id, k, v) for k, v in one.items()} for one in sets]}
    power = str(power)
    if power and (_dotted(ast.parse(power, mode="eval").body) != power):
        raise RegistryError(f"{claim_id}: 'power' names one recorded number, snippet.key, not {power!r}")
    return {"power": power}


def _size(claim_id: str, name: str, size) -> float | dict[str, float]:
    """A planted size: a mean (a number), or ``{verified_bar: x}``, the per-seed values shifted
    so that at least ⌈3n/4⌉ seeds lie at or above x (``verified_bar_shift``)."""
    if isinstance(size, dict):
        if set(size) != {"verified_bar"}:
            raise RegistryError(f"{claim_id}: power plants {name} at a number or {{verified_bar: x}}, "
                                f"not {size!r}")
        return {"verified_bar": float(size["verified_bar"])}
    return float(size)


def verified_bar_shift(per_seed, bar: float) -> np.ndarray:
    """The per-seed values shifted by the one constant that puts their k-th smallest at ``bar``,
    k = n − ⌈3n/4⌉ + 1: the ⌈3n/4⌉ seeds ranked k…n then lie at or above it (more on ties), the
    least a verified case that counts ⌈3n/4⌉ seeds at or above the bar allows."""
    values = np.asarray(per_seed, dtype=float)
    n = values.size
    k = n - math.ceil(0.75 * n) + 1
    return values + (bar - np.sort(values)[k - 1])


def load(path: Path = REGISTRY) -> dict[str, Claim]:
    """Every claim of the registry, checked for form (not yet against any run)."""
    entries = yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    claims = {claim_id: _claim(claim_id, entry) for claim_id, entry in entries.items()}
    for claim in claims.values():
        for other in claim.related:
            if other not in claims or other == claim.id:
                raise RegistryError(f"{claim.id}: 'related' names {other!r}, not another claim of the registry")
    return claims


@functools.lru_cache(maxsize=None)
def _parsed(claim_id: str, condition: str) -> ast.Expression:
    return _parse(claim_id, condition)


def decide(claim: Claim, numbers: dict[str, float]) -> str:
    """The verdict of ``claim``'s rule on ``numbers`` (``{"snippet.key": value}``, literature
    numbers included). A number the rule reads but nobody recorded raises MissingMeasurement."""
    def lookup(name: str) -> float:
        if name not in numbers:
            source, _, key = name.rpartition(".")
            raise MissingMeasurement(claim.id, name, source, key)
        return numbers[name]

    for verdict, condition in claim.cases:
        if _evaluate(claim.id, _parsed(claim.id, condition), lookup):
            return verdict
    return claim.otherwise


# --- Why: which case of a rule held, each number against its threshold ---------------------

@dataclass
class Check:
    """One comparison of a rule, evaluated: ``left op right`` with both sides' values."""
    left: ast.expr
    op: str                 # "<", "<=", ">", ">=", "==", "!="
    right: ast.expr
    left_value: float
    right_value: float
    holds: bool
    either: int = 0         # failed alternatives of one `or` share a number (> 0): any one would have done


@dataclass
class CaseOutcome:
    """One case of a rule: its verdict, whether its condition held, and the comparisons that
    decided that (all of them for a case that held by ``and``; the one that failed, after
    those that held before it, for a case that did not)."""
    verdict: str
    holds: bool
    checks: list[Check]


@dataclass
class Explanation:
    """Why a rule gives its verdict: the cases checked in order, up to the one that held
    (``held`` is its index), or all of them when none held and ``otherwise`` decided."""
    verdict: str
    held: int | None
    cases: list[CaseOutcome]


_OPERATORS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_EITHER = itertools.count(1)


def _witness(claim_id: str, node, lookup) -> tuple[bool, list[Check]]:
    """The truth of a condition and the comparisons that decide it, with ``and`` / ``or``
    short-circuited as the rule reads: a false ``and`` is explained by the comparisons up
    to its first false part, a true ``or`` by its first true part."""
    if isinstance(node, ast.Expression):
        return _witness(claim_id, node.body, lookup)
    if isinstance(node, ast.BoolOp):
        checks: list[Check] = []
        conjunction = isinstance(node.op, ast.And)
        for value in node.values:
            holds, part = _witness(claim_id, value, lookup)
            if holds != conjunction:   # a false part of an and, a true part of an or
                return holds, (checks + part) if conjunction else part
            checks += part
        if not conjunction:            # an or that failed: each of its parts would have done
            group = next(_EITHER)
            for check in checks:
                check.either = check.either or group
        return conjunction, checks
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        holds, checks = _witness(claim_id, node.operand, lookup)
        # `not (a < b)` is the comparison a >= b: each check is restated as what the rule needs
        return not holds, [replace(c, op=_NEGATED[c.op], holds=not c.holds) for c in checks]
    if isinstance(node, ast.Compare):
        checks = []
        left_node, left = node.left, _evaluate(claim_id, node.left, lookup)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(claim_id, right_node, lookup)
            holds = _COMPARE[type(op)](left, right)
            checks.append(Check(left_node, _OPERATORS[type(op)], right_node, float(left),
                                float(right), holds))
            if not holds:
                return False, checks[-1:]
            left_node, left = right_node, right
        return True, checks
    return bool(_evaluate(claim_id, node, lookup)), []


def explain(claim: Claim, numbers: dict[str, float]) -> Explanation:
    """Why ``claim``'s rule gives its verdict on ``numbers`` (the same verdict as ``decide``)."""
    def lookup(name: str) -> float:
        if name not in numbers:
            source, _, key = name.partition(".")
            raise MissingMeasurement(claim.id, name, source, key)
        return numbers[name]

    cases = []
    for index, (verdict, condition) in enumerate(claim.cases):
        holds, checks = _witness(claim.id, _parsed(claim.id, condition), lookup)
        cases.append(CaseOutcome(verdict, holds, checks))
        if holds:
            return Explanation(verdict, index, cases)
    return Explanation(claim.otherwise, None, cases)


def measurements(results: dict[str, dict], claims: dict[str, Claim]) -> dict[str, float]:
    """Flatten every snippet's recorded numbers and every paper's numbers into ``name.key``."""
    numbers = {f"{snippet}.{key}": entry["value"]
               for snippet, result in results.items() for key, entry in result["numbers"].items()}
    for claim in claims.values():
        for experiment in claim.experiments:
            for key, value in experiment.numbers.items():
                numbers[f"{experiment.reference}.{key}"] = value
    return numbers


def verdicts(results: dict[str, dict], claims: dict[str, Claim] | None = None) -> dict[str, str]:
    """One shown verdict per claim, from the snippets' results (``{snippet: results.json}``):
    the rule's, or open where resampling the seeds leaves it undecided or a refutation has not
    shown it could detect the effect (``assess``)."""
    return {claim_id: a.verdict for claim_id, a in assess(results, claims).items()}


# --- Stability: would the verdict survive another draw of the random seeds? ---------------

STABLE = 0.9          # share of resamplings that must give the shown verdict
POWERED = 0.8         # G1: share of planted effects a test must detect before it may refute
RESAMPLINGS = 1000    # draws of the seeds, with replacement, from a fixed generator


@dataclass
class Assessment:
    """A claim's verdict as the ledger shows it, and how sure the seeds (or items) make it."""
    verdict: str                    # shown: the rule's verdict, or open when undecided or unpowered
    rule_verdict: str               # what the rule gives on the recorded numbers
    stability: float | None = None  # share of seed (or item) resamplings giving rule_verdict
    seeds: dict[str, int] = field(default_factory=dict)   # trained snippet -> seeds it trained
    undecided: bool = False         # stability < STABLE: shown as open, "undecided at n = …"
    power: float | None = None      # share of planted effects the test detected (G1), if it has a check
    unpowered: bool = False         # the rule says refuted, the check is missing or below POWERED: open
    items: dict[str, int] = field(default_factory=dict)   # real snippet -> items it resampled (G2)

    @property
    def n_seeds(self) -> int:
        return max(self.seeds.values(), default=0)

    @property
    def n_items(self) -> int:
        return max(self.items.values(), default=0)


def aggregate(entry: dict, per_seed):
    """A recorded number's aggregate (its ``of``, with its ``chance`` or ``line``) of ``per_seed``:
    of each row of (draws, n) resampled seeds (explainer.seed_statistics.over_seeds)."""
    try:
        return over_seeds(per_seed, entry["of"], entry.get("chance", 0.0), entry.get("line", 0.0))
    except ValueError as error:
        raise RegistryError(str(error)) from None


def seed_counts(results: dict[str, dict], claim: Claim) -> dict[str, int]:
    """How many seeds each of the claim's tested trained snippets trained (its ``n_seeds``); a
    planted arm's draws are not seeds the verdict rests on, and G2 never trains it again."""
    return {s: int(results[s]["numbers"]["n_seeds"]["value"]) for s in claim.tested_snippets()
            if s in results and "n_seeds" in results[s]["numbers"]}


def resampled(results: dict[str, dict], snippets, draws: int = RESAMPLINGS,
              seed: int = 0, names: set[str] | None = None) -> list[dict[str, float]]:
    """``draws`` sets of the snippets' per-seed numbers, each recomputed on the seeds drawn
    with replacement (each snippet's seeds drawn on their own: separate experiments). With
    ``names``, only those ``snippet.key`` are recomputed (the numbers the rules read); the
    draws are the same."""
    columns: dict[str, np.ndarray] = {}
    for snippet in sorted(snippets):
        numbers = results[snippet]["numbers"]
        n = int(numbers["n_seeds"]["value"])
        # A generator of its own per snippet: its draws do not depend on the other snippets.
        rng = np.random.default_rng([seed, zlib.crc32(snippet.encode())])
        picks = rng.integers(0, n, size=(draws, n))                       # (draws, n)
        columns[f"{snippet}.n_seeds"] = np.full(draws, float(n))
        for key, entry in numbers.items():
            if "per_seed" not in entry:
                continue
            per_seed = np.asarray(entry["per_seed"], dtype=float)
            if per_seed.size != n:
                raise RegistryError(f"{snippet}.{key}: {per_seed.size} per-seed values for "
                                    f"{n} seeds")
            if names is None or f"{snippet}.{key}" in names:
                columns[f"{snippet}.{key}"] = aggregate(entry, per_seed[picks])
    return [{name: float(values[i]) for name, values in columns.items()} for i in range(draws)]


def item_resamplings(results: dict[str, dict], snippets) -> list[dict[str, float]]:
    """The real-model snippets' own resamplings of their items: draw i holds every number
    the snippet recomputed on its i-th draw (``resampled``); snippets' draws are independent,
    so they are paired by index. [] when no snippet resampled its items."""
    columns: dict[str, list[float]] = {}
    for snippet in sorted(snippets):
        for key, entry in results.get(snippet, {}).get("numbers", {}).items():
            if "resampled" in entry:
                columns[f"{snippet}.{key}"] = entry["resampled"]
    if not columns:
        return []
    sizes = {len(values) for values in columns.values()}
    if len(sizes) != 1:
        raise RegistryError(f"resampled numbers of {sorted(snippets)} differ in their number of draws: {sizes}")
    return [{name: values[i] for name, values in columns.items()} for i in range(sizes.pop())]


def item_counts(results: dict[str, dict], claim: Claim) -> dict[str, int]:
    """How many items each of the claim's real-model snippets that resampled them measured."""
    return {e.snippet: int(results[e.snippet]["numbers"]["n_items"]["value"])
            for e in claim.experiments if e.kind == "real" and e.snippet in results
            and "n_items" in results[e.snippet]["numbers"]
            and any("resampled" in n for n in results[e.snippet]["numbers"].values())}


ASSESSED = Path(__file__).resolve().parents[2] / ".cache" / "assessments"


def assess(results: dict[str, dict], claims: dict[str, Claim] | None = None,
           draws: int = RESAMPLINGS) -> dict[str, Assessment]:
    """Every claim's shown verdict; a claim decided by trained models also gets the share
    of seed resamplings in which its rule gives the same verdict. The resamplings are the
    slow part, and their outcome follows from the recorded numbers, the claims, this file
    and explainer/seed_statistics.py: an assessment of the same inputs is read back from
    .cache/assessments/."""
    claims = claims if claims is not None else load()
    key = hashlib.sha256(Path(__file__).read_bytes() + SEED_STATISTICS.read_bytes())
    key.update(repr(sorted((claim_id, _decisive(claim)) for claim_id, claim in claims.items())).encode())
    read = {e.snippet for claim in claims.values() for e in claim.experiments if e.snippet}
    key.update(json.dumps({name: results[name].get("numbers") for name in sorted(read & set(results))},
                          sort_keys=True).encode())
    key.update(str(draws).encode())
    stored = ASSESSED / f"{key.hexdigest()[:24]}.json"
    if stored.is_file():
        return {claim_id: Assessment(**entry)
                for claim_id, entry in json.loads(stored.read_text(encoding="utf-8")).items()}
    assessments = _assess(results, claims, draws)
    ASSESSED.mkdir(parents=True, exist_ok=True)
    scratch = stored.with_suffix(f".{os.getpid()}.tmp")  # two builds may store it at once
    scratch.write_text(json.dumps({c: asdict(a) for c, a in assessments.items()}), encoding="utf-8")
    scratch.replace(stored)
    return assessments


def _decisive(claim: Claim) -> Claim:
    """The claim without its wording (title, paraphrases, the rule in words, notes): an edit
    to those decides nothing again (the live preview shows it without resampling)."""
    return replace(claim, title={}, text={}, rule_text={},
                   experiments=[replace(e, note={}, labels={}) for e in claim.experiments])


def planted(results: dict[str, dict], claim: Claim, draws: int = RESAMPLINGS, seed: int = 1) -> float:
    """G1 for a trained claim: the share of simulated runs in which the rule does *not* refute
    when the claim is true at its threshold. Each run redraws the claim's seeds (same number);
    a planted number keeps its observed per-seed spread, shifted to the planted mean; the
    other numbers are resampled as in ``resampled``. Several sets of planted numbers are each
    planted alone, and the power is the least: the effect hardest to see.

    A size ``{verified_bar: x}`` shifts a number's recorded per-seed values once, before the
    redraw, by its own constant (``verified_bar_shift``), and keeps each seed's models
    together: the snippet's other per-seed numbers are redrawn with the same seed picks, except
    its counts of seeds, which stay as recorded (conditions on the run, not the effect's noise)."""
    return min(_planted_once(results, claim, one, draws, seed) for one in claim.plant)


def _planted_once(results: dict[str, dict], claim: Claim, plant: dict[str, float], draws: int,
                  seed: int) -> float:
    numbers = measurements(results, {claim.id: claim})
    read = claim.names()
    samples = resampled(results, claim.trained_snippets(), draws, seed, names=read)
    rng = np.random.default_rng([seed, zlib.crc32(claim.id.encode())])
    picks: dict[str, np.ndarray] = {}   # one draw of seeds per snippet, shared by its planted numbers
    together: set[str] = set()          # snippets planted at a verified bar: all numbers on those picks
    for name, size in plant.items():
        snippet, _, key = name.rpartition(".")
        entry = results[snippet]["numbers"][key]
        per_seed = np.asarray(entry["per_seed"], dtype=float)
        n = per_seed.size
        if entry["of"] in ("count", "binomial_p") or entry["of"] in PAST_LINE:
            # A count of seeds planted at its bar restates the seed design: a coin per seed, or a
            # measurement shifted so that 3/4 of the observed seeds lie past its line, gives a
            # redrawn count of Binomial(n, 3/4) whatever the measurement can see. A count's
            # check needs a planted arm (a model trained with the effect built in).
            raise RegistryError(f"{claim.id}: power plants {name}, a count of seeds; a count's "
                                f"power check needs a planted arm, not a shifted measurement")
        if snippet not in picks:
            picks[snippet] = rng.integers(0, n, size=(draws, n))
        if isinstance(size, dict):
            values = verified_bar_shift(per_seed, size["verified_bar"])[picks[snippet]]   # (draws, n)
            together.add(snippet)
        else:
            values = (per_seed + (size - per_seed.mean()))[picks[snippet]]     # (draws, n)
        for sample, value in zip(samples, aggregate(entry, values)):
            sample[name] = float(value)
    for snippet in sorted(together):   # {verified_bar: x}: the seed's other numbers with it
        for key, entry in results[snippet]["numbers"].items():
            name = f"{snippet}.{key}"
            if "per_seed" not in entry or name in plant or name not in read:
                continue
            if entry["of"] in ("count", "binomial_p") or entry["of"] in PAST_LINE:
                redrawn = np.full(draws, float(entry["value"]))
            else:
                redrawn = aggregate(entry, np.asarray(entry["per_seed"], dtype=float)[picks[snippet]])
            for sample, value in zip(samples, redrawn):
                sample[name] = float(value)
    return sum(decide(claim, {**numbers, **sample}) != "refuted" for sample in samples) / draws


def _assess(results: dict[str, dict], claims: dict[str, Claim], draws: int) -> dict[str, Assessment]:
    numbers = measurements(results, claims)
    trained = {s for claim in claims.values() for s in claim.tested_snippets() if s in results}
    read = {name for claim in claims.values() for name in claim.names()}
    samples = resampled(results, trained, draws, names=read) if trained else []
    assessments = {}
    for claim_id, claim in claims.items():
        verdict = decide(claim, numbers)
        seeds = seed_counts(results, claim)
        stability, undecided = None, False
        if seeds:
            same = sum(decide(claim, {**numbers, **sample}) == verdict for sample in samples)
            stability = same / len(samples)
            undecided = stability < STABLE
        items = item_counts(results, claim)
        if items and not seeds:
            # G2: a real-model verdict must survive another draw of its items
            draws_of_items = item_resamplings(results, items)
            same = sum(decide(claim, {**numbers, **sample}) == verdict for sample in draws_of_items)
            stability = same / len(draws_of_items)
            undecided = stability < STABLE
        power = (planted(results, claim, draws) if claim.plant and seeds
                 else numbers.get(claim.power) if claim.power else None)
        # G1: an empirical refutation stands only where the same test detects a planted effect
        # of the size that would make the claim true; "could not tell" is open, never refuted.
        unpowered = (verdict == "refuted" and claim.type == "empirical"
                     and (power is None or power < POWERED))
        shown = "open" if undecided or unpowered else verdict
        assessments[claim_id] = Assessment(shown, verdict, stability, seeds, undecided,
                                           None if power is None else float(power), unpowered,
                                           items if not seeds else {})
    return assessments


def more_seeds(assessments: dict[str, Assessment], claims: dict[str, Claim]) -> dict[str, int]:
    """Snippets to train again with twice the seeds: those of an undecided claim whose
    seed_cap allows it (snippet -> seeds)."""
    wanted: dict[str, int] = {}
    for claim_id, assessment in assessments.items():
        if not assessment.undecided:
            continue
        for snippet, n in assessment.seeds.items():
            if 2 * n <= claims[claim_id].seed_cap:
                wanted[snippet] = max(wanted.get(snippet, 0), 2 * n)
    return wanted


def more_items(assessments: dict[str, Assessment], claims: dict[str, Claim]) -> dict[str, int]:
    """G2's second look: the real snippets of a claim that its items leave undecided, to run
    once more at the claim's item_cap (snippet -> items); a snippet at its cap is not run again."""
    wanted: dict[str, int] = {}
    for claim_id, assessment in assessments.items():
        if not assessment.undecided or assessment.seeds:
            continue
        for snippet, cap in claims[claim_id].item_cap.items():
            if assessment.items.get(snippet, cap) < cap:
                wanted[snippet] = max(wanted.get(snippet, 0), cap)
    return wanted
