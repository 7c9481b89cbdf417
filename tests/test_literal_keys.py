"""Every number a snippet records has a key a reader can grep for (issue 34): the first
argument of ``report.number`` / ``figure`` / ``text`` / ``category`` / ``data`` is a string literal, so
``grep -rn '"coreference_heads"' snippets/`` finds where a rule's or a page's number is made.

A helper that records for its caller (``explainer.seeds.report_spread`` and the seed counts)
passes on the caller's key: its recording calls name the key by its own parameter, alone or
with a literal ending (``key + "_mean"``), and every call of the helper writes that key out."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDING = {"number", "figure", "text", "category", "data"}


def _literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _recording_calls(tree: ast.AST):
    """(call, the function it is in or None) for every report.number/figure/text/category/data call."""
    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                    and child.func.attr in RECORDING and isinstance(child.func.value, ast.Name)
                    and child.func.value.id == "report" and child.args):
                yield child, function
            yield from walk(child, inner)
    yield from walk(tree, None)


def _passed_on(key, function) -> str | None:
    """The helper's parameter its key is, when the key is that parameter, alone or plus a
    literal ending; else None."""
    if function is None:
        return None
    params = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add) and _literal(key.right):
        key = key.left
    return key.id if isinstance(key, ast.Name) and key.id in params else None


def helpers(source: str) -> dict[str, tuple[int | None, str]]:
    """The functions of ``source`` that record under a key their caller gives: name ->
    (the key's position among the arguments, or None if keyword-only; the parameter's name)."""
    found = {}
    for call, function in _recording_calls(ast.parse(source)):
        param = _passed_on(call.args[0], function)
        if param is not None:
            positional = [a.arg for a in function.args.posonlyargs + function.args.args]
            found[function.name] = (positional.index(param) if param in positional else None, param)
    return found


def _explainer_helpers() -> dict[str, tuple[int | None, str]]:
    found = {}
    for path in sorted((ROOT / "snippets" / "explainer").rglob("*.py")):
        found.update(helpers(path.read_text(encoding="utf-8")))
    return found


def computed_keys(source: str, shared: dict | None = None) -> int:
    """How many calls name a report key by an expression: report.number/figure/text/category/data calls
    (except a helper passing on its caller's key), and calls of such a helper (``shared``: the
    ones ``explainer`` defines; the file's own count too) that do not write the key out."""
    tree = ast.parse(source)
    count = sum(1 for call, function in _recording_calls(tree)
                if not _literal(call.args[0]) and _passed_on(call.args[0], function) is None)
    passing_on = {**(shared or {}), **helpers(source)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else \
            node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name not in passing_on:
            continue
        position, param = passing_on[name]
        key = next((k.value for k in node.keywords if k.arg == param), None)
        if key is None and position is not None and len(node.args) > position:
            key = node.args[position]
        if key is not None and not _literal(key):
            count += 1
    return count


def test_the_check_sees_a_computed_key_and_accepts_a_literal_one():
    assert computed_keys('report.number("heads", n, "{:.0f}")') == 0
    assert computed_keys('report.number(f"{role}_heads", n, "{:.0f}")') == 1
    assert computed_keys('for k in keys:\n    report.text(k, en="", zh="")') == 1
    assert computed_keys('other.number(f"{x}", 1)') == 0
    assert computed_keys('report.category("share", word)') == 0
    assert computed_keys('report.category(f"{arm}_share", word)') == 1


def test_the_check_follows_a_key_a_helper_passes_on_to_its_callers():
    helper = ('def spread(report, key, values):\n'
              '    report.number(key + "_mean", values.mean())\n'
              '    report.number(key, values.max())\n')
    assert helpers(helper) == {"spread": (1, "key")}
    assert computed_keys(helper) == 0
    assert computed_keys(helper + 'spread(report, "accuracy", v)\nspread(report, key="loss", values=v)') == 0
    assert computed_keys(helper + 'spread(report, f"{arm}_accuracy", v)\nspread(report, key=k, values=v)') == 2
    assert computed_keys('seeds.spread(report, name, v)', {"spread": (1, "key")}) == 1
    assert computed_keys('def f(report, key):\n    report.number(f"{key}_mean", 1)') == 1
    assert computed_keys('def f(report, key):\n    report.number(key.upper(), 1)') == 1
    assert computed_keys('def f(report):\n    key = "a"\n    report.number(key, 1)') == 1
    assert {"report_spread", "report_seed_count", "report_seeds_past", "report_mean_range"} <= set(_explainer_helpers())


def test_every_report_key_is_a_literal():
    shared = _explainer_helpers()
    found = {}
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        if "build" in path.relative_to(ROOT / "snippets").parts:
            continue
        n = computed_keys(path.read_text(encoding="utf-8"), shared)
        if n:
            found[path.relative_to(ROOT / "snippets").as_posix()] = n
    assert found == {}, f"report keys built at run time (calls per file): {found}; write the key out"


SEED_COUNTS = {"report_seed_count", "report_seeds_past"}   # explainer/seeds.py: report.number's key second
# explainer/seeds.py's helpers that record under the key plus these endings (always bare: no en=/zh=)
ENDINGS = {"report_mean_range": ("_mean", "_min", "_max")}


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
        elif isinstance(node.func, ast.Name) and node.func.id in ENDINGS:
            key = node.args[1] if len(node.args) > 1 else None
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                bare.update(key.value + ending for ending in ENDINGS[node.func.id])
            continue
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
    assert described_in_code_and_bare('report_mean_range(report, "d", v, "{:.2f}")') == \
        (set(), {"d_mean", "d_min", "d_max"})


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
