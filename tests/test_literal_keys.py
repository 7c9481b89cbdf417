"""Every number a snippet records has a key a reader can grep for (issue 34): the first
argument of ``report.number`` / ``figure`` / ``text`` / ``data`` is a string literal, so
``grep -rn '"coreference_heads"' snippets/`` finds where a rule's or a page's number is made.

Some snippets still build keys at run time (loops over roles, variants, arms). They are listed
below with their count of such calls; the list may only shrink: a new file, or a higher count,
fails."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDING = {"number", "figure", "text", "data"}

# Snippets that still build report keys at run time, and how many calls do (2026-12-03).
NOT_YET_LITERAL = {
    "explainer/seeds.py": 3,
}


def computed_keys(source: str) -> int:
    """How many report.number/figure/text/data calls name their key by an expression."""
    count = 0
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in RECORDING and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "report" and node.args
                and not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))):
            count += 1
    return count


def test_the_check_sees_a_computed_key_and_accepts_a_literal_one():
    assert computed_keys('report.number("heads", n, "{:.0f}")') == 0
    assert computed_keys('report.number(f"{role}_heads", n, "{:.0f}")') == 1
    assert computed_keys('for k in keys:\n    report.text(k, en="", zh="")') == 1
    assert computed_keys('other.number(f"{x}", 1)') == 0


def test_every_report_key_is_a_literal_except_the_listed_ones_which_only_shrink():
    found = {}
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        if "build" in path.relative_to(ROOT / "snippets").parts:
            continue
        n = computed_keys(path.read_text(encoding="utf-8"))
        if n:
            found[path.relative_to(ROOT / "snippets").as_posix()] = n
    grown = {name: (n, NOT_YET_LITERAL.get(name, 0)) for name, n in found.items()
             if n > NOT_YET_LITERAL.get(name, 0)}
    assert not grown, f"report keys built at run time (found, allowed): {grown}; write the key out"
    done = sorted(set(NOT_YET_LITERAL) - set(found))
    assert not done, f"{done} build no key at run time any more: remove them from NOT_YET_LITERAL"


SEED_COUNTS = {"report_seed_count", "report_seeds_past"}   # explainer/seeds.py: report.number's key second


def described_in_code_and_bare(source: str) -> tuple[set[str], set[str]]:
    """The literal keys of report.number calls that describe their number (en=/zh=), and those
    that leave it to the strings file."""
    described, bare = set(), set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        if (isinstance(node.func, ast.Attribute) and node.func.attr == "number"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "report"):
            key = node.args[0] if node.args else None
        elif isinstance(node.func, ast.Name) and node.func.id in SEED_COUNTS:
            key = node.args[1] if len(node.args) > 1 else None
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            about = {k.arg for k in node.keywords} & {"en", "zh"}
            (described if about else bare).add(key.value)
    return described, bare


def test_the_check_sees_which_calls_leave_their_description_to_the_strings_file():
    assert described_in_code_and_bare('report.number("a", 1, en="x", zh="y")\nreport.number("b", 2)') \
        == ({"a"}, {"b"})
    assert described_in_code_and_bare('report_seed_count(report, "c", hits)') == (set(), {"c"})


def test_a_strings_file_describes_exactly_the_numbers_its_snippet_records_without_a_description():
    """snippets/x/y.strings.toml beside snippets/x/y.py: each of its keys is recorded by the
    snippet with no en=/zh= of its own, and each such number of the snippet is in it — checked
    without running anything, so a typo in a key fails here, not at the build."""
    import tomllib

    wrong = {}
    for strings in sorted((ROOT / "snippets").rglob("*.strings.toml")):
        snippet = strings.with_name(strings.name.removesuffix(".strings.toml") + ".py")
        described, bare = described_in_code_and_bare(snippet.read_text(encoding="utf-8"))
        keys = set(tomllib.loads(strings.read_text(encoding="utf-8"))) - {"figure_text"}   # figures' words
        if not keys:
            continue  # the figures' words only: its numbers are described in code, as without a file
        if keys != bare:
            wrong[strings.relative_to(ROOT).as_posix()] = {
                "no such bare call": sorted(keys - bare), "not in the file": sorted(bare - keys),
                "described twice": sorted(keys & described)}
    assert wrong == {}, wrong


def test_a_snippet_reads_figure_words_exactly_when_its_strings_file_has_them():
    """``report.figure_text()`` in a snippet, and ``[figure_text.en]``/``[figure_text.zh]`` in its
    strings file with the same names in both: one without the other fails without running anything."""
    import tomllib

    wrong = {}
    for snippet in sorted((ROOT / "snippets").rglob("*.py")):
        if "build" in snippet.relative_to(ROOT / "snippets").parts:
            continue
        reads = "report.figure_text()" in snippet.read_text(encoding="utf-8")
        strings = snippet.with_suffix(".strings.toml")
        words = tomllib.loads(strings.read_text(encoding="utf-8")).get("figure_text") if strings.is_file() else None
        has = words is not None and set(words) == {"en", "zh"} and set(words["en"]) == set(words["zh"])
        if reads != has:
            wrong[snippet.relative_to(ROOT).as_posix()] = {"reads": reads, "has both languages' words": has}
    assert wrong == {}, wrong
