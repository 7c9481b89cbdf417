"""A reader's environment: a fresh virtual environment made by one `pip install` line alone, as
a page (tools/pages/code_cells.py install_line) or a notebook's first cell prints it.

    environment(["install", "numpy==2.4.6", "explainer @ git+https://…#subdirectory=snippets"])

makes `python -m venv` and installs in it exactly what that pip command would, the explainer
package's git URL replaced by this checkout's snippets/ folder and nothing else added (pip's own
configuration of the machine applies, as it would to a reader's pip). pip decides: the
environment's own pip resolves the line (`pip install --dry-run --report`) and names the file of
every distribution it would install; uv then installs those files and nothing else (`--no-deps`),
in seconds where pip takes minutes (it links the files from its cache instead of unpacking
torch again for every environment), and pip installs the explainer package from the checkout.
The tests run a page's cells or a notebook there. Each environment is kept in .cache/reader-envs/ under a key of the line's text, the Python
version and, when the line installs explainer, snippets/pyproject.toml: a warm `make test`
makes none again. The package's modules are part of what the line installs, not of the key: when
they change, explainer alone is installed again from the checkout into the kept environment
(`--no-deps --force-reinstall`), which gives the files a fresh environment of the same line would
have, since what pip resolves for the line depends on the pyproject, not on the modules.

``provided_modules`` answers, without installing anything, which top-level modules a line's
install brings: the closure of what it names, read from the build's own package metadata.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
ENVIRONMENTS = ROOT / ".cache" / "reader-envs"
PACKAGE = "explainer"
GIT_REQUIREMENT = re.compile(r"^(explainer(?:\[[\w,-]+\])?) @ git\+\S+#subdirectory=snippets$")


def local_arguments(arguments: list[str]) -> list[str]:
    """The line's arguments with the explainer package's git URL swapped for this checkout."""
    return [f"{match.group(1)} @ {SNIPPETS.as_uri()}" if (match := GIT_REQUIREMENT.match(a)) else a
            for a in arguments]


def installs_explainer(arguments: list[str]) -> bool:
    return any(GIT_REQUIREMENT.match(a) for a in arguments)


def package_digest() -> str:
    """The explainer package's files as pip installs them from snippets/ (pyproject aside)."""
    digest = hashlib.sha256()
    files = [f for f in (SNIPPETS / PACKAGE).rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    for source in sorted(files):
        digest.update(source.relative_to(SNIPPETS).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def key(arguments: list[str]) -> str:
    """The line's text, the Python version and, when it installs explainer, its pyproject."""
    digest = hashlib.sha256(f"{sys.version}\n{json.dumps(arguments)}".encode())
    if installs_explainer(arguments):
        digest.update((SNIPPETS / "pyproject.toml").read_bytes())
    return digest.hexdigest()[:16]


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def _pip(python: Path, arguments: list[str]) -> str:
    return _run([str(python), "-m", "pip", *arguments])


def planned(python: Path, arguments: list[str]) -> list[dict]:
    """What `pip <arguments>` (an install command) would install in the environment of
    ``python``: pip's own report (name, version and the file or folder it takes each from),
    nothing installed."""
    assert arguments[0] == "install", arguments
    report = _pip(python, [*arguments, "--dry-run", "--ignore-installed", "--quiet", "--report", "-"])
    return json.loads(report)["install"]


def install_as_pip_would(python: Path, arguments: list[str]) -> None:
    """Install what `pip <arguments>` would: every file pip's resolution names, by uv (the build
    environment's, `python -m uv`), without resolving anything again; a folder (this checkout's
    explainer package) by pip, without its dependencies, which are in the plan."""
    plan = planned(python, arguments)
    files = [f"{item['metadata']['name']} @ {item['download_info']['url']}" for item in plan
             if "dir_info" not in item["download_info"]]
    folders = [item["download_info"]["url"] for item in plan if "dir_info" in item["download_info"]]
    if files:
        _run([sys.executable, "-m", "uv", "pip", "install", "--quiet", "--no-deps",
              "--python", str(python), *files])
    if folders:
        _pip(python, ["install", "--quiet", "--no-deps", *folders])


def environment(arguments: list[str], log=print) -> Path:
    """The fresh environment of `pip <arguments>` (``arguments`` as the line reads, from
    "install" on, the package's git URL included), made once and kept."""
    env = ENVIRONMENTS / key(arguments)
    python = env / "bin" / "python"
    ENVIRONMENTS.mkdir(parents=True, exist_ok=True)
    # Test workers (pytest-xdist) and a page's threads may ask for the same line at once.
    with open(ENVIRONMENTS / f"{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = env / "made.json"
        if not made.is_file():
            shutil.rmtree(env, ignore_errors=True)
            start = time.monotonic()
            subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
            install_as_pip_would(python, local_arguments(arguments))
            seconds = round(time.monotonic() - start, 1)
            made.write_text(json.dumps({"pip": arguments, "python": sys.version, "seconds": seconds,
                                        "package": package_digest() if installs_explainer(arguments) else None}))
            log(f"made the environment of `pip {' '.join(arguments)}` in {seconds:.0f} s: {env}")
        record = json.loads(made.read_text())
        if installs_explainer(arguments) and record["package"] != package_digest():
            local = [a for a in local_arguments(arguments) if a.startswith(PACKAGE)]
            _pip(python, ["install", "--quiet", "--no-deps", "--force-reinstall", *local])
            record["package"] = package_digest()
            made.write_text(json.dumps(record))
    return env


# --- what a line installs, read from the build's package metadata ----------------------------

def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_closure(arguments: list[str]) -> set[str]:
    """The distributions pip installs for the requirements ``arguments`` name (options left
    out), with their extras, followed through each one's declared requirements. The explainer
    package's own requirements are read from snippets/pyproject.toml (this checkout's, not the
    build environment's possibly older install)."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((SNIPPETS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    closure: set[tuple[str, tuple[str, ...]]] = set()
    todo = [Requirement(a.split(" @ ")[0] if GIT_REQUIREMENT.match(a) else a)
            for a in arguments if a != "install" and not a.startswith("-")]
    todo = [(r.name, tuple(sorted(r.extras))) for r in todo]
    while todo:
        name, extras = todo.pop()
        if (_canonical(name), extras) in closure:
            continue
        closure.add((_canonical(name), extras))
        if _canonical(name) == PACKAGE:
            required = [Requirement(d) for d in project["dependencies"]]
            required += [Requirement(d) for e in extras for d in project["optional-dependencies"][e]]
        else:
            required = []
            for line in _requires(name):
                r = Requirement(line)
                if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in extras or ("",)):
                    required.append(r)
        todo += [(r.name, tuple(sorted(r.extras))) for r in required]
    return {name for name, _ in closure}


@functools.cache
def _requires(name: str) -> tuple[str, ...]:
    from importlib import metadata

    try:
        return tuple(metadata.requires(name) or ())
    except metadata.PackageNotFoundError:  # not in the build's environment: nothing to follow
        return ()


@functools.cache
def distributions_by_module() -> dict[str, list[str]]:
    from importlib import metadata

    return metadata.packages_distributions()


def provided_modules(arguments: list[str]) -> set[str]:
    """The top-level modules the distributions of ``installed_closure`` provide."""
    names = installed_closure(arguments)
    provided = {PACKAGE} if PACKAGE in names else set()
    for module, distributions in distributions_by_module().items():
        if any(_canonical(d) in names for d in distributions):
            provided.add(module)
    return provided
