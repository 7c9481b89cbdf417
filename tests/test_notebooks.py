"""The notebooks: Chinese narrative in step, committed notebooks in step, and what a fresh
Colab runtime adds to the build's own run of their cells (the package as pip installs it, the
install cell's packages, a real kernel)."""

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.running import notebooks  # noqa: E402
from tools.running import reader_env  # noqa: E402
from tools.running import snippet_runner  # noqa: E402

SNIPPETS = snippet_runner.discover()
NAMES = [snippet_runner.name_of(path) for path in SNIPPETS]
NOTEBOOK_TIMEOUT_S = 600


@pytest.mark.parametrize("snippet", SNIPPETS, ids=NAMES)
def test_chinese_narrative_translates_every_markdown_cell_of_the_current_english(snippet):
    """snippets/zh/<name>.md has one section per markdown cell, made from today's English
    (`python -m tools.running.notebooks zh-todo` lists what to translate)."""
    problems = notebooks.narrative_problems(snippet, "zh")
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=NAMES)
def test_committed_notebooks_are_what_the_snippet_makes_today(snippet):
    """Colab opens snippets/notebooks/ from GitHub: it must match the snippet
    (`python -m tools.running.notebooks` or a build rewrites it)."""
    url = notebooks.committed_repo_url()
    for lang in notebooks.LANGS:
        committed = notebooks.committed_path(snippet_runner.name_of(snippet), lang)
        assert committed.is_file(), f"{committed} is missing"
        assert committed.read_text(encoding="utf-8") == notebooks.colab_notebook(snippet, lang, url), \
            f"{committed.relative_to(ROOT)} is out of step: run python -m tools.running.notebooks and commit"


def test_chinese_notebooks_run_the_same_code_as_the_english_ones():
    """Only the narrative is translated: the zh notebooks need no run of their own."""
    for name in NAMES:
        code = {lang: [c["source"] for c in json.loads(notebooks.committed_path(name, lang).read_text(
            encoding="utf-8"))["cells"] if c["cell_type"] == "code"] for lang in notebooks.LANGS}
        assert code["en"] == code["zh"], name


def test_every_notebook_starts_with_a_link_to_its_article_in_its_language():
    for name in NAMES:
        page = notebooks.article_page(name)
        assert page, f"no page shows {name} whole (code())"
        for lang in notebooks.LANGS:
            first = json.loads(notebooks.committed_path(name, lang).read_text(encoding="utf-8"))["cells"][0]
            assert first["cell_type"] == "markdown"
            prefix = "zh/" if lang == "zh" else ""
            assert f"/{prefix}{notebooks.page_url(page)})" in "".join(first["source"]), (name, lang)


# --- running every notebook as a reader would ------------------------------------------------

def install_command(notebook: dict) -> list[str]:
    """The %pip line of the notebook's first code cell, as arguments for `python -m pip`."""
    first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    line = next(l for l in "".join(first["source"]).splitlines() if l.startswith("%pip install"))
    arguments = shlex.split(line[len("%pip "):])
    assert reader_env.installs_explainer(arguments), f"no explainer package in: {line}"
    return arguments


def without_install_cell(notebook: dict) -> dict:
    cells = notebook["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    return {**notebook, "cells": cells[:first] + cells[first + 1:]}


def shared_environment(commands: list[list[str]]) -> Path:
    """One fresh virtual environment for all notebooks, made as a page's is
    (tools/running/reader_env.py: the explainer package from this checkout, kept in .cache/
    under a key of the pip line, the Python version and the package's pyproject). Its line is the
    notebooks' install commands as one pip call, their union, with the runtime Colab provides (a
    kernel, at the pin of requirements.txt): the package is built once, not once per notebook;
    that every notebook's install cell names what its code imports is tools/running/notebooks.py's
    packages(), derived from the imports themselves, and checked below on each cell alone."""
    union = list(dict.fromkeys(argument for command in commands for argument in command))
    env = reader_env.environment([*union, notebooks.requirements_pins()["ipykernel"]],
                                 log=lambda text: print(text, flush=True))
    if not (env / "share" / "jupyter" / "kernels" / "fresh-notebook-env").is_dir():
        subprocess.run([str(env / "bin" / "python"), "-m", "ipykernel", "install", "--prefix", str(env),
                        "--name", "fresh-notebook-env"], check=True, capture_output=True)
    return env


def execute(notebook: Path, env: Path) -> str | None:
    """Run a notebook with the environment's kernel; None if it finished, else the error."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("EXPLAINER_", "PYTHON", "VIRTUAL_ENV", "JUPYTER"))}
    environ.update(JUPYTER_PATH=str(env / "share" / "jupyter"), OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
    done = subprocess.run([str(Path(sys.executable).with_name("jupyter-execute")),
                           "--kernel_name=fresh-notebook-env", f"--timeout={NOTEBOOK_TIMEOUT_S}",
                           notebook.name], cwd=notebook.parent, env=environ,
                          capture_output=True, text=True)
    if done.returncode == 0:
        return None
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
    return f"{notebook.name}:\n{tail}"


# The build runs every snippet's cells as its notebook does (tools/running/notebooks.py run(): no
# __file__, not its folder on the path, an empty working folder outside the checkout; shown in
# tests/test_snippet_runner.py), so every notebook's compute already ran once in this test run.
# What a reader's fresh runtime adds to that, these tests check without paying it again: the
# package as pip installs it, the install cell's packages, and a real Jupyter kernel, on a
# notebook of each kind. `make test-notebooks` still runs every notebook there in full.
KERNEL_RUNS = [
    "four_steps",                                  # numpy and torch only
    "real_model.it_animal",                        # the MiniLM weights, from their pip package
    "many_heads.why_heads_differ.head_symmetry",   # many seeds trained as one batched model
]


def notebook_books() -> dict[str, dict]:
    return {name: json.loads(notebooks.committed_path(name, "en").read_text(encoding="utf-8"))
            for name in NAMES}


@pytest.fixture(scope="module")
def fresh_env() -> Path:
    commands = {json.dumps(install_command(book)): install_command(book) for book in notebook_books().values()}
    return shared_environment(list(commands.values()))


def in_env(env: Path, code: str, *arguments: str) -> str:
    done = subprocess.run([str(env / "bin" / "python"), "-c", code, *arguments], cwd=env,
                          capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pip_installs_every_file_of_the_explainer_package(fresh_env):
    listed = json.loads(in_env(fresh_env, (
        "import json, importlib.metadata as m\n"
        "print(json.dumps(sorted(str(f) for f in m.files('explainer') "
        "if f.parts[0] == 'explainer' and '__pycache__' not in f.parts)))")))
    tracked = subprocess.run(["git", "ls-files", "snippets/explainer"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    assert tracked, "git lists no file of snippets/explainer"
    assert set(listed) >= {str(Path(f).relative_to("snippets")) for f in tracked}
    modules = [Path(f).stem for f in tracked if f.endswith(".py") and not f.endswith("__init__.py")]
    in_env(fresh_env, "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module('explainer.' + m)",
           *modules)


# Per notebook: the closure of what pip installs with the distributions its first cell names
# (extras included), then, per module the notebook's code imports, whether a distribution of
# that closure provides it.
COVERED = """
import json, sys, importlib.metadata as m
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name as canon
providers = m.packages_distributions()
closures = {}  # the notebooks share a few install commands: each closure is computed once


def closure_of(wanted):
    closure, todo = set(), [(d, tuple(e)) for d, e in wanted]
    while todo:
        name, extras = todo.pop()
        if (canon(name), extras) in closure:
            continue
        closure.add((canon(name), extras))
        for line in m.requires(name) or []:
            r = Requirement(line)
            if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in extras or ("",)):
                todo.append((r.name, tuple(r.extras)))
    return {n for n, _ in closure}


answers = {}
for notebook, (wanted, modules) in json.loads(sys.stdin.read()).items():
    key = json.dumps(wanted)
    if key not in closures:
        closures[key] = closure_of(wanted)
    names = closures[key]
    answers[notebook] = {mod: any(canon(d) in names for d in providers.get(mod, [])) for mod in modules}
print(json.dumps(answers))
"""


def imported_modules(snippet: Path) -> list[str]:
    modules = set()
    for source in [snippet, *snippet_runner.shared_modules(snippet)]:
        modules |= {n.split(".")[0] for n in snippet_runner.imported_names(source)}
    return sorted(modules - set(sys.stdlib_module_names) - {"__future__"})


def installed_by_first_cell(env: Path, asked: dict[str, tuple[list[str], list[str]]]) -> dict:
    """notebook -> {module: provided by what its install command installs}, answered by the
    fresh environment's own package metadata."""
    from packaging.requirements import Requirement

    wanted = {name: ([(Requirement(a).name, sorted(Requirement(a).extras)) for a in command
                      if a != "install" and not a.startswith("-")], modules)
              for name, (command, modules) in asked.items()}
    done = subprocess.run([str(env / "bin" / "python"), "-c", COVERED], input=json.dumps(wanted),
                          capture_output=True, text=True, cwd=env, env={"PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def installed(fresh_env) -> dict:
    books = notebook_books()
    return installed_by_first_cell(fresh_env, {
        snippet_runner.name_of(path): (install_command(books[snippet_runner.name_of(path)]),
                                       imported_modules(path)) for path in SNIPPETS})


def test_the_install_check_sees_a_missing_package(fresh_env):
    answer = installed_by_first_cell(fresh_env, {
        "x": (["install", "--quiet", "torch==2.13.0"], ["numpy", "scipy", "torch"])})
    assert answer == {"x": {"numpy": False, "scipy": False, "torch": True}}


@pytest.mark.parametrize("name", NAMES)
def test_the_install_cell_brings_every_package_the_notebook_imports(name, installed):
    covered = installed[name]
    assert covered and all(covered.values()), \
        f"not installed by the notebook's first cell: {sorted(m for m, ok in covered.items() if not ok)}"


RUNS = ROOT / ".cache" / "notebook-runs"


def run_key(notebook: dict, env: Path) -> str:
    """What a fresh kernel's run of the notebook depends on: the notebook, the environment (its
    key names the pip line) and the explainer package it installs from this checkout."""
    digest = hashlib.sha256(f"{env.name}\n{json.dumps(notebook, sort_keys=True)}".encode())
    package = [f for f in (ROOT / "snippets" / "explainer").rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    for source in sorted(package) + [ROOT / "snippets" / "pyproject.toml"]:
        digest.update(source.relative_to(ROOT).as_posix().encode() + source.read_bytes())
    return digest.hexdigest()


def run_in_fresh_kernels(names: list[str], env: Path, folder: Path) -> None:
    """Run the notebooks in the environment's kernel; a notebook whose exact run passed before
    (same notebook, environment and package: run_key) is not run again."""
    books = notebook_books()
    work = {}
    for name in names:
        book = without_install_cell(books[name])
        if (RUNS / run_key(book, env)).is_file():
            continue
        place = folder / name  # a fresh directory, far from the checkout
        place.mkdir()
        path = place / f"{name}.ipynb"
        path.write_text(json.dumps(book), encoding="utf-8")
        work[path] = run_key(book, env)
    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [error for error in pool.map(lambda p: execute(p, env), work) if error]
    assert not failures, "\n\n".join(failures)
    for path, key in work.items():  # they wrote where a reader's run writes: beside the notebook
        assert (path.parent / "outputs" / path.stem / "results.json").is_file(), path.stem
        RUNS.mkdir(parents=True, exist_ok=True)
        (RUNS / key).touch()


def test_a_notebook_of_each_kind_runs_in_a_fresh_kernel_after_only_its_install_cell(fresh_env, tmp_path):
    assert set(KERNEL_RUNS) <= set(NAMES)
    run_in_fresh_kernels(KERNEL_RUNS, fresh_env, tmp_path)


@pytest.mark.skipif(os.environ.get("EXPLAINER_ALL_NOTEBOOKS") != "1",
                    reason="every notebook in full: make test-notebooks")
def test_every_notebook_runs_in_a_fresh_kernel_after_only_its_install_cell(fresh_env, tmp_path):
    run_in_fresh_kernels(NAMES, fresh_env, tmp_path)


# --- links ------------------------------------------------------------------------------------

@pytest.mark.parametrize("remote, expected", [
    ("https://github.com/someone/attention-explainer.git", "https://github.com/someone/attention-explainer"),
    ("git@github.com:someone/attention-explainer.git", "https://github.com/someone/attention-explainer"),
    ("ssh://git@github.com/someone/fork", "https://github.com/someone/fork"),
    ("/work/main", None),
    ("https://gitlab.com/someone/attention-explainer", None),
])
def test_a_github_remote_gives_the_repository_url(remote, expected):
    from tools.pages import repository

    assert repository.from_remote(remote) == expected


def test_repo_url_follows_actions_then_origin_then_the_committed_value(tmp_path):
    from tools.pages import repository

    committed = "https://github.com/upstream/attention-explainer"
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert repository.repo_url(committed, environ={}, root=tmp_path) == committed
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin",
                    "git@github.com:fork/attention-explainer.git"], check=True)
    assert repository.repo_url(committed, environ={}, root=tmp_path) == \
        "https://github.com/fork/attention-explainer"
    actions = {"GITHUB_REPOSITORY": "ci/attention-explainer", "GITHUB_SERVER_URL": "https://github.com"}
    assert repository.repo_url(committed, environ=actions, root=tmp_path) == \
        "https://github.com/ci/attention-explainer"


# --- on the built site ------------------------------------------------------------------------

def test_site_notebooks_carry_the_outputs_and_figures_of_the_build_in_their_language(built_site):
    for lang, root in (("en", built_site), ("zh", built_site / "zh")):
        book = json.loads((root / "downloads" / "four_steps.ipynb").read_text(encoding="utf-8"))
        outputs = [o for c in book["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
        assert any(o["output_type"] == "stream" and "weight_it_animal" in "".join(o["text"])
                   for o in outputs)
        figures = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
        assert len(figures) == 2, lang  # steps and heatmap, in this language only
        markdown = "".join("".join(c["source"]) for c in book["cells"] if c["cell_type"] == "markdown")
        assert bool(re.search(r"[\u4e00-\u9fff]", markdown)) == (lang == "zh")
        page = (root / "notebooks" / "four_steps" / "index.html").read_text(encoding="utf-8")
        assert page.count('src="../../figures/four_steps/') == 2
        assert "weight_it_animal" in page


def test_pages_link_their_own_language_notebooks_and_py_downloads_download(built_site):
    en = (built_site / "four-steps" / "index.html").read_text(encoding="utf-8")
    zh = (built_site / "zh" / "four-steps" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a download="four_steps.py" href="[./]*downloads/four_steps.py"', en)
    assert "blob/main/snippets/notebooks/four_steps.ipynb" in en
    assert "blob/main/snippets/notebooks/zh/four_steps.ipynb" in zh
