"""Each snippet as a Jupyter notebook, in English and in Chinese.

    python -m tools.running.notebooks           # (re)write the committed notebooks (what Colab opens)
    python -m tools.running.notebooks run S.py  # run a snippet cell by cell (the runner does this)
    python -m tools.running.notebooks zh-todo   # Chinese narrative missing or behind the English

A snippet is a jupytext percent script: ``# %% [markdown]`` cells (the narrative, in
English) and ``# %%`` code cells. Its Chinese narrative lives beside it in
``snippets/zh/<name>.md``, one section per markdown cell, in the script's order, each
headed ``<!-- en HASH -->``: HASH is the first 8 hex digits of the SHA-1 of the English
cell it translates. Cells may move, come and go; a test tells when an English cell has
no translation of its current text (tests/test_notebooks.py).

Two kinds of notebook come from the same cells:

- committed, ``snippets/notebooks/<name>.ipynb`` and ``snippets/notebooks/zh/<name>.ipynb``:
  what "Open in Colab" opens. A link to the article, then an install cell, no outputs.
- executed, on the site (the "view as notebook" page and the .ipynb download): the same
  notebook with the printed output and the figures of the build's own run, cell by cell.
  ``run`` records them while the snippet runner executes the snippet (once), in
  ``cells.json`` next to ``results.json``; nothing runs a second time.
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import functools
import hashlib
import io
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tools.pages import page_macros
from tools.running import cell_state

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
NOTEBOOKS = SNIPPETS / "notebooks"
NARRATIVE = {"zh": SNIPPETS / "zh"}
LANGS = ("en", "zh")
CELL_HEADING = re.compile(r"^<!-- en ([0-9a-f]{8}) -->$", re.M)
HEADER = {
    "en": "This notebook goes with the article **[{title}]({url})**. The first cell installs "
          "what it needs; then run it top to bottom.",
    "zh": "本笔记本配合文章 **[{title}]({url})** 阅读。第一个单元格安装它需要的一切，然后从上到下依次运行即可。",
}


# --- cells --------------------------------------------------------------------------------

@dataclass
class Cell:
    kind: str    # "markdown" or "code"
    source: str  # markdown without its "# " prefixes; code as written
    line: int    # line of the source's first line in the script (1-based)
    tags: tuple[str, ...] = ()  # jupytext cell metadata, `# %% tags=["scores"]`: a cell's name


CELL_TAGS = re.compile(r'\btags=(\[[^\]]*\])')


def _tags(marker: str) -> tuple[str, ...]:
    found = CELL_TAGS.search(marker)
    return tuple(json.loads(found.group(1))) if found else ()


def read_cells(text: str) -> list[Cell]:
    """The percent cells of a script, without blank lines around them; empty cells dropped."""
    raw: list[tuple[str, int, list[str], tuple[str, ...]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("# %%"):
            raw.append(("markdown" if "[markdown]" in line else "code", number + 1, [], _tags(line)))
        elif raw:
            raw[-1][2].append(line)
        else:
            raw.append(("code", 1, [line], ()))
    cells = []
    for kind, first, lines, tags in raw:
        while lines and not lines[0].strip():
            lines.pop(0)
            first += 1
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            continue
        if kind == "markdown":
            lines = [re.sub(r"^# ?", "", line) for line in lines]
        cells.append(Cell(kind, "\n".join(lines), first, tags))
    return cells


def english_hash(source: str) -> str:
    return hashlib.sha1(source.encode("utf-8")).hexdigest()[:8]


def narrative(name: str, lang: str) -> dict[str, str]:
    """hash of an English markdown cell -> its translation, from snippets/<lang>/<name>.md."""
    if lang == "en":
        return {}
    path = NARRATIVE[lang] / f"{_path_of(name)}.md"
    if not path.is_file():
        return {}
    parts = CELL_HEADING.split(path.read_text(encoding="utf-8"))  # [before, hash, body, hash, body, …]
    return {parts[i]: parts[i + 1].strip("\n") for i in range(1, len(parts), 2)}


def narrative_problems(snippet: Path, lang: str) -> list[str]:
    """What is missing or left over in a snippet's narrative in ``lang`` (empty: in step)."""
    cells = read_cells(snippet.read_text(encoding="utf-8"))
    name = _name_of(snippet)
    translated = narrative(name, lang)
    where = f"snippets/{lang}/{_path_of(name)}.md"
    english = {english_hash(c.source): c.source for c in cells if c.kind == "markdown"}
    problems = [f"{where}: cell {i} (en {english_hash(c.source)}) has no translation of its "
                f"current text:\n{c.source}"
                for i, c in enumerate(cells) if c.kind == "markdown" and english_hash(c.source) not in translated]
    problems += [f"{where}: en {h} translates no current cell (an older text?):\n{text}"
                 for h, text in translated.items() if h not in english]
    problems += [f"{where}: en {h} is empty" for h, text in translated.items() if not text.strip()]
    return problems


# --- running a snippet cell by cell (in the snippet runner's process) ----------------------

class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def run_tagged(snippet: Path, tags: set[str]) -> dict:
    """Execute only the code cells carrying one of ``tags`` (e.g. the cells that define a model,
    not the ones that train it), in order, in one namespace; return that namespace. For tests."""
    namespace: dict = {}
    for cell in read_cells(snippet.read_text(encoding="utf-8")):
        if cell.kind == "code" and tags & set(cell.tags):
            exec(compile(cell.source, str(snippet), "exec"), namespace)
    return namespace


def run(snippet: Path, output_dir: Path | None = None) -> None:
    """Execute the snippet's code cells in order, in one namespace, as its notebook runs
    them, and write what each printed and which figures it recorded to cells.json.

    As in a notebook, and unlike ``python snippet``: no ``__file__``, and the snippet's own
    folder is not on the import path (a notebook in Colab has no sibling files). The build's
    worker also runs it from an empty folder outside the checkout, so a snippet that would
    break as a notebook breaks the build (tests/test_notebooks.py builds on that)."""
    snippet = snippet.resolve()
    sys.argv = [str(snippet)]
    recorded: list[dict] = []
    try:  # the snippet's own import then finds this module, figure recorder in place
        from explainer import report as report_module
    except ImportError:
        report_module = None  # a snippet folder without the shared Report: no figures to note
    if report_module is not None:
        save_figure = report_module.Report.figure

        def figure(self, key, fig, lang, *args, **kwargs):
            save_figure(self, key, fig, lang, *args, **kwargs)
            recorded.append({"key": key, "lang": lang})

        report_module.Report.figure = figure
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    log = []
    # What each cell did to the names and the random generators the next cells see
    # (tools/running/cell_state.py): state.json, for tests/test_page_cells.py.
    watch = cell_state.Watch(namespace)
    for index, cell in enumerate(read_cells(snippet.read_text(encoding="utf-8"))):
        if cell.kind != "code":
            continue
        printed = io.StringIO()
        recorded.clear()
        # Padded with blank lines, so tracebacks name the script's own line numbers.
        code = compile("\n" * (cell.line - 1) + cell.source + "\n", str(snippet), "exec")
        with contextlib.redirect_stdout(_Tee(sys.stdout, printed)):
            exec(code, namespace)
        watch.cell(index)
        log.append({"cell": index, "stdout": printed.getvalue(), "figures": list(recorded)})
    # Where a reader's run writes: outputs/<the Report's name> (explainer/report.py).
    name = getattr(namespace.get("report"), "name", snippet.stem)
    target = output_dir or Path(os.environ.get("EXPLAINER_OUTPUT_DIR", Path("outputs") / name))
    target.mkdir(parents=True, exist_ok=True)
    for entry in log:  # the build's scratch folder, shown as where a reader's run writes
        entry["stdout"] = entry["stdout"].replace(str(target), f"outputs/{name}")
    (target / "cells.json").write_text(json.dumps(log, ensure_ascii=False, indent=1), encoding="utf-8")
    (target / "state.json").write_text(json.dumps(watch.record(), indent=0), encoding="utf-8")


# --- what a notebook installs -------------------------------------------------------------

def _imported_modules(path: Path) -> set[str]:
    from tools.running import snippet_runner

    return {name.split(".")[0] for name in snippet_runner.imported_names(path)}


@functools.cache
def _distributions_by_module() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return packages_distributions()


@functools.cache
def requirements_pins() -> dict[str, str]:
    """Lower-case distribution name -> its pin line in requirements.txt."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:  # without a local version (torch==2.13.0+cpu): PyPI has none
            pins[re.sub(r"[-_.]+", "-", line.split("==")[0]).lower()] = line.split("+")[0]
    return pins


def packages(snippet: Path) -> list[str]:
    """Pinned distributions the snippet and the shared modules it uses import."""
    from tools.running import snippet_runner
    modules = set()
    for source in [snippet, *snippet_runner.shared_modules(snippet)]:
        modules |= _imported_modules(source)
    try:
        return pins_for(modules, explainer=True)
    except KeyError as error:
        raise RuntimeError(f"{snippet.name} {error.args[0]}") from None


def pins_for(modules: set[str], explainer: bool, extras: tuple[str, ...] = ()) -> list[str]:
    """The pins of requirements.txt (sorted) of the distributions that provide ``modules``
    (top-level names), and, when pip installs the ``explainer`` package too, of everything its
    pyproject makes pip install by name (its dependencies, those of ``extras``): each of them
    pinned, not left to pip (an unpinned torch is a multi-GB CUDA build)."""
    from tools.running import snippet_runner
    modules = modules - set(sys.stdlib_module_names) - {snippet_runner.SHARED_PACKAGE, "__future__"}
    by_module = _distributions_by_module()
    pins = requirements_pins()
    wanted = {pins[name] for name in explainer_dependencies(extras)} if explainer else set()
    for module in modules:
        for dist in by_module.get(module, [module]):
            key = re.sub(r"[-_.]+", "-", dist).lower()
            if key not in pins:
                raise KeyError(f"imports {module} ({dist}), which requirements.txt does not pin")
            wanted.add(pins[key])
    return sorted(wanted, key=str.lower)


@functools.cache
def explainer_dependencies(extras: tuple[str, ...] = ()) -> list[str]:
    """What snippets/pyproject.toml says the explainer package needs (with these extras)."""
    import tomllib

    project = tomllib.loads((SNIPPETS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = project["dependencies"] + [d for e in extras for d in project["optional-dependencies"][e]]
    return [re.sub(r"[-_.]+", "-", re.split(r"[<>=!~ \[;]", dep)[0]).lower() for dep in declared]


def shell_words(arguments: list[str], quote_all: bool = False) -> str:
    """Arguments as a shell line: double quotes around those a shell would split or expand
    (the package's `name[extra] @ url`), or around every one."""
    return " ".join(f'"{a}"' if quote_all or not re.fullmatch(r"[\w.=+-]+", a) else a for a in arguments)


def explainer_requirement(repo_url: str, package: str = "explainer") -> str:
    """The explainer package (``package``: with its extras) from the repository, for pip."""
    url = repo_url.rstrip("/").removesuffix(".git")
    return f"{package} @ git+{url}#subdirectory=snippets"


def install_command(snippet: Path, repo_url: str) -> str:
    """The notebook's first line: pip installs the pins and the ``explainer`` package."""
    return "%pip install --quiet " + shell_words([*packages(snippet), explainer_requirement(repo_url)],
                                                 quote_all=True)


INSTALL_CELL = '''{command}
# In Colab: a CJK font, so the Chinese figure labels draw as characters, not boxes.
import subprocess, sys
if "google.colab" in sys.modules:
    subprocess.run("apt-get -qq install -y fonts-noto-cjk > /dev/null && "
                   "rm -rf ~/.cache/matplotlib", shell=True, check=True)'''


def _name_of(snippet: Path) -> str:
    from tools.running import snippet_runner  # not at import: the snippet worker imports this module
    return snippet_runner.name_of(snippet)


def _path_of(name: str) -> str:
    return name.replace(".", "/")


# --- articles ------------------------------------------------------------------------------

def article_page(name: str) -> str | None:
    """The page (docs/en/<path>.md, relative) that shows the snippet's code: its article."""
    return _articles().get(name)


@functools.cache
def _articles() -> dict[str, str]:
    found: dict[str, str] = {}
    for page in sorted((ROOT / "docs" / "en").rglob("*.md")):
        for name in page_macros.listings(page.read_text(encoding="utf-8")):
            found.setdefault(name, page.relative_to(ROOT / "docs" / "en").as_posix())
    return found


def page_url(page: str) -> str:
    """docs path -> URL path with directory URLs: a/b.md -> a/b/, index.md -> ''."""
    path = page.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        return path.removesuffix("index")
    return path + "/"


def site_url(repo_url: str, lang: str) -> str:
    """Where the site is published: SITE_URL(_ZH) when set (the deploy sets them), else the
    GitHub Pages address of the repository."""
    env = os.environ.get("SITE_URL_ZH" if lang == "zh" else "SITE_URL")
    if env:
        return env.rstrip("/") + "/"
    owner, _, repository = urlsplit(repo_url).path.strip("/").removesuffix(".git").partition("/")
    return f"https://{owner.lower()}.github.io/{repository}/" + ("zh/" if lang == "zh" else "")


def article_title(page: str, lang: str) -> str:
    path = ROOT / "docs" / lang / page
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return page


# --- notebooks -----------------------------------------------------------------------------

def notebook(snippet: Path, lang: str, repo_url: str, article_url: str,
             run_dir: Path | None = None, figure_output=None) -> str:
    """The notebook as JSON text. With ``run_dir`` (the snippet's cached run), each code
    cell carries what it printed and drew; ``figure_output(key, lang, run_dir)`` gives a
    figure's output (default: the SVG itself)."""
    import nbformat

    name = _name_of(snippet)
    cells = read_cells(snippet.read_text(encoding="utf-8"))
    translated = narrative(name, lang)
    page = article_page(name)
    header = HEADER[lang].format(title=article_title(page, lang) if page else name, url=article_url)
    notebook_cells = [_markdown_cell(header),
                      _code_cell(INSTALL_CELL.format(command=install_command(snippet, repo_url)))]
    ran = {}
    if run_dir is not None:
        ran = {entry["cell"]: entry
               for entry in json.loads((run_dir / "cells.json").read_text(encoding="utf-8"))}
    figure_output = figure_output or _embedded_svg
    count = 0
    for index, cell in enumerate(cells):
        if cell.kind == "markdown":
            text = translated.get(english_hash(cell.source), cell.source)
            notebook_cells.append(_markdown_cell(text))
            continue
        code = _code_cell(with_figure_text(cell.source, snippet), {"tags": list(cell.tags)} if cell.tags else {})
        if index in ran:
            count += 1
            code["execution_count"] = count
            if ran[index]["stdout"]:
                code["outputs"].append({"output_type": "stream", "name": "stdout",
                                        "text": ran[index]["stdout"]})
            for figure in ran[index]["figures"]:
                if figure["lang"] == lang:
                    code["outputs"].append(figure_output(figure["key"], lang, run_dir))
        notebook_cells.append(code)
    for number, cell in enumerate(notebook_cells):
        cell["id"] = f"cell-{number}"  # same snippet, same bytes
    book = {"nbformat": 4, "nbformat_minor": 5, "cells": notebook_cells, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}}
    # One schema check for the whole notebook (nbformat's cell helpers check every cell: most
    # of the build's notebook time).
    nbformat.validate(nbformat.from_dict(book), version=4)
    return json.dumps(book, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


FIGURE_TEXT_CALL = re.compile(r"^(\w+) = report\.figure_text\(\)[ \t]*(?:#.*)?$", re.M)


def with_figure_text(source: str, snippet: Path) -> str:
    """A code cell as a notebook shows it: ``TEXT = report.figure_text()`` (the figures' words,
    read from the strings file beside the snippet) written out, since a notebook in Colab has
    no file beside it."""
    from tools.running import snippet_runner

    def written_out(match: re.Match) -> str:
        words = snippet_runner.figure_text(snippet)
        return f"{match[1]} = " + json.dumps(words, ensure_ascii=False, indent=4)
    return FIGURE_TEXT_CALL.sub(written_out, source)


def _markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code_cell(source: str, metadata: dict | None = None) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": metadata or {},
            "outputs": [], "source": source}


def _display(data: dict) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": data}


def _figure_alt(run_dir: Path, key: str, lang: str) -> str:
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    return results["figures"][key][lang]["alt"]


def _embedded_svg(key: str, lang: str, run_dir: Path) -> dict:
    svg = (run_dir / f"{key}.{lang}.svg").read_text(encoding="utf-8")
    return _display({"image/svg+xml": svg, "text/plain": _figure_alt(run_dir, key, lang)})


def linked_figure(src: str):
    """figure_output for a notebook page: an <img> of the site's own copy of the figure."""
    import html

    def output(key: str, lang: str, run_dir: Path) -> dict:
        alt = html.escape(_figure_alt(run_dir, key, lang), quote=True)
        return _display({"text/html": f'<img src="{src.format(key=key)}" alt="{alt}" loading="lazy">',
                         "text/plain": alt})
    return output


def committed_path(name: str, lang: str) -> Path:
    place = f"{_path_of(name)}.ipynb"
    return NOTEBOOKS / place if lang == "en" else NOTEBOOKS / lang / place


def colab_notebook(snippet: Path, lang: str, repo_url: str) -> str:
    """The committed notebook: what Colab opens from GitHub."""
    page = article_page(_name_of(snippet))
    url = site_url(repo_url, lang) + (page_url(page) if page else "")
    return notebook(snippet, lang, repo_url, url)


def committed_repo_url() -> str:
    """repo_url as committed in mkdocs.yml (committed notebooks use it: same bytes in forks)."""
    for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("repo_url:"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError("mkdocs.yml sets no repo_url")


def write_committed(snippets: list[Path], log=print, langs=LANGS) -> None:
    url = committed_repo_url()
    for snippet in snippets:
        for lang in langs:
            target = committed_path(_name_of(snippet), lang)
            text = colab_notebook(snippet, lang, url)
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                log(f"updated {target.relative_to(ROOT)}: commit it")


def main(argv: list[str]) -> int:
    usage = argparse.ArgumentParser(description=__doc__.split("\n\nA snippet")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    usage.add_argument("command", nargs="*", help="nothing (write the committed notebooks), run S.py, or zh-todo")
    argv = usage.parse_args(argv).command
    if argv[:1] == ["run"]:
        run(Path(argv[1]))
        return 0
    from tools.running import snippet_runner

    if argv[:1] == ["zh-todo"]:
        problems = [p for s in snippet_runner.discover() for p in narrative_problems(s, "zh")]
        print("\n\n".join(problems) or "every Chinese narrative is in step")
        return 1 if problems else 0
    write_committed(snippet_runner.discover())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
