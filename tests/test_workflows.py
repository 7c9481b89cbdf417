"""The GitHub workflows: no finding from zizmor, a snippet cache keyed as the runner keys it, and
the test workflow spread over machines: snippet shards (tools/running/shards.py) whose runs are
byte-identical to one full run's, one job that builds the site from them, the tests on that site."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

import remembered

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.running import progress, shards, snippet_runner  # noqa: E402
from tools.verdicts import claims as registry  # noqa: E402

WORKFLOWS = ROOT / ".github" / "workflows"


def zizmor() -> str:
    found = Path(sys.executable).with_name("zizmor")
    if found.is_file():
        return str(found)
    on_path = shutil.which("zizmor")
    if on_path is None:
        pytest.fail("zizmor is not installed: pip install -r requirements.txt", pytrace=False)
    return on_path


def test_zizmor_finds_nothing_in_the_workflows():
    """Actions pinned to commits, checkouts without persisted credentials, and the rest of
    zizmor's offline audits."""
    run = subprocess.run([zizmor(), "--offline", "--no-progress", str(WORKFLOWS)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_action_is_pinned_to_a_commit_with_its_tag_in_a_comment():
    for workflow in WORKFLOWS.glob("*.yml"):
        for line in workflow.read_text(encoding="utf-8").splitlines():
            if "uses:" in line:
                reference = line.split("uses:", 1)[1].strip()
                action, _, rest = reference.partition("@")
                commit, _, comment = rest.partition("#")
                assert len(commit.strip()) == 40, f"{workflow.name}: {line.strip()}"
                assert comment.strip().startswith("v"), f"{workflow.name}: no tag in {line.strip()}"


def test_ci_keeps_the_snippet_cache_between_runs_keyed_on_what_the_runner_keys_on():
    jobs = workflow()["jobs"]
    caches = {job: [s for s in jobs[job]["steps"] if s.get("uses", "").startswith("actions/cache")]
              for job in ("snippets", "site")}
    # the shards only restore it (three saves of one key would race); the site job, which
    # holds every shard's runs, saves it
    assert [s["uses"].split("@")[0] for s in caches["snippets"]] == ["actions/cache/restore"]
    assert [s["uses"].split("@")[0] for s in caches["site"]] == ["actions/cache"]
    for job, (cache,) in caches.items():
        settings = cache["with"]
        assert settings["path"] == ".cache/snippets"
        for source in ("requirements.txt", "snippets/**", "tools/running/snippet_runner.py"):
            assert f"'{source}'" in settings["key"]
        # Any older cache is restored: the runner itself re-runs only the snippets whose key moved.
        assert settings["restore-keys"].strip() == settings["key"].split("${{")[0]
    assert caches["snippets"][0]["with"]["key"] == caches["site"][0]["with"]["key"]


# --- the snippets spread over machines ---------------------------------------------------------

def workflow() -> dict:
    return yaml.safe_load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))


def step(job: dict, text: str) -> int:
    """The index of the job's one step whose run command or action contains ``text``."""
    found = [i for i, s in enumerate(job["steps"]) if text in s.get("run", "") + s.get("uses", "")]
    assert len(found) == 1, (text, found)
    return found[0]


def test_the_snippets_run_as_a_matrix_of_shards_each_uploading_its_runs():
    job = workflow()["jobs"]["snippets"]
    shards = job["strategy"]["matrix"]["shard"]
    run = job["steps"][step(job, "tools.running.shards run")]
    n = int(re.search(r'shards run "\$SHARD" (\d+) shard-runs', run["run"]).group(1))
    assert shards == list(range(1, n + 1)) and run["env"]["SHARD"] == "${{ matrix.shard }}"
    assert job["strategy"]["fail-fast"] is False   # one failing shard still shows the others
    upload = job["steps"][step(job, "actions/upload-artifact@")]
    assert upload["with"]["path"] == "shard-runs/" and upload["with"]["name"] == "snippets-${{ matrix.shard }}"
    assert step(job, "actions/cache/restore@") < step(job, "tools.running.shards run") < step(job, "upload-artifact@")


def test_one_job_assembles_the_shards_and_builds_the_site_without_running_a_snippet_again():
    jobs = workflow()["jobs"]
    site = jobs["site"]
    assert site["needs"] == "snippets"
    download = site["steps"][step(site, "actions/download-artifact@")]
    assert download["with"]["pattern"] == "snippets-*" and download["with"]["path"] == "shard-runs"
    building = site["steps"][step(site, "tools.pages.build_site")]
    build = building["run"]
    assert "--site-dir .cache/test-site" in build and "snippets: 0 executed" in build
    assert building["shell"] == "bash"   # GitHub runs bash with -o pipefail: `| tee` keeps a failure
    assert step(site, "download-artifact@") < step(site, "shards assemble shard-runs/*") < step(site, "build_site")
    assert step(site, "build_site") < step(site, "snippets/notebooks") < step(site, "upload-artifact@")
    upload = site["steps"][step(site, "upload-artifact@")]["with"]
    assert upload["name"] == "built"
    assert {".cache/snippets/", ".cache/test-site/", ".cache/built/"} <= set(upload["path"].split())
    # the tests then find that site built from their inputs (tools/pages/build_site.py's stamp)
    # and every snippet cached: they build and run nothing again
    tests = jobs["tests"]
    assert tests["needs"] == "site"
    fetched = tests["steps"][step(tests, "download-artifact@")]["with"]
    assert fetched == {"name": "built", "path": ".cache"}
    assert step(tests, "download-artifact@") < step(tests, "python -m pytest")


def test_the_test_jobs_together_run_every_test_file_once():
    matrix = workflow()["jobs"]["tests"]["strategy"]["matrix"]["include"]
    groups = {entry["group"]: entry["pytest"].split() for entry in matrix}
    assert set(groups) == {"browser", "rest"}
    named = groups["browser"]
    assert all((ROOT / f).is_file() for f in named) and len(set(named)) == len(named)
    assert sorted(a.removeprefix("--ignore=") for a in groups["rest"]) == sorted(named)
    assert all(a.startswith("--ignore=") for a in groups["rest"])


def test_every_snippet_is_in_exactly_one_shard_and_a_claims_snippets_share_one():
    names = [snippet_runner.name_of(p) for p in snippet_runner.discover()]
    n = len(workflow()["jobs"]["snippets"]["strategy"]["matrix"]["shard"])
    planned = shards.plan(n)
    assert sorted(sum(planned, [])) == sorted(names)
    where = {name: i for i, shard in enumerate(planned) for name in shard}
    for claim in registry.load().values():
        if claim.trained_snippets() or claim.item_cap:
            assert len({where[e.snippet] for e in claim.experiments if e.snippet in where}) == 1, claim.id


def test_a_claims_snippets_stay_together_though_their_durations_would_split_them():
    claim = SimpleNamespace(trained_snippets=lambda: ["a"], item_cap=None, related=[],
                            experiments=[SimpleNamespace(snippet="a"), SimpleNamespace(snippet="b")],
                            names=lambda: {"c.key"})
    durations = {"a": 100.0, "b": 90.0, "c": 10.0, "d": 80.0, "e": 70.0, "a@16": 200.0}
    planned = shards.plan(2, names=list("abcde"), claims={"C": claim}, durations=durations)
    assert ["a", "b", "c"] in planned   # a, b (its experiments) and c (its rule reads c.key)
    assert shards.expected_seconds(["a"], durations) == 300.0   # with its run with 16 seeds
    alone = shards.plan(2, names=list("abcde"), claims={}, durations=durations)
    assert ["a", "b", "c"] not in alone


# The CI's wall time as the matrix gives it: the longest shard on a runner's 2 cores, by the
# committed durations. (Set-up, the site build and the tests come on top: see the report in
# the workflow's header.)
SHARD_BUDGET_S = 6 * 60


def test_the_longest_shard_is_expected_within_its_budget():
    n = len(workflow()["jobs"]["snippets"]["strategy"]["matrix"]["shard"])
    durations = progress.load_durations()
    longest = max(shards.wall_seconds(shard, durations) for shard in shards.plan(n))
    assert longest <= SHARD_BUDGET_S, f"{longest:.0f} s: more shards in .github/workflows/test.yml"


def test_the_comparison_finds_a_differing_byte_and_ignores_the_timing(tmp_path):
    for side in ("shards", "full"):
        run = tmp_path / side / "x"
        run.mkdir(parents=True)
        (run / "results.json").write_text('{"numbers": {}}')
        (run / "seconds").write_text("1.0" if side == "shards" else "2.0")
    union, full = {"x": tmp_path / "shards" / "x"}, {"x": tmp_path / "full" / "x"}
    assert shards.differences(union, full) == []
    (tmp_path / "full" / "x" / "results.json").write_text('{"numbers": {} }')
    (tmp_path / "full" / "x" / "fig.svg").write_text("<svg/>")
    assert shards.differences(union, full) == ["x/fig.svg: only in the full build", "x/results.json: differs"]
    assert shards.differences({}, full) == ["x: only in the full build"]


# The three cheapest real snippets (about 4 s of their own, each runner's workers importing torch
# and matplotlib once on top): make build SHARDS=3 does the same for all of them, against the
# build's own cache (minutes: run it when the sharding changes).
CHEAP = ["index", "real_model.explorer", "real_model.head_roles.previous_and_entity"]

# What the shards' runs depend on beyond each run's own key (snippet_runner.cache_key: the
# snippet, the shared modules it imports, the installed packages, the CPU kernels, its figure
# words): the runner and its worker, the sharding, the registry and its claims (which group the
# snippets and ask for more seeds), the durations that order the plan.
SHARD_CODE = sorted([*(p.relative_to(ROOT).as_posix() for d in ("tools/running", "tools/verdicts")
                       for p in (ROOT / d).iterdir() if p.is_file()),
                     "tools/pages/page_macros.py", "docs/claims.yml"])


def shard_inputs(names: list[str], paths: dict[str, Path] | None = None) -> str:
    """The runs' keys of ``names`` (today's sources and environment): the measurement below is
    remembered under them with SHARD_CODE and this module (tests/remembered.py)."""
    paths = paths or {snippet_runner.name_of(p): p for p in snippet_runner.discover()}
    environment = snippet_runner.environment_fingerprint()
    return "\n".join(f"{name} {snippet_runner.cache_key(paths[name], environment)}" for name in names)


def test_the_shard_measurement_is_taken_again_when_a_snippet_it_runs_changes(tmp_path):
    paths = {snippet_runner.name_of(p): p for p in snippet_runner.discover()}
    planted = {**paths, "index": tmp_path / "index.py"}
    planted["index"].write_bytes(paths["index"].read_bytes())
    before = shard_inputs(CHEAP, planted)
    assert before == shard_inputs(CHEAP, planted)
    planted["index"].write_bytes(paths["index"].read_bytes() + b"\n# edited\n")
    assert shard_inputs(CHEAP, planted) != before
    assert {"tools/running/snippet_runner.py", "tools/running/snippet_worker.py", "tools/running/shards.py",
            "tools/verdicts/claims.py", "docs/claims.yml"} <= set(SHARD_CODE)


def test_shards_run_apart_give_byte_for_byte_the_runs_of_one_full_run(tmp_path):
    """Each shard in a runner of its own with a cache of its own, against one full run of the
    same snippets in a third cache: every file of every run the same, byte for byte. What the
    runs gave is remembered under the runs' keys, the runner's code and this test's
    (tests/remembered.py): a warm `make test` asserts on it without running them again."""
    def run(names, cache):
        env = dict(os.environ, EXPLAINER_CACHE_DIR=str(cache))
        done = subprocess.run([sys.executable, "-m", "tools.running.snippet_runner", *names],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return shards.shard_runs(names, cache)

    def measure():
        planned = shards.plan(2, names=CHEAP)
        union = {}
        for i, names in enumerate(planned):
            union.update(run(names, tmp_path / f"shard-{i}"))
        full = run(CHEAP, tmp_path / "full")
        together = tmp_path / "assembled"
        assembled = shards.assemble([tmp_path / f"shard-{i}" for i in range(len(planned))], together)
        return {"planned": planned, "union": sorted(union), "full": sorted(full),
                "differences": shards.differences(union, full), "assembled": sorted(assembled),
                "assembled_differences": shards.differences(shards.shard_runs(CHEAP, together), full)}

    found = remembered.remember("shards-union", shard_inputs(CHEAP), measure, __file__,
                                *(str(ROOT / path) for path in SHARD_CODE))
    assert len(found["planned"]) == 2 and all(found["planned"])
    assert sorted(found["union"]) == sorted(found["full"]) == sorted(CHEAP)
    assert found["differences"] == []
    assert sorted(found["assembled"]) == sorted(CHEAP)
    assert found["assembled_differences"] == []
