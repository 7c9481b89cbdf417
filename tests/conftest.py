"""Shared fixtures: snippet results (from the same cache the build uses) and the built site."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import snippet_runner  # noqa: E402


class SnippetResults:
    """What one snippet recorded: numbers, figures and claim verdicts."""

    def __init__(self, outcome: snippet_runner.Outcome):
        self.dir = outcome.output_dir
        self.data = snippet_runner.load_results(outcome)

    def number(self, key: str) -> float:
        return self.data["numbers"][key]["value"]

    def verdict(self, claim_id: str) -> str:
        verdicts = [c["verdict"] for c in self.data["claims"] if c["id"] == claim_id]
        assert len(verdicts) == 1, f"expected one verdict on {claim_id}, got {verdicts}"
        return verdicts[0]


@pytest.fixture(scope="session")
def snippet_outcomes() -> dict[str, snippet_runner.Outcome]:
    """Run (or reuse from the build cache) every snippet once per test session."""
    return snippet_runner.run_all()


@pytest.fixture(scope="session")
def results():
    """``results("four_steps")`` -> that snippet's SnippetResults (run once, cached)."""
    seen: dict[str, SnippetResults] = {}

    def get(name: str) -> SnippetResults:
        if name not in seen:
            seen[name] = SnippetResults(snippet_runner.run_all(only=[name])[name])
        return seen[name]
    return get


@pytest.fixture(scope="session")
def built_site(snippet_outcomes) -> Path:
    """Both languages built strictly into site/ (a broken link fails here)."""
    completed = subprocess.run([sys.executable, str(ROOT / "tools" / "build_site.py")],
                               cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return ROOT / "site"
