"""The runner that executes snippets at build time: caching, failures, timeouts."""

import os
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parent.parent

# A minimal snippet: writes its results without importing matplotlib or torch.
SAVE = ("import json, os, pathlib\n"
        "out = pathlib.Path(os.environ['EXPLAINER_OUTPUT_DIR'])\n"
        "(out / 'results.json').write_text(json.dumps({'snippet': 'x', 'numbers': {}, "
        "'figures': {}, 'claims': []}))\n")


# These snippets import neither torch nor matplotlib: their workers skip importing them
# (~8 s each). The notebook test below keeps the build's full warm-up.
NO_PRELOAD = {"EXPLAINER_WORKER_PRELOAD": "0"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An isolated snippets folder and cache."""
    for name, value in NO_PRELOAD.items():
        monkeypatch.setenv(name, value)
    snippets, cache = tmp_path / "snippets", tmp_path / "cache"
    (snippets / "explainer").mkdir(parents=True)
    (snippets / "explainer" / "__init__.py").write_text("")
    monkeypatch.setattr(snippet_runner, "SNIPPETS", snippets)
    monkeypatch.setattr(snippet_runner, "CACHE", cache)
    return snippets


def write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))


def executed(outcomes) -> set[str]:
    return {name for name, outcome in outcomes.items() if outcome.executed}


def test_unchanged_snippets_are_not_run_again_and_a_shared_module_change_reruns_its_users(project):
    write(project / "explainer" / "toy_model.py", "WIDTH = 4\n")
    write(project / "explainer" / "colours.py", "RED = 1\n")
    write(project / "uses_model.py", "from explainer.toy_model import WIDTH\n" + SAVE)
    write(project / "uses_colours.py", "from explainer import colours\n" + SAVE)
    write(project / "standalone.py", SAVE)
    assert executed(snippet_runner.run_all(log=lambda _: None)) == {
        "uses_model", "uses_colours", "standalone"}
    assert executed(snippet_runner.run_all(log=lambda _: None)) == set()
    write(project / "explainer" / "toy_model.py", "WIDTH = 8\n")
    assert executed(snippet_runner.run_all(log=lambda _: None)) == {"uses_model"}


def test_a_raising_snippet_is_reported_with_file_line_and_exception(project):
    write(project / "broken.py", """\
        x = 1
        y = 0
        print(x / y)
        """)
    with pytest.raises(snippet_runner.SnippetError) as error:
        snippet_runner.run_all(log=lambda _: None)
    assert "broken.py, line 3: ZeroDivisionError: division by zero" in str(error.value)


def test_a_snippet_runs_as_its_notebook_would_without_file_or_the_checkout(project, monkeypatch):
    # A notebook has no __file__, and Colab has no checkout around it: a snippet that
    # leans on either fails the build, not only a reader's notebook. The worker warms up
    # as the build's does (torch, matplotlib), which must not put the checkout in reach.
    monkeypatch.delenv("EXPLAINER_WORKER_PRELOAD")
    write(project / "uses_file.py", "print(__file__)\n" + SAVE)
    write(project / "reads_checkout.py", "open('README.md').read()\n" + SAVE)
    write(project / "plain.py", SAVE)
    failures = {}
    outcomes = snippet_runner.run_all(log=lambda _: None, failures=failures)
    assert "uses_file.py, line 1: NameError: name '__file__' is not defined" in failures["uses_file"]
    assert "reads_checkout.py, line 1: FileNotFoundError" in failures["reads_checkout"]
    assert executed(outcomes) == {"plain"}


def test_a_snippet_that_computes_forever_is_stopped_by_its_cpu_time_and_reported(project, monkeypatch):
    # CPU time, not wall time: on a busy machine a snippet gets less of the CPU per second,
    # and its limit comes as late as its own work says.
    monkeypatch.setattr(snippet_runner, "TIMEOUT_S", 2)
    write(project / "spins.py", """\
        x = 0
        while True:
            x += 1
        """)
    with pytest.raises(snippet_runner.SnippetError) as error:
        snippet_runner.run_all(log=lambda _: None)
    message = str(error.value)
    assert re.search(r"spins.py, line [23]: CPUTimeLimit", message)
    assert "2 s of CPU time" in message


def test_a_snippet_that_waits_forever_is_stopped_by_the_wall_clock_and_reported(project, monkeypatch):
    monkeypatch.setattr(snippet_runner, "TIMEOUT_S", 600)
    monkeypatch.setattr(snippet_runner, "WALL_TIMEOUT_S", 3)
    write(project / "hangs.py", """\
        import time
        while True:
            time.sleep(0.05)
        """)
    with pytest.raises(snippet_runner.SnippetError) as error:
        snippet_runner.run_all(log=lambda _: None)
    message = str(error.value)
    assert "hangs.py, line 3: KeyboardInterrupt" in message and "3 s of wall time" in message


def test_a_failing_snippet_fails_the_site_build_with_a_non_zero_exit(tmp_path):
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    write(snippets / "broken.py", "raise ValueError('the model did not converge')\n")
    env = dict(os.environ, **NO_PRELOAD, EXPLAINER_SNIPPETS_DIR=str(snippets),
               EXPLAINER_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "tools.pages.build_site", "--site-dir", str(tmp_path / "site")],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode != 0
    assert "broken.py, line 1: ValueError: the model did not converge" in done.stderr


def test_the_cache_key_ignores_an_installed_copy_of_the_shared_package(tmp_path, monkeypatch):
    """A process with snippets/ on sys.path sees snippets/explainer.egg-info (left by a
    `pip install snippets/`); the build's process does not. Both must reuse the same runs."""
    before = snippet_runner.environment_fingerprint()
    dist = tmp_path / f"{snippet_runner.SHARED_PACKAGE}-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {snippet_runner.SHARED_PACKAGE}\n"
                                   "Version: 0.1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert snippet_runner.SHARED_PACKAGE in {d.metadata["Name"] for d in metadata.distributions()}
    assert snippet_runner.environment_fingerprint() == before
