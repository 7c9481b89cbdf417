"""The runner that executes snippets at build time: caching, failures, timeouts."""

import json
import os
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from tools.running import progress, snippet_runner
from tools.verdicts import claims as registry

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
    monkeypatch.setattr(progress, "DURATIONS", tmp_path / "durations.json")
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


def test_a_comment_or_docstring_in_a_shared_module_runs_nothing_again_unless_a_snippet_prints_its_code(project):
    write(project / "explainer" / "toy_model.py", '"""A model."""\n\ndef width():\n    return 4\n')
    write(project / "uses_model.py", "from explainer.toy_model import width\n" + SAVE)
    write(project / "prints_model.py",
          "import inspect\nfrom explainer import toy_model\nprint(inspect.getsource(toy_model))\n" + SAVE)
    snippet_runner.run_all(log=lambda _: None)
    write(project / "explainer" / "toy_model.py",
          '"""The model, described better."""\n\n\ndef width():\n    """Its width."""\n    return 4  # four\n')
    assert executed(snippet_runner.run_all(log=lambda _: None)) == {"prints_model"}
    write(project / "explainer" / "toy_model.py", '"""The model, described better."""\n\ndef width():\n    return "4"\n')
    assert executed(snippet_runner.run_all(log=lambda _: None)) == {"uses_model", "prints_model"}


def test_snippets_start_longest_first_and_each_finished_one_logs_the_progress(project, monkeypatch):
    progress.write_durations({"quick": 1.0, "slow": 50.0, "slow@16": 80.0, "gone": 9.0})
    for name in ("quick", "slow", "fresh"):
        write(project / f"{name}.py", SAVE)
    monkeypatch.setattr(snippet_runner.os, "cpu_count", lambda: 1)  # one worker: one at a time
    lines = []
    snippet_runner.run_all(log=lines.append)
    # a snippet the durations do not know first (it may be the longest), then the longest
    assert re.findall(r"^  running \S*/(\w+)\.py$", "\n".join(lines), re.M) == ["fresh", "slow", "quick"]
    finished = [re.fullmatch(r"  ran     (\w+) +\d+\.\d s   \[(\d+)/(\d+)(?: · running \w+)?"
                             r"(?: · about (?:\d+ s|\d+ min \d\d s) left)?\]", line)
                for line in lines if line.startswith("  ran")]
    assert all(finished), lines
    assert [m.group(1, 2) for m in finished] == [("fresh", "1"), ("slow", "2"), ("quick", "3")]
    # slow@16 (80 s) counted as likely until no claim could ask for it: once slow had run
    assert [m.group(3) for m in finished] == ["4", "3", "3"], lines
    assert finished[-1].group(0).endswith("[3/3]")  # nothing running, nothing left
    assert lines[-1].startswith("snippets: 3 executed, 0 cached, 0 failed")

    durations = snippet_runner.write_durations()  # what `make durations` commits
    assert set(durations) == {"quick", "slow", "fresh"}  # measured; slow@16 and gone not run here
    assert progress.load_durations() == durations


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


def test_a_claim_its_items_leave_undecided_gets_exactly_one_more_look_at_its_item_cap(project, monkeypatch):
    # The snippet measures EXPLAINER_ITEMS items (40 by default); its item resamplings keep the
    # verdict in 60 % of draws at any size, so it stays undecided: one more look, never two.
    write(project / "real.py", """\
        import json, os, pathlib
        n = int(os.environ.get("EXPLAINER_ITEMS", 40))
        numbers = {"n_items": {"value": n, "text": str(n)},
                   "hits": {"value": 30.0, "text": "30", "resampled": [30.0] * 60 + [29.0] * 40}}
        out = pathlib.Path(os.environ["EXPLAINER_OUTPUT_DIR"])
        (out / "results.json").write_text(json.dumps({"snippet": "real", "numbers": numbers,
                                                      "figures": {}, "claims": []}))
        """)
    claim = registry.Claim(
        id="C98", title={"en": "", "zh": ""}, source=[], type="empirical", text={"en": "", "zh": ""},
        experiments=[registry.Experiment(kind="real", snippet="real")], rule_text={"en": "", "zh": ""},
        cases=[("verified", "real.hits >= 30")], otherwise="nuanced", examples={},
        item_cap={"real": 120})
    monkeypatch.setattr(registry, "load", lambda *args, **kwargs: {"C98": claim})
    lines = []
    outcomes = snippet_runner.run_all(log=lines.append)
    assert outcomes["real"].output_dir.name == "real@120items"
    assert json.loads((outcomes["real"].output_dir / "results.json").read_text())["numbers"]["n_items"]["value"] == 120
    assert sum(line.startswith("  running") for line in lines) == 2  # 40 items, then 120: no third
    again = []
    snippet_runner.run_all(log=again.append)                            # cached: the same two runs
    assert not any(line.startswith("  running") for line in again)


def test_the_cache_key_follows_what_snippets_import_and_not_the_sites_tools(tmp_path, monkeypatch):
    """A new version of a package the snippets can import (torch's own dependency sympy) runs
    them again; a new MkDocs plugin does not."""
    names = snippet_runner.snippet_distributions()
    assert {"numpy", "torch", "matplotlib", "scipy", "sympy"} <= names
    assert not {"mkdocs", "mkdocs-macros-plugin", "pytest"} & names
    before = snippet_runner.environment_fingerprint()

    def installed(name, version):
        dist = tmp_path / f"{name}-{version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    installed("mkdocs_macros_plugin", "99.0")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert snippet_runner.environment_fingerprint() == before
    installed("sympy", "0.0.1")
    assert snippet_runner.environment_fingerprint() != before


def test_a_strings_file_describes_the_numbers_its_snippet_records(tmp_path):
    path = tmp_path / "views.strings.toml"
    path.write_text('[heads]\nen = "heads that pass"\nzh = "通过检验的头数"\n', encoding="utf-8")
    results = {"numbers": {"heads": {"value": 2.0, "text": "2"}, "best": {"value": 0.5, "text": "0.50"}}}
    read = snippet_runner.with_strings(results, path)
    assert read["numbers"]["heads"]["about"] == {"en": "heads that pass", "zh": "通过检验的头数"}
    assert "about" not in read["numbers"]["best"]
    assert snippet_runner.with_strings({"numbers": {}}, tmp_path / "none.strings.toml") == {"numbers": {}}


def test_a_number_only_some_runs_record_is_described_when_recorded_and_skipped_when_not(tmp_path):
    path = tmp_path / "views.strings.toml"
    path.write_text('[head_layer]\nsometimes = true\nen = "its layer"\nzh = "所在的层"\n', encoding="utf-8")
    recorded = snippet_runner.with_strings({"numbers": {"head_layer": {"value": 3.0, "text": "3"}}}, path)
    assert recorded["numbers"]["head_layer"]["about"] == {"en": "its layer", "zh": "所在的层"}
    assert snippet_runner.with_strings({"numbers": {}}, path) == {"numbers": {}}


def test_one_spread_table_describes_each_ending_of_a_measurement_over_the_seeds(tmp_path):
    path = tmp_path / "two_heads.strings.toml"
    path.write_text('[hits]\nspread = true\nen = "hits"\nzh = "命中数"\n', encoding="utf-8")
    numbers = {f"hits_{end}": {"value": 1.0, "text": "1"} for end in ("mean", "std", "min", "max")}
    read = snippet_runner.with_strings({"numbers": numbers}, path)["numbers"]
    assert read["hits_mean"]["about"] == {"en": "hits (mean over seeds)", "zh": "命中数（各种子的平均）"}
    assert read["hits_std"]["about"] == {"en": "hits (standard deviation over seeds)", "zh": "命中数（各种子间的标准差）"}
    assert read["hits_min"]["about"] == {"en": "hits (lowest seed)", "zh": "命中数（最低的种子）"}
    assert read["hits_max"]["about"] == {"en": "hits (highest seed)", "zh": "命中数（最高的种子）"}
    # report_mean_range records three of the endings: the table describes those
    three = {f"hits_{end}": {"value": 1.0, "text": "1"} for end in ("mean", "min", "max")}
    assert set(snippet_runner.with_strings({"numbers": three}, path)["numbers"]["hits_min"]["about"]) == {"en", "zh"}
    with pytest.raises(snippet_runner.SnippetError, match="records none of hits_mean"):
        snippet_runner.with_strings({"numbers": {"hits": {"value": 1.0}}}, path)
    path.write_text('[hits]\nspread = "yes"\nen = "hits"\nzh = "命中数"\n', encoding="utf-8")
    with pytest.raises(snippet_runner.SnippetError, match="spread is true or false"):
        snippet_runner.with_strings({"numbers": numbers}, path)


@pytest.mark.parametrize("text,numbers,error", [
    ('[gone]\nen = "a"\nzh = "甲"\n', {}, "records no number 'gone'"),
    ('[heads]\nen = "a"\nzh = "甲"\n', {"heads": {"value": 1.0, "about": {"en": "a", "zh": "甲"}}},
     "describes 'heads' too"),
    ('[heads]\nen = "a"\n', {"heads": {"value": 1.0}}, "needs en and zh"),
    ('[heads]\nen = "a"\nzh = " "\n', {"heads": {"value": 1.0}}, "needs en and zh"),
    ('[heads]\nsometimes = "yes"\nen = "a"\nzh = "甲"\n', {"heads": {"value": 1.0}}, "true or false"),
])
def test_a_strings_file_fails_on_a_stale_doubled_or_half_description(tmp_path, text, numbers, error):
    path = tmp_path / "views.strings.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(snippet_runner.SnippetError, match=error):
        snippet_runner.with_strings({"numbers": numbers}, path)


def test_every_strings_file_sits_beside_its_snippet():
    snippets = ROOT / "snippets"
    found = sorted(snippets.rglob("*.strings.toml"))
    orphans = [str(f.relative_to(ROOT)) for f in found
               if not f.with_name(f.name.removesuffix(".strings.toml") + ".py").is_file()]
    assert orphans == []
    assert snippet_runner.strings_file("three_roles.views") == snippets / "three_roles" / "views.strings.toml"


def test_a_description_cites_a_recorded_number_as_each_language_writes_it(tmp_path):
    path = tmp_path / "two_heads.strings.toml"
    path.write_text('[seeds]\nen = "seeds with a score ≥ {bar}"\nzh = "得分 ≥ {bar} 的种子数"\n', encoding="utf-8")
    numbers = {"seeds": {"value": 3.0}, "bar": {"value": 0.5, "texts": {"en": "0.5", "zh": "0.5"}}}
    about = snippet_runner.with_strings({"numbers": numbers}, path)["numbers"]["seeds"]["about"]
    assert about == {"en": "seeds with a score ≥ 0.5", "zh": "得分 ≥ 0.5 的种子数"}
    path.write_text('[seeds]\nen = "≥ {gone}"\nzh = "≥ {gone}"\n', encoding="utf-8")
    with pytest.raises(snippet_runner.SnippetError, match="no number the snippet records"):
        snippet_runner.with_strings({"numbers": {"seeds": {"value": 3.0}}}, path)


FIGURE_WORDS = ('[heads]\nen = "heads that pass"\nzh = "通过检验的头数"\n\n'
                '[figure_text.en]\ntitle = "Two heads"\nticks = ["one", "two"]\n\n'
                '[figure_text.zh]\ntitle = "两个头"\nticks = ["一", "二"]\n')


def test_a_figures_words_are_read_by_the_run_and_key_its_cache_but_a_description_does_not(tmp_path, monkeypatch):
    """The figures' words (``[figure_text.en]``/``.zh``) are drawn by the run: editing them runs the
    snippet again; editing a number's description does not (it is read at every build)."""
    from explainer import report as report_module

    snippet = tmp_path / "views.py"
    snippet.write_text("x = 1\n", encoding="utf-8")
    strings = tmp_path / "views.strings.toml"
    strings.write_text(FIGURE_WORDS, encoding="utf-8")
    monkeypatch.setattr(report_module, "STRINGS_DIR", tmp_path)
    monkeypatch.setenv("EXPLAINER_OUTPUT_DIR", str(tmp_path / "out"))
    words = report_module.Report("views").figure_text()
    assert words == {"en": {"title": "Two heads", "ticks": ["one", "two"]},
                     "zh": {"title": "两个头", "ticks": ["一", "二"]}}
    assert snippet_runner.figure_text(snippet) == words
    key = snippet_runner.cache_key(snippet, "env")
    strings.write_text(FIGURE_WORDS.replace("heads that pass", "heads that passed"), encoding="utf-8")
    assert snippet_runner.cache_key(snippet, "env") == key
    strings.write_text(FIGURE_WORDS.replace("Two heads", "Both heads"), encoding="utf-8")
    assert snippet_runner.cache_key(snippet, "env") != key
    # the build's reading of the descriptions passes the figures' table by
    results = {"numbers": {"heads": {"value": 2.0, "text": "2"}}}
    assert snippet_runner.with_strings(results, strings)["numbers"]["heads"]["about"]["en"] == "heads that pass"
    strings.write_text(FIGURE_WORDS.replace('ticks = ["一", "二"]\n', ""), encoding="utf-8")
    with pytest.raises(ValueError, match="the same names"):
        report_module.Report("views").figure_text()


def test_a_notebook_carries_the_figures_words_written_out(tmp_path):
    """Colab has no strings file beside the notebook: the cell that reads the words shows them."""
    from tools.running import notebooks

    snippet = tmp_path / "views.py"
    snippet.write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "views.strings.toml").write_text(FIGURE_WORDS, encoding="utf-8")
    cell = notebooks.with_figure_text("import numpy as np\nTEXT = report.figure_text()   # words\nLANGS = 2", snippet)
    namespace = {}
    exec(cell.replace("import numpy as np\n", ""), namespace)
    assert namespace["TEXT"] == snippet_runner.figure_text(snippet) and namespace["LANGS"] == 2
    assert notebooks.with_figure_text("y = other.figure_text()", snippet) == "y = other.figure_text()"


def test_a_trained_snippet_that_keeps_its_own_seed_count_is_asked_for_more_seeds_only_once(project, monkeypatch):
    # A planted check trains its own fixed draws (32) whatever EXPLAINER_SEEDS says; its claim is
    # undecided (6 of 8 wins sits on the 3/4 bar) and its seed_cap allows 64: one more run, not a loop.
    write(project / "toy.py", """\
        import json, os, pathlib
        asked = int(os.environ.get("EXPLAINER_SEEDS", 32))
        wins = [1.0] * 24 + [0.0] * 8
        numbers = {"n_seeds": {"value": 32.0, "text": "32"},
                   "asked": {"value": float(asked), "text": str(asked)},
                   "wins": {"value": sum(wins), "text": "", "per_seed": wins, "of": "count"}}
        out = pathlib.Path(os.environ["EXPLAINER_OUTPUT_DIR"])
        (out / "results.json").write_text(json.dumps({"snippet": "toy", "numbers": numbers,
                                                      "figures": {}, "claims": []}))
        """)
    claim = registry.Claim(
        id="C97", title={"en": "", "zh": ""}, source=[], type="empirical", text={"en": "", "zh": ""},
        experiments=[registry.Experiment(kind="trained", snippet="toy")], rule_text={"en": "", "zh": ""},
        cases=[("verified", "toy.wins >= 0.75 * toy.n_seeds")], otherwise="nuanced", examples={},
        seed_cap=64)
    monkeypatch.setattr(registry, "load", lambda *args, **kwargs: {"C97": claim})
    lines = []
    outcomes = snippet_runner.run_all(log=lines.append)
    assert sum(line.startswith("  running") for line in lines) == 2   # its own run, then 64 asked once
    assert json.loads((outcomes["toy"].output_dir / "results.json").read_text())["numbers"]["asked"]["value"] == 64
