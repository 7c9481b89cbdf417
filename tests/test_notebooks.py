"""The notebooks: Chinese narrative in step, committed notebooks in step, and every notebook
running outside the checkout after only its own install cell, as in a fresh Colab runtime."""

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import notebooks  # noqa: E402
import snippet_runner  # noqa: E402

SNIPPETS = snippet_runner.discover()
NAMES = [path.stem for path in SNIPPETS]
ENVIRONMENTS = ROOT / ".cache" / "notebook-env"
NOTEBOOK_TIMEOUT_S = 600


@pytest.mark.parametrize("snippet", SNIPPETS, ids=NAMES)
def test_chinese_narrative_translates_every_markdown_cell_of_the_current_english(snippet):
    """snippets/zh/<name>.md has one section per markdown cell, made from today's English
    (`python tools/notebooks.py zh-todo` lists what to translate)."""
    problems = notebooks.narrative_problems(snippet, "zh")
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=NAMES)
def test_committed_notebooks_are_what_the_snippet_makes_today(snippet):
    """Colab opens snippets/notebooks/ from GitHub: it must match the snippet
    (`python tools/notebooks.py` or a build rewrites it)."""
    url = notebooks.committed_repo_url()
    for lang in notebooks.LANGS:
        committed = notebooks.committed_path(snippet.stem, lang)
        assert committed.is_file(), f"{committed} is missing"
        assert committed.read_text(encoding="utf-8") == notebooks.colab_notebook(snippet, lang, url), \
            f"{committed.relative_to(ROOT)} is out of step: run python tools/notebooks.py and commit"


def test_chinese_notebooks_run_the_same_code_as_the_english_ones():
    """Only the narrative is translated: the zh notebooks need no run of their own."""
    for name in NAMES:
        code = {lang: [c["source"] for c in json.loads(notebooks.committed_path(name, lang).read_text(
            encoding="utf-8"))["cells"] if c["cell_type"] == "code"] for lang in notebooks.LANGS}
        assert code["en"] == code["zh"], name


def test_every_notebook_starts_with_a_link_to_its_article_in_its_language():
    for name in NAMES:
        page = notebooks.article_page(name)
        assert page, f"no page shows {{{{ code {name} }}}}"
        for lang in notebooks.LANGS:
            first = json.loads(notebooks.committed_path(name, lang).read_text(encoding="utf-8"))["cells"][0]
            assert first["cell_type"] == "markdown"
            prefix = "zh/" if lang == "zh" else ""
            assert f"/{prefix}{notebooks.page_url(page)})" in "".join(first["source"]), (name, lang)


# --- running every notebook as a reader would ------------------------------------------------

def install_command(notebook: dict) -> list[str]:
    """The %pip line of the notebook's first code cell, with the repository swapped for this
    checkout, as arguments for `python -m pip`."""
    first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    line = next(l for l in "".join(first["source"]).splitlines() if l.startswith("%pip install"))
    arguments = shlex.split(line[len("%pip "):])
    local = f"explainer @ {(ROOT / 'snippets').as_uri()}"
    swapped = [local if a.startswith("explainer @ git+") else a for a in arguments]
    assert swapped != arguments, f"no explainer package in: {line}"
    return swapped


def without_install_cell(notebook: dict) -> dict:
    cells = notebook["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    return {**notebook, "cells": cells[:first] + cells[first + 1:]}


def shared_environment(commands: list[list[str]]) -> Path:
    """One virtual environment for all notebooks, kept in .cache/ under a key of the pinned
    requirements. The notebooks' install commands run in it as one pip call, their union
    (the explainer package is rebuilt from this checkout once, not once per notebook; that
    every notebook's install cell names what its code imports is tools/notebooks.py's
    packages(), derived from the imports themselves)."""
    key = hashlib.sha256((sys.version + (ROOT / "requirements.txt").read_text()).encode()).hexdigest()[:16]
    env = ENVIRONMENTS / key
    python = env / "bin" / "python"
    if not (env / ".ready").is_file():
        shutil.rmtree(ENVIRONMENTS, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        # The runtime Colab provides (a kernel), at the pin of requirements.txt.
        pins = notebooks.requirements_pins()
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", pins["ipykernel"]], check=True)
        subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(env),
                        "--name", "fresh-notebook-env"], check=True, capture_output=True)
    union = list(dict.fromkeys(argument for command in commands for argument in command))
    done = subprocess.run([str(python), "-m", "pip", *union], capture_output=True, text=True)
    assert done.returncode == 0, f"pip {' '.join(union)} failed:\n{done.stdout}\n{done.stderr}"
    (env / ".ready").touch()
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


def test_every_notebook_runs_outside_the_checkout_after_only_its_install_cell(tmp_path):
    books = {name: json.loads(notebooks.committed_path(name, "en").read_text(encoding="utf-8"))
             for name in NAMES}
    commands = {json.dumps(install_command(book)): install_command(book) for book in books.values()}
    env = shared_environment(list(commands.values()))
    work = []
    for name, book in books.items():
        folder = tmp_path / name  # a fresh directory, far from the checkout
        folder.mkdir()
        path = folder / f"{name}.ipynb"
        path.write_text(json.dumps(without_install_cell(book)), encoding="utf-8")
        work.append(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [error for error in pool.map(lambda p: execute(p, env), work) if error]
    assert not failures, "\n\n".join(failures)
    for path in work:  # they wrote where a reader's run writes: beside the notebook
        assert (path.parent / "outputs" / path.stem / "results.json").is_file(), path.stem


# --- links ------------------------------------------------------------------------------------

@pytest.mark.parametrize("remote, expected", [
    ("https://github.com/someone/attention-explainer.git", "https://github.com/someone/attention-explainer"),
    ("git@github.com:someone/attention-explainer.git", "https://github.com/someone/attention-explainer"),
    ("ssh://git@github.com/someone/fork", "https://github.com/someone/fork"),
    ("/work/main", None),
    ("https://gitlab.com/someone/attention-explainer", None),
])
def test_a_github_remote_gives_the_repository_url(remote, expected):
    import repository

    assert repository.from_remote(remote) == expected


def test_repo_url_follows_actions_then_origin_then_the_committed_value(tmp_path):
    import repository

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
