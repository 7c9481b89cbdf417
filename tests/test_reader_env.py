"""tools/running/reader_env.py: a reader's environment holds what the line's pip install would
install — pip resolves, uv installs the files pip named, nothing else."""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.running import reader_env  # noqa: E402

DISTRIBUTIONS = ("import importlib.metadata as m, json; "
                 "print(json.dumps(sorted({(d.metadata['Name'].lower().replace('_', '-'), d.version) "
                 "for d in m.distributions()})))")


def installed(python: Path) -> set[tuple[str, str]]:
    done = subprocess.run([str(python), "-c", DISTRIBUTIONS], capture_output=True, text=True, check=True)
    return {tuple(d) for d in json.loads(done.stdout)}


def names_and_versions(plan: list[dict]) -> set[tuple[str, str]]:
    return {(i["metadata"]["name"].lower().replace("_", "-"), i["metadata"]["version"]) for i in plan}


def test_the_plan_is_pips_resolution_of_the_line_with_what_it_pulls_in():
    plan = reader_env.planned(Path(sys.executable), ["install", "numpy==2.4.6", "torch==2.13.0"])
    found = dict(names_and_versions(plan))
    assert found["numpy"] == "2.4.6"
    assert found["torch"].split("+")[0] == "2.13.0"
    assert {"sympy", "filelock", "networkx"} <= set(found)            # torch's own requirements
    assert all("url" in item["download_info"] for item in plan)       # a file for every one


def test_an_environment_holds_exactly_what_pip_would_install(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_env, "ENVIRONMENTS", tmp_path)
    line = ["install", "numpy==2.4.6"]
    env = reader_env.environment(line, log=lambda text: None)
    python = env / "bin" / "python"
    expected = names_and_versions(reader_env.planned(python, line))
    tools = {d for d in installed(python) if d[0] in ("pip", "setuptools")}  # what venv itself brings
    assert installed(python) - tools == expected
    record = json.loads((env / "made.json").read_text())
    assert record["pip"] == line
