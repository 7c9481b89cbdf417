"""The GitHub workflows: no finding from zizmor, and a snippet cache keyed as the runner keys it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
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
    steps = yaml.safe_load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))["jobs"]["test"]["steps"]
    caches = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert len(caches) == 1
    cache = caches[0]["with"]
    assert cache["path"] == ".cache/snippets"
    for source in ("requirements.txt", "snippets/**", "tools/running/snippet_runner.py"):
        assert f"'{source}'" in cache["key"]
    # Any older cache is restored: the runner itself re-runs only the snippets whose key moved.
    assert cache["restore-keys"].strip() == cache["key"].split("${{")[0]
    make_test = next(i for i, s in enumerate(steps) if s.get("run") == "make test")
    assert steps.index(caches[0]) < make_test
