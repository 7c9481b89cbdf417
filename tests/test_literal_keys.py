"""Every number a snippet records has a key a reader can grep for (issue 34): the first
argument of ``report.number`` / ``figure`` / ``text`` / ``category`` / ``data`` is a string literal, so
``grep -rn '"coreference_heads"' snippets/`` finds where a rule's or a page's number is made.

Only the shared package (``snippets/explainer``) has helpers that record for their caller
(``explainer.seeds.report_spread`` and the seed counts): each key they record is one of their
parameters, passed on whole, and every call of such a helper writes each of those keys out
(``report_spread(report, v, mean="accuracy_mean", std="accuracy_std", ...)``). No key is built
at run time: not by an f-string, not by adding an ending to a stem. A snippet has no recording
helper of its own (``keys_not_written_whole``). Every key docs/claims.yml reads from a snippet
is written out whole in it."""

import ast
from pathlib import Path

from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parent.parent
RECORDING = {"number", "figure", "text", "category", "data"}


def _literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _calls(tree: ast.AST):
    """(call, the function it is in or None) for every call."""
    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call):
                yield child, function
            yield from walk(child, inner)
    yield from walk(tree, None)


def _recording(call) -> bool:
    """A report.number/figure/text/category/data call."""
    return (isinstance(call.func, ast.Attribute) and call.func.attr in RECORDING
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "report" and bool(call.args))


def _name(call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else \
        call.func.attr if isinstance(call.func, ast.Attribute) else None


def _described(call) -> bool:
    """Whether a recording call describes its number in code (en=/zh=)."""
    return bool({k.arg for k in call.keywords} & {"en", "zh"})


def _keys(call, helpers: dict) -> list[tuple[ast.AST | None, bool]]:
    """The key arguments of a recording call or of a call of one of ``helpers`` (``key_params``),
    each with whether it is described in code; a key the call does not give is None."""
    if _recording(call):
        return [(call.args[0], call.func.attr == "number" and _described(call))]
    given = []
    for param, (position, described) in helpers.get(_name(call), {}).items():
        key = next((k.value for k in call.keywords if k.arg == param), None)
        if key is None and position is not None and len(call.args) > position:
            key = call.args[position]
        given.append((key, described))
    return given


def key_params(source: str, shared: dict | None = None) -> dict[str, dict[str, tuple[int | None, bool]]]:
    """The functions of ``source`` that record under keys their caller gives, directly or through
    another such helper (``shared``: explainer's): name -> {parameter: (its position among the
    positional arguments, or None if keyword-only; whether the number is described in code)}. A
    parameter counts only when passed on whole: ``key + "_mean"`` is a key built at run time."""
    shared, found = dict(shared or {}), {}
    calls = [(call, function) for call, function in _calls(ast.parse(source)) if function is not None]
    changed = True
    while changed:
        changed = False
        known = {**shared, **found}
        for call, function in calls:
            positional = [a.arg for a in function.args.posonlyargs + function.args.args]
            params = positional + [a.arg for a in function.args.kwonlyargs]
            for key, described in _keys(call, known):
                if isinstance(key, ast.Name) and key.id in params \
                        and key.id not in found.setdefault(function.name, {}):
                    found[function.name][key.id] = (positional.index(key.id) if key.id in positional else None,
                                                     described)
                    changed = True
    return {name: params for name, params in found.items() if params}


def explainer_helpers() -> dict:
    found = {}
    for path in sorted((ROOT / "snippets" / "explainer").rglob("*.py")):
        found.update(key_params(path.read_text(encoding="utf-8"), found))
    return found


def computed_keys(source: str, shared: dict | None = None) -> int:
    """How many keys are built at run time in ``source`` (``snippets/explainer``): keys of
    report.number/figure/text/category/data calls and of calls of a helper that records under its
    caller's keys (``shared``; the file's own too) that are neither a string literal nor the
    enclosing function's own parameter passed on whole."""
    helpers = {**(shared or {}), **key_params(source, shared)}
    count = 0
    for call, function in _calls(ast.parse(source)):
        for key, _ in _keys(call, helpers):
            passed_on = function is not None and isinstance(key, ast.Name) and key.id in {
                a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
            if key is not None and not _literal(key) and not passed_on:
                count += 1
    return count


def test_the_check_sees_a_computed_key_and_accepts_a_literal_one():
    assert computed_keys('report.number("heads", n, "{:.0f}")') == 0
    assert computed_keys('report.category("share", word)') == 0
    assert computed_keys('report.category(f"{arm}_share", word)') == 1
    assert computed_keys('report.number(f"{role}_heads", n, "{:.0f}")') == 1
    assert computed_keys('for k in keys:\n    report.text(k, en="", zh="")') == 1
    assert computed_keys('other.number(f"{x}", 1)') == 0


def test_the_check_follows_keys_a_helper_passes_on_whole_to_its_callers():
    helper = ('def spread(report, values, *, mean, top):\n'
              '    report.number(mean, values.mean())\n'
              '    report.number(top, values.max(), en="top", zh="最高")\n')
    assert key_params(helper) == {"spread": {"mean": (None, False), "top": (None, True)}}
    assert computed_keys(helper) == 0
    assert computed_keys(helper + 'spread(report, v, mean="accuracy_mean", top="accuracy_max")') == 0
    assert computed_keys(helper + 'spread(report, v, mean=f"{arm}_mean", top=key)') == 2
    assert computed_keys('seeds.count(report, name, v)', {"count": {"key": (1, False)}}) == 1
    # a stem plus an ending is a key built at run time, in a helper as anywhere
    assert computed_keys('def f(report, key):\n    report.number(key + "_mean", 1)') == 1
    assert computed_keys('def f(report, key):\n    report.number(f"{key}_mean", 1)') == 1
    assert computed_keys('def f(report, key):\n    report.number(key.upper(), 1)') == 1
    assert computed_keys('def f(report):\n    key = "a"\n    report.number(key, 1)') == 1
    nested = 'def both(report, v, hits):\n    count(report, hits, v > 0)\n'   # a helper through another
    shared = {"count": {"key": (1, False)}}
    assert key_params(nested, shared) == {"both": {"hits": (2, False)}}
    assert computed_keys(nested + 'both(report, v, "f_seeds")\nboth(report, v, hits=name)', shared) == 1
    assert {"report_spread", "report_mean_range", "report_seed_count", "report_seeds_past"} <= set(explainer_helpers())
    assert explainer_helpers()["report_spread"] == {e: (None, False) for e in ("mean", "std", "min", "max")}


def keys_not_written_whole(source: str, shared: dict | None = None) -> dict[str, int]:
    """The calls of a snippet (outside ``snippets/explainer``) that do not write their report keys
    out whole: ``computed``, keys of report.number/figure/text/category/data calls and of explainer
    helpers (``shared``) that are not a string literal (an f-string, a variable, a parameter,
    ``"frame" + "_query"``); ``helper``, calls of the file's own helpers that record under a key
    their caller gives. Both 0: every key is a literal at the call that records it."""
    shared = shared or {}
    own = key_params(source, shared)
    found = {"computed": 0, "helper": 0}
    for call, _ in _calls(ast.parse(source)):
        if _name(call) in own and not _recording(call):
            found["helper"] += 1
            continue
        found["computed"] += sum(1 for key, _ in _keys(call, shared) if key is not None and not _literal(key))
    return found


def test_the_check_of_a_snippet_wants_every_key_whole_and_no_recording_helper_of_its_own():
    shared = explainer_helpers()
    whole = {"computed": 0, "helper": 0}
    assert keys_not_written_whole('report.number("heads", n, "{:.0f}")', shared) == whole
    assert keys_not_written_whole('report_spread(report, v, mean="a_mean", std="a_std", min="a_min", max="a_max")\n'
                                  'report_seed_count(report, key="pass_seeds", per_seed=v)', shared) == whole
    assert keys_not_written_whole('report.number(f"{role}_heads", n)', shared) == {"computed": 1, "helper": 0}
    assert keys_not_written_whole('report_seed_count(report, name, v)', shared) == {"computed": 1, "helper": 0}
    assert keys_not_written_whole('report_spread(report, v, mean="a_mean", std=s, min="a" + "_min", max="a_max")',
                                  shared) == {"computed": 2, "helper": 0}
    helper = ('def role(report, key, v):\n'                  # the snippet's own recording helper
              '    report.number(key + "_share", v.mean())\n'
              '    report_seed_count(report, key, v > 0)\n')
    assert keys_not_written_whole(helper + 'role(report, "c18_agent", v)\nrole(report, "c18_tool", v)', shared) \
        == {"computed": 2, "helper": 2}


def test_every_report_key_is_a_literal():
    """Outside ``snippets/explainer``: every key written whole (``keys_not_written_whole``); in
    it, a helper may pass on its caller's keys whole, every other key is a literal (``computed_keys``)."""
    shared = explainer_helpers()
    found = {}
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        parts = path.relative_to(ROOT / "snippets").parts
        if "build" in parts:
            continue
        source = path.read_text(encoding="utf-8")
        if parts[0] == "explainer":
            n = computed_keys(source, shared)
            if n:
                found[path.relative_to(ROOT / "snippets").as_posix()] = {"computed": n}
        else:
            n = keys_not_written_whole(source, shared)
            if any(n.values()):
                found[path.relative_to(ROOT / "snippets").as_posix()] = n
    assert found == {}, (f"report keys not written out whole (calls per file): {found}; write each key out "
                         "at its recording call, one call per number")


def keys_found(source: str, shared: dict) -> set[str]:
    """The keys a snippet writes out: the literal keys of its recording calls and of its calls of
    explainer helpers."""
    return {key.value for call, _ in _calls(ast.parse(source)) for key, _ in _keys(call, shared) if _literal(key)}


def claims_keys() -> set[str]:
    """Every ``snippet.key`` docs/claims.yml reads: its rules' cases, a power check's recorded
    number or planted numbers, and the numbers an experiment shows in the ledger."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tools.verdicts import claims as registry

    names = set()
    for claim in registry.load().values():
        papers = {e.reference for e in claim.experiments if e.reference}   # literature: its own numbers
        read = claim.names() | ({claim.power} if claim.power else set()) \
            | {name for plant in claim.plant for name in plant}
        names |= {name for name in read if name.rpartition(".")[0] not in papers}
        names |= {f"{e.snippet}.{key}" for e in claim.experiments if e.snippet for key in e.show}
    return names


def test_every_key_a_claim_reads_is_written_whole_in_its_snippet():
    """``grep -rn '"frame_pass_seeds"' snippets/`` finds where each number a claim reads is
    made: the key is written whole in its snippet, at the call that records it."""
    shared = explainer_helpers()
    missing = {}
    for name in sorted(claims_keys()):
        snippet, _, key = name.rpartition(".")
        path = ROOT / "snippets" / (snippet.replace(".", "/") + ".py")
        assert path.is_file(), f"{name}: no snippet {path.relative_to(ROOT)}"
        if key not in keys_found(path.read_text(encoding="utf-8"), shared):
            missing.setdefault(path.relative_to(ROOT).as_posix(), []).append(key)
    assert missing == {}, (f"keys docs/claims.yml reads that their snippet does not write out whole: {missing}")


def described_in_code_and_bare(source: str, shared: dict | None = None) -> tuple[set[str], set[str]]:
    """The literal keys of report.number calls and of explainer helpers' calls (``shared``) whose
    number is described in code (en=/zh=), and those left to the strings file."""
    described, bare = set(), set()
    for call, _ in _calls(ast.parse(source)):
        if _recording(call) and call.func.attr != "number":
            continue
        for key, is_described in _keys(call, shared or {}):
            if _literal(key):
                (described if is_described else bare).add(key.value)
    return described, bare


def test_the_check_sees_which_calls_leave_their_description_to_the_strings_file():
    shared = explainer_helpers()
    assert described_in_code_and_bare('report.number("a", 1, en="x", zh="y")\nreport.number("b", 2)') \
        == ({"a"}, {"b"})
    assert described_in_code_and_bare('report.text("t", en="x", zh="y")') == (set(), set())
    assert described_in_code_and_bare('report_seed_count(report, "c", hits)', shared) == (set(), {"c"})
    assert described_in_code_and_bare('report_spread(report, v, mean="g_mean", std="g_std", min="g_min", '
                                      'max="g_max")', shared) == (set(), {"g_mean", "g_std", "g_min", "g_max"})
    helper = {"pair": {"mean": (None, False), "top": (None, True)}}
    assert described_in_code_and_bare('pair(report, v, mean="e_mean", top="e_max")', helper) == ({"e_max"}, {"e_mean"})


def test_a_strings_file_describes_exactly_the_numbers_its_snippet_records_without_a_description():
    """snippets/x/y.strings.toml beside snippets/x/y.py: each of its keys is recorded by the
    snippet with no en=/zh= of its own, and each such number of the snippet is in it (a snippet
    without the file describes every number in code) — checked without running anything, so a
    typo in a key or a number described nowhere fails here, not at the build."""
    import tomllib

    wrong, shared = {}, explainer_helpers()
    for snippet in sorted((ROOT / "snippets").rglob("*.py")):
        if {"build", "explainer", "notebooks"} & set(snippet.relative_to(ROOT / "snippets").parts):
            continue
        strings = snippet.with_suffix(".strings.toml")
        described, bare = described_in_code_and_bare(snippet.read_text(encoding="utf-8"), shared)
        # the keys its tables describe, as the build reads them (a spread = true table: the
        # endings the snippet records; the figures' words are no number)
        tables = tomllib.loads(strings.read_text(encoding="utf-8")) if strings.is_file() else {}
        keys = {key for key, _ in snippet_runner.described(tables, dict.fromkeys(bare), strings)}
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
