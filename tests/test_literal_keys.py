"""Every number a snippet records has a key a reader can grep for (issue 34): the first
argument of ``report.number`` / ``figure`` / ``text`` / ``category`` / ``data`` is a string literal, so
``grep -rn '"coreference_heads"' snippets/`` finds where a rule's or a page's number is made.

Only the shared package (``snippets/explainer``) has helpers that record for their caller
(``explainer.seeds.report_spread`` and the seed counts): their recording calls name the key by
their own parameter, alone or with a literal ending (``key + "_mean"``), and every call of such a
helper writes that key out. A snippet writes each key out whole at its recording call, or as the
stem it gives one of those helpers; a helper of its own that adds endings to a stem would hide
the keys it records from grep, so a snippet has none (``keys_not_written_whole``). Every key
docs/claims.yml reads from a snippet is found whole in it, or as a stem given to an explainer
helper that adds that ending."""

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


def _recording_calls(tree: ast.AST):
    """(call, the function it is in or None) for every report.number/figure/text/category/data call."""
    return ((call, function) for call, function in _calls(tree) if _recording(call))


def _name(call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else \
        call.func.attr if isinstance(call.func, ast.Attribute) else None


def _params(function) -> list[str]:
    return [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]


def _helper_key(call, helper):
    """The key a call of a helper (position, parameter, ...) gives it, or None."""
    position, param = helper[:2]
    key = next((k.value for k in call.keywords if k.arg == param), None)
    if key is None and position is not None and len(call.args) > position:
        key = call.args[position]
    return key


def _passed_on(key, function) -> str | None:
    """The helper's parameter its key is, when the key is that parameter, alone or plus a
    literal ending; else None."""
    if function is None:
        return None
    params = _params(function)
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add) and _literal(key.right):
        key = key.left
    return key.id if isinstance(key, ast.Name) and key.id in params else None


def _described(call, function) -> bool | None:
    """Whether a recording call describes its number (en=/zh=): None when it passes on its
    function's own ``en``/``zh`` parameters (then the function's caller decides)."""
    about = [k.value for k in call.keywords if k.arg in ("en", "zh")]
    if function is not None and about and all(_passes_on(v, function) for v in about):
        return None
    return bool(about)


def _passes_on(value, function) -> bool:
    """Whether a description is the function's own parameter, ``en``, or made from it only when
    the caller gives it, ``f"{en} (lowest seed)" if en else ""``: the caller describes, in its
    call or in its strings file."""
    params = _params(function)
    if isinstance(value, ast.IfExp) and isinstance(value.orelse, ast.Constant) and value.orelse.value == "":
        return isinstance(value.test, ast.Name) and value.test.id in params
    return isinstance(value, ast.Name) and value.id in params


def helper_endings(source: str, shared: dict | None = None) -> dict[str, tuple]:
    """The functions of ``source`` that record under a key their caller gives, directly or
    through another such helper (``shared``: explainer's): name -> (the key's position among
    the arguments, or None if keyword-only; the parameter's name; per number it records, the
    literal ending it adds to the key and whether it describes it: True, False, or None when it
    passes on the caller's ``en``/``zh``)."""
    shared, found = dict(shared or {}), {}
    calls = [(call, function) for call, function in _calls(ast.parse(source)) if function is not None]
    changed = True
    while changed:
        changed = False
        known = {**shared, **found}
        for call, function in calls:
            if _recording(call):
                key = call.args[0]
                inner = [("", _described(call, function))] if call.func.attr == "number" else []
            elif _name(call) in known:
                key, here = _helper_key(call, known[_name(call)]), _described(call, function)
                inner = [(e, here if d is None else d) for e, d in known[_name(call)][2]]
            else:
                continue
            param = _passed_on(key, function)
            if param is None:
                continue
            ending = key.right.value if isinstance(key, ast.BinOp) else ""
            endings = [(ending + e, d) for e, d in inner]
            positional = [a.arg for a in function.args.posonlyargs + function.args.args]
            entry = found.setdefault(function.name, (positional.index(param) if param in positional else None,
                                                     param, []))
            for item in endings:
                if item not in entry[2]:
                    entry[2].append(item)
                    changed = True
            if function.name not in known:
                changed = True
    return found


def helpers(source: str, shared: dict | None = None) -> dict[str, tuple[int | None, str]]:
    """The functions of ``source`` that record under a key their caller gives: name ->
    (the key's position among the arguments, or None if keyword-only; the parameter's name)."""
    return {name: entry[:2] for name, entry in helper_endings(source, shared).items()}


def _explainer_endings() -> dict:
    found = {}
    for path in sorted((ROOT / "snippets" / "explainer").rglob("*.py")):
        found.update(helper_endings(path.read_text(encoding="utf-8"), found))
    return found


def _explainer_helpers() -> dict[str, tuple[int | None, str]]:
    return {name: entry[:2] for name, entry in _explainer_endings().items()}


def computed_keys(source: str, shared: dict | None = None) -> int:
    """How many calls name a report key by an expression: report.number/figure/text/category/data calls
    and calls of a helper that records under its caller's key (``shared``: the ones
    ``explainer`` defines; the file's own too), except a helper passing on its own caller's key."""
    tree = ast.parse(source)
    shared = {name: (helper + ([],))[:3] for name, helper in (shared or {}).items()}
    passing_on = {**shared, **helper_endings(source, shared)}
    count = 0
    for call, function in _calls(tree):
        if _recording(call):
            key = call.args[0]
        elif _name(call) in passing_on:
            key = _helper_key(call, passing_on[_name(call)])
            if key is None:
                continue
        else:
            continue
        if not _literal(key) and _passed_on(key, function) is None:
            count += 1
    return count


def test_the_check_sees_a_computed_key_and_accepts_a_literal_one():
    assert computed_keys('report.number("heads", n, "{:.0f}")') == 0
    assert computed_keys('report.category("share", word)') == 0
    assert computed_keys('report.category(f"{arm}_share", word)') == 1
    assert computed_keys('report.number(f"{role}_heads", n, "{:.0f}")') == 1
    assert computed_keys('for k in keys:\n    report.text(k, en="", zh="")') == 1
    assert computed_keys('other.number(f"{x}", 1)') == 0


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


def keys_not_written_whole(source: str, shared: dict | None = None) -> dict[str, int]:
    """The calls of a snippet (outside ``snippets/explainer``) that do not write their report key
    out whole: ``computed``, report.number/figure/text/category/data calls and calls of an
    explainer helper (``shared``) whose key is not a string literal (an f-string, a variable, a
    parameter, ``key + "_mean"``); ``stem``, calls of the file's own helpers that record under a
    key their caller gives (a stem the helper may add endings to). Both 0: every key is a literal."""
    shared = {name: (helper + ([],))[:3] for name, helper in (shared or {}).items()}
    own = helper_endings(source, shared)
    found = {"computed": 0, "stem": 0}
    for call, _ in _calls(ast.parse(source)):
        if _recording(call):
            key = call.args[0]
        elif _name(call) in own:
            found["stem"] += 1
            continue
        elif _name(call) in shared:
            key = _helper_key(call, shared[_name(call)])
            if key is None:
                continue
        else:
            continue
        if not _literal(key):
            found["computed"] += 1
    return found


def test_the_check_of_a_snippet_wants_every_key_whole_and_no_helper_of_its_own_adding_endings():
    shared = _explainer_endings()
    whole = {"computed": 0, "stem": 0}
    assert keys_not_written_whole('report.number("heads", n, "{:.0f}")', shared) == whole
    assert keys_not_written_whole('report_spread(report, "accuracy", v)\n'
                                  'report_seed_count(report, key="pass_seeds", per_seed=v)', shared) == whole
    assert keys_not_written_whole('report.number(f"{role}_heads", n)', shared) == {"computed": 1, "stem": 0}
    assert keys_not_written_whole('report_spread(report, name, v)', shared) == {"computed": 1, "stem": 0}
    assert keys_not_written_whole('report_spread(report, "frame" + "_query", v)', shared) == {"computed": 1, "stem": 0}
    helper = ('def role(report, key, v):\n'                  # a stem plus endings: two numbers grep cannot find
              '    report.number(key + "_share", v.mean())\n'
              '    report_spread(report, key + "_p95", v, kind="share")\n')
    assert keys_not_written_whole(helper + 'role(report, "c18_agent", v)\nrole(report, "c18_tool", v)', shared) \
        == {"computed": 2, "stem": 2}
    passing = 'def count(report, key, v):\n    report.number(key, v.sum())\ncount(report, "hits", v)'
    assert keys_not_written_whole(passing, shared) == {"computed": 1, "stem": 1}


def test_every_report_key_is_a_literal():
    """Outside ``snippets/explainer``: every key written whole (``keys_not_written_whole``); in
    it, a helper may pass on its caller's key, every other key is a literal (``computed_keys``)."""
    shared = _explainer_endings()
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


def keys_found(source: str, shared: dict) -> tuple[set[str], set[str]]:
    """The keys a snippet writes out: whole, a literal first argument of a recording call or the
    literal key of an explainer helper that records it as given (a seed count); and those it
    gives an explainer helper as a stem, each with the helper's endings (``accuracy`` to
    report_spread: ``accuracy_mean``, ``accuracy_std``, ...)."""
    whole, stemmed = set(), set()
    for call, _ in _calls(ast.parse(source)):
        if _recording(call):
            if _literal(call.args[0]):
                whole.add(call.args[0].value)
        elif _name(call) in shared:
            key = _helper_key(call, shared[_name(call)])
            if _literal(key):
                for ending, _ in shared[_name(call)][2]:
                    (stemmed if ending else whole).add(key.value + ending)
    return whole, stemmed


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
    made: the key is written whole in its snippet, or it is a stem given to an explainer helper
    plus one of that helper's endings (``report_spread``: ``_mean``, ``_std``, ``_min``, ``_max``)."""
    shared = _explainer_endings()
    missing = {}
    for name in sorted(claims_keys()):
        snippet, _, key = name.rpartition(".")
        path = ROOT / "snippets" / (snippet.replace(".", "/") + ".py")
        assert path.is_file(), f"{name}: no snippet {path.relative_to(ROOT)}"
        whole, stemmed = keys_found(path.read_text(encoding="utf-8"), shared)
        if key not in whole | stemmed:
            missing.setdefault(path.relative_to(ROOT).as_posix(), []).append(key)
    assert missing == {}, (f"keys docs/claims.yml reads that their snippet does not write out whole: {missing}")


def described_in_code_and_bare(source: str, shared: dict | None = None) -> tuple[set[str], set[str]]:
    """The literal keys of report.number calls that describe their number (en=/zh=), and those
    that leave it to the strings file; a call of a helper that records under its caller's key
    (``shared``: explainer's, ``helper_endings``; the file's own too) counts as its recording
    calls, each with its ending."""
    passing_on = {**(shared or {}), **helper_endings(source, shared)}
    described, bare = set(), set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        # en=/zh=: described (a ``**dict``, ant_colony_toy.spread's, holds only a value and its
        # per-seed values); the build's test sees what the run recorded (tests/test_snippets.py)
        about = bool({k.arg for k in node.keywords} & {"en", "zh"})
        if _recording(node) and node.func.attr == "number":
            key, recorded = node.args[0], [("", about)]
        elif _name(node) in passing_on:
            key = _helper_key(node, passing_on[_name(node)])
            recorded = [(ending, about if d is None else d) for ending, d in passing_on[_name(node)][2]]
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            for ending, is_described in recorded:
                (described if is_described else bare).add(key.value + ending)
    return described, bare


def test_the_check_sees_which_calls_leave_their_description_to_the_strings_file():
    shared = _explainer_endings()
    assert described_in_code_and_bare('report.number("a", 1, en="x", zh="y")\nreport.number("b", 2)') \
        == ({"a"}, {"b"})
    assert described_in_code_and_bare('report_seed_count(report, "c", hits)', shared) == (set(), {"c"})
    assert described_in_code_and_bare('report_seed_count(report, "c", hits, en="x", zh="y")', shared) \
        == ({"c"}, set())
    helper = ('def pair(report, key, v):\n'
              '    report.number(key + "_mean", v.mean())\n'
              '    report.number(key + "_max", v.max(), en="top", zh="最高")\n')
    assert described_in_code_and_bare(helper + 'pair(report, "e", v)') == ({"e_max"}, {"e_mean"})
    nested = ('def both(report, key, v, en):\n'                # a helper through another helper
              '    pair(report, key + "_query", v)\n'
              '    report_seed_count(report, key + "_seeds", v > 0, en=en, zh=en)\n')
    assert computed_keys(helper + nested + 'both(report, "f", v, "x")', shared) == 0
    assert computed_keys(helper + nested + 'both(report, name, v, "x")', shared) == 1
    assert described_in_code_and_bare(helper + nested + 'both(report, "f", v, en="x")', shared) \
        == ({"f_query_max", "f_seeds"}, {"f_query_mean"})
    assert described_in_code_and_bare('report_spread(report, "g", v)', shared) \
        == (set(), {"g_mean", "g_std", "g_min", "g_max"})
    spread = ('def spread(report, key, v, en=""):\n'
              '    report.number(key + "_mean", v.mean(), en=f"{en} (mean)" if en else "")\n')
    assert described_in_code_and_bare(spread + 'spread(report, "h", v, en="x")\nspread(report, "i", v)') \
        == ({"h_mean"}, {"i_mean"})


def test_a_strings_file_describes_exactly_the_numbers_its_snippet_records_without_a_description():
    """snippets/x/y.strings.toml beside snippets/x/y.py: each of its keys is recorded by the
    snippet with no en=/zh= of its own, and each such number of the snippet is in it (a snippet
    without the file describes every number in code) — checked without running anything, so a
    typo in a key or a number described nowhere fails here, not at the build."""
    import tomllib

    wrong, shared = {}, _explainer_endings()
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
