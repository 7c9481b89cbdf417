"""Every snippet, discovered: it records numbers (never verdicts), draws bilingual figures, has a
test of its own and a page in both languages. A new snippet is picked up here
without touching this file."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from tools.pages import page_macros
from tools.verdicts import claims as registry
from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parent.parent
NAMES = [snippet_runner.name_of(path) for path in snippet_runner.discover()]
CJK = re.compile(r"[\u4e00-\u9fff]")


def pages_showing(name: str, lang: str) -> list[str]:
    docs = ROOT / "docs" / lang
    return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
                  if name in page_macros.listings(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", NAMES)
def test_snippet_records_numbers_and_picks_no_verdict(results, name):
    # Verdicts come from the rules in docs/claims.yml (tools/verdicts/claims.py), never from the snippet.
    place = snippet_runner.path_of(name)
    source = (ROOT / "snippets" / f"{place}.py").read_text(encoding="utf-8")
    assert "report.claim(" not in source, f"snippets/{place}.py picks a verdict itself"
    assert results(name).data.get("claims", []) == []
    assert results(name).data["numbers"] or results(name).data.get("data")


@pytest.mark.parametrize("name", NAMES)
def test_every_number_is_described_in_both_languages(results, name):
    # By its report call (en=/zh=) or by the snippet's strings file (snippet_runner.with_strings):
    # the page's table of its numbers says what each one is.
    undescribed = [key for key, number in results(name).data["numbers"].items()
                   if not all(number.get("about", {}).get(lang, "").strip() for lang in ("en", "zh"))]
    assert undescribed == [], f"describe them in {snippet_runner.path_of(name)}.strings.toml"


@pytest.mark.parametrize("name", NAMES)
def test_snippet_figures_exist_in_both_languages_with_alt_text(results, name):
    r = results(name)
    for key, by_lang in r.data["figures"].items():
        assert set(by_lang) == {"en", "zh"}, key
        assert CJK.search(by_lang["zh"]["alt"]), f"{key}: Chinese alt text expected"
        for lang in ("en", "zh"):
            svg = (r.dir / by_lang[lang]["file"]).read_text(encoding="utf-8")
            assert svg.startswith("<?xml") and "<svg" in svg


@pytest.mark.parametrize("name", NAMES)
def test_snippet_has_a_test_that_asserts_what_it_shows(name):
    folder, _, file = snippet_runner.path_of(name).rpartition("/")
    test_file = ROOT / "tests" / "snippets" / folder / f"test_{file}.py"
    assert test_file.is_file(), f"write {test_file.relative_to(ROOT)}"
    source = test_file.read_text(encoding="utf-8")
    assert re.search(r"def test_\w+\(", source) and f'results("{name}")' in source


@pytest.mark.parametrize("name", NAMES)
def test_snippet_is_shown_on_one_page_in_each_language(name):
    en, zh = pages_showing(name, "en"), pages_showing(name, "zh")
    assert len(en) == 1, f"{name}'s code() should appear on exactly one English page, found {en}"
    assert en == zh, f"English page {en} and Chinese page {zh} should be twins"


# --- numbers over seeds: invariants that hold on any machine -------------------------------

def spread_families(numbers: dict) -> dict[str, dict[str, float]]:
    """``key_mean``, ``key_min``, ``key_max`` (and ``key_std``) grouped under ``key``."""
    families: dict[str, dict[str, float]] = {}
    for key, entry in numbers.items():
        base, _, stat = key.rpartition("_")
        if stat in ("mean", "min", "max", "std") and base:
            families.setdefault(base, {})[stat] = entry["value"]
    return {base: stats for base, stats in families.items() if {"mean", "min", "max"} <= set(stats)}


@pytest.mark.parametrize("name", NAMES)
def test_numbers_over_seeds_agree_with_their_per_seed_values(results, name):
    numbers = results(name).data["numbers"]
    n = numbers.get("n_seeds", {}).get("value")
    for key, entry in numbers.items():
        if "per_seed" not in entry:
            continue
        per_seed = entry["per_seed"]
        assert n is not None and len(per_seed) == n, f"{name}.{key}: {len(per_seed)} values, n_seeds {n}"
        assert entry["value"] == pytest.approx(registry.aggregate(entry, np.array(per_seed)),
                                               rel=1e-5, abs=1e-9), f"{name}.{key}"
        if entry["of"].startswith("count"):
            assert entry["value"] == int(entry["value"]) and 0 <= entry["value"] <= n, f"{name}.{key}"
    for base, stats in spread_families(numbers).items():
        assert stats["min"] - 1e-9 <= stats["mean"] <= stats["max"] + 1e-9, f"{name}.{base}: min/mean/max"
        if "std" in stats:
            assert 0 <= stats["std"] <= stats["max"] - stats["min"] + 1e-9, f"{name}.{base}: std"


# Numbers a trained claim's rule may read without per-seed values: they do not depend on
# the seeds of the training (said why, one by one).
SEED_FREE: dict[str, str] = {}


def test_every_number_a_trained_rule_reads_can_be_resampled_over_seeds(results):
    for claim in registry.load().values():
        for snippet in claim.trained_snippets():
            numbers = results(snippet).data["numbers"]
            for name in sorted(n for n in claim.names() if n.rpartition(".")[0] == snippet):
                key = name.rpartition(".")[2]
                assert key == "n_seeds" or "per_seed" in numbers[key] or name in SEED_FREE, (
                    f"{claim.id} reads {name}, recorded without its per-seed values: the build "
                    "cannot tell whether the verdict survives another draw of the seeds")


# --- snippet tests check computations, not today's outcome --------------------------------

TESTS = ROOT / "tests" / "snippets"
NUMBER_READ = re.compile(r'number\("(\w+)"\)')


def rule_thresholds_asserted(test_source: str, snippet: str, rule_keys: set[str]) -> list[str]:
    """Assertions in a snippet test that hold a number a claim's rule reads (n_seeds aside)
    against a threshold: a number other than 0 and 1 written in the assertion. Relations
    between recorded numbers (low < mean < high) and bounds (0 <= p <= 1) are invariants."""
    found = []
    for node in ast.walk(ast.parse(test_source)):
        if not isinstance(node, ast.Assert):
            continue
        text = ast.get_source_segment(test_source, node)
        thresholds = [c for c in ast.walk(node) if isinstance(c, ast.Constant)
                      and isinstance(c.value, (int, float)) and not isinstance(c.value, bool)
                      and c.value not in (0, 1)]
        if thresholds:
            found += [f"{snippet}.{key}: {text.splitlines()[0]}" for key in NUMBER_READ.findall(text)
                      if key in rule_keys and key != "n_seeds"]
    return found


def test_rule_threshold_check_finds_a_planted_assertion():
    planted = 'def test_x(results):\n    assert results("t").number("wins") >= 6\n'
    assert rule_thresholds_asserted(planted, "t", {"wins"}) == ['t.wins: assert results("t").number("wins") >= 6']
    assert rule_thresholds_asserted(planted, "t", {"other"}) == []
    scaled = 'def test_x(r):\n    assert r.number("wins") >= 0.75 * r.number("n_seeds")\n'
    assert len(rule_thresholds_asserted(scaled, "t", {"wins"})) == 1
    invariant = 'def test_x(r):\n    assert 0 <= r.number("low") <= r.number("wins") <= 1\n'
    assert rule_thresholds_asserted(invariant, "t", {"wins", "low"}) == []


def test_no_snippet_test_asserts_a_rule_on_a_recorded_number():
    # A verdict is the rule's business (tools/verdicts/claims.py), recomputed by every build; a test that
    # repeats it fails when an outcome changes, for reasons unrelated to correctness.
    # (An equivalence or a mathematical fact is different: there the rule's tolerance is
    # the computation being right, and its test may assert it.)
    read = {}
    for claim in registry.load().values():
        measured = {e.snippet for e in claim.experiments if e.kind in ("trained", "real")}
        for name in claim.names():
            snippet, _, key = name.rpartition(".")
            if snippet in measured:
                read.setdefault(snippet, set()).add(key)
    offending = []
    for test_file in sorted(TESTS.rglob("test_*.py")):
        # tests/snippets/many_heads/test_pruning.py tests snippets/many_heads/pruning.py
        snippet = ".".join([*test_file.relative_to(TESTS).parent.parts,
                            test_file.stem.removeprefix("test_")])
        offending += rule_thresholds_asserted(test_file.read_text(encoding="utf-8"), snippet,
                                              read.get(snippet, set()))
    assert offending == []


MEASURED_COMMENT = re.compile(r"#.*(?:\bmeasured\b|\b\d+ of \d+\b)", re.I)


def test_no_snippet_test_comment_quotes_a_measured_number():
    # Such comments go stale at the next run; the numbers live in results.json and on the pages.
    stale = [f"{f.name}:{i}: {line.strip()}" for f in sorted(TESTS.rglob("test_*.py"))
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if MEASURED_COMMENT.search(line)]
    assert stale == []
