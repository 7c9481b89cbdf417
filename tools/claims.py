"""The claims registry (docs/claims.yml) and its rules: one verdict per claim.

Snippets only record numbers. A claim's rule, written in the registry before the run,
reads those numbers as ``snippet.key`` (or ``reference.key`` for a paper's own numbers)
and gives the verdict:

    rule:
      cases:                       # checked in order; the first that holds decides
        - refuted: "scaling.grad_softmax_ratio_1024 < 0.01"
      otherwise: nuanced

A condition is a small expression: numbers, names, + - * /, comparisons, and / or / not,
abs / min / max. Nothing else is allowed, so a rule reads the same to a reviewer as to
the build.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REGISTRY = Path(__file__).resolve().parent.parent / "docs" / "claims.yml"
VERDICTS = ("verified", "nuanced", "refuted", "open")
TYPES = ("empirical", "mathematical", "definitional", "historical")
KINDS = ("construction", "trained", "real", "equivalence", "literature")


class RegistryError(ValueError):
    """The registry itself is malformed (a claim, rule or experiment entry)."""


class MissingMeasurement(KeyError):
    """A rule reads a number that no run recorded."""

    def __init__(self, claim_id: str, name: str, source: str, key: str):
        self.claim_id, self.name = claim_id, name
        where = (f"snippets/{source}.py recorded no number '{key}'" if source
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

    def reachable(self) -> set[str]:
        """The verdicts this rule can give."""
        return {verdict for verdict, _ in self.cases} | {self.otherwise}

    def names(self) -> set[str]:
        """Every ``source.key`` the rule reads."""
        return {name for _, condition in self.cases for name in _names(_parse(self.id, condition))}


_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv}
_FUNCTIONS = {"abs": abs, "min": min, "max": max}


def _dotted(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
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
    names = []
    for node in ast.walk(tree):
        dotted = _dotted(node)
        if dotted:
            names.append(dotted)
        elif isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
            # A bare name is only allowed as the head of snippet.key (or as a function).
            pass
    return names


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
    return Experiment(kind=kind, snippet=entry.get("snippet", ""),
                      reference=entry.get("reference", ""), show=list(entry.get("show", [])),
                      numbers={k: float(v) for k, v in (entry.get("numbers") or {}).items()},
                      note=dict(entry.get("note") or {}))


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
    return Claim(id=claim_id, title=dict(entry["title"]), source=list(entry["source"]), type=entry["type"],
                 text={"en": entry["en"], "zh": entry["zh"]},
                 experiments=[_experiment(claim_id, e) for e in entry.get("experiments") or []],
                 rule_text={"en": rule["en"], "zh": rule["zh"]}, cases=cases, otherwise=otherwise,
                 examples={v: dict(m) for v, m in (rule.get("examples") or {}).items()})


def load(path: Path = REGISTRY) -> dict[str, Claim]:
    """Every claim of the registry, checked for form (not yet against any run)."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {claim_id: _claim(claim_id, entry) for claim_id, entry in entries.items()}


def decide(claim: Claim, numbers: dict[str, float]) -> str:
    """The verdict of ``claim``'s rule on ``numbers`` (``{"snippet.key": value}``, literature
    numbers included). A number the rule reads but nobody recorded raises MissingMeasurement."""
    def lookup(name: str) -> float:
        if name not in numbers:
            source, _, key = name.partition(".")
            raise MissingMeasurement(claim.id, name, source, key)
        return numbers[name]

    for verdict, condition in claim.cases:
        if _evaluate(claim.id, _parse(claim.id, condition), lookup):
            return verdict
    return claim.otherwise


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
    """One verdict per claim, from the snippets' results (``{snippet: results.json}``)."""
    claims = claims if claims is not None else load()
    numbers = measurements(results, claims)
    return {claim_id: decide(claim, numbers) for claim_id, claim in claims.items()}
