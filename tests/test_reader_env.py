"""tools/running/reader_env.py: a reader's environment holds what the line's pip install would
install — pip resolves, uv installs the files pip named, nothing else."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
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


# The environment the test below makes is kept under a key of everything that decides what it
# holds: what pip resolves the line to now (the files, as the build's pip names them), the code
# that makes it (reader_env.py) and checks it (this module), Python's and uv's versions. A warm
# `make test` checks the kept environment again; any change to one of these makes a new one.
KEPT = ROOT / ".cache" / "reader-env-test"


def kept_key(plan: list[dict], sources: tuple[str, ...] = (reader_env.__file__, __file__)) -> str:
    uv = subprocess.run([sys.executable, "-m", "uv", "--version"], capture_output=True, text=True, check=True)
    digest = hashlib.sha256(f"{sys.version}\n{uv.stdout}\n{json.dumps(plan, sort_keys=True)}".encode())
    for source in sources:
        digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:16]


def test_the_kept_environment_is_made_again_when_the_plan_or_the_code_changes(tmp_path):
    code = tmp_path / "reader_env.py"
    code.write_text("MADE = 1")
    plan = [{"metadata": {"name": "numpy", "version": "2.4.6"}, "download_info": {"url": "file:///a.whl"}}]
    key = kept_key(plan, (str(code),))
    assert kept_key(plan, (str(code),)) == key
    assert kept_key([{**plan[0], "download_info": {"url": "file:///b.whl"}}], (str(code),)) != key
    code.write_text("MADE = 2")
    assert kept_key(plan, (str(code),)) != key


def test_an_environment_holds_exactly_what_pip_would_install(monkeypatch):
    line = ["install", "numpy==2.4.6"]
    kept = KEPT / kept_key(reader_env.planned(Path(sys.executable), line))
    if not kept.is_dir():   # made again: the older ones go
        shutil.rmtree(KEPT, ignore_errors=True)
    monkeypatch.setattr(reader_env, "ENVIRONMENTS", kept)
    env = reader_env.environment(line, log=lambda text: None)
    python = env / "bin" / "python"
    expected = names_and_versions(reader_env.planned(python, line))
    tools = {d for d in installed(python) if d[0] in ("pip", "setuptools")}  # what venv itself brings
    assert installed(python) - tools == expected
    record = json.loads((env / "made.json").read_text())
    assert record["pip"] == line
