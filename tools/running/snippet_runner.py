"""Run every snippet at most once per build: in parallel, each with a timeout,
cached under a key of its source, the shared modules it imports and the
installed package versions.

    python -m tools.running.snippet_runner                     # run what changed, show progress
    python -m tools.running.snippet_runner many_heads.pruning  # only this snippet
    python -m tools.running.snippet_runner --force             # run everything again
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import importlib.util
import json
import os
import re
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tools.verdicts import claims as registry

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = Path(os.environ.get("EXPLAINER_SNIPPETS_DIR", ROOT / "snippets"))
SHARED_PACKAGE = "explainer"
CACHE = Path(os.environ.get("EXPLAINER_CACHE_DIR", ROOT / ".cache" / "snippets"))
NOT_SNIPPETS = {SHARED_PACKAGE, "notebooks", "zh", "build", "__pycache__"}
# A snippet may use this much CPU time (its own, one thread): a limit that holds on a busy
# machine as on an idle one. A hang that uses no CPU (waiting, sleeping) is stopped by the
# wall clock, at a bound so wide that a slow, shared machine never reaches it.
TIMEOUT_S = float(os.environ.get("SNIPPET_TIMEOUT", 600))
WALL_TIMEOUT_S = float(os.environ.get("SNIPPET_WALL_TIMEOUT", 20 * TIMEOUT_S))
CPU_LIMIT_EXIT = 124  # what the child exits with when it ran out of CPU time (as timeout(1))
CACHE_FORMAT = "2"  # bump when the layout of cached results changes


class SnippetError(RuntimeError):
    """A snippet raised, or hung until its timeout."""


@dataclass
class Outcome:
    name: str
    output_dir: Path
    executed: bool
    seconds: float = 0.0


def discover() -> list[Path]:
    """Every snippet: ``snippets/`` mirrors ``docs/en/`` (the page ``many-heads/pruning.md``
    has ``snippets/many_heads/pruning.py``; a page with several has a folder of them). The
    ``explainer`` package, the notebooks and the Chinese narratives are not snippets."""
    return sorted(p for p in SNIPPETS.rglob("*.py")
                  if not p.name.startswith("_")
                  and p.relative_to(SNIPPETS).parts[0] not in NOT_SNIPPETS)


def name_of(path: Path) -> str:
    """A snippet's name is its module path: snippets/many_heads/pruning.py is
    ``many_heads.pruning`` (a claim's rule reads ``many_heads.pruning.<key>``). A script
    outside snippets/ (a reader's copy) is named by its file name."""
    path = Path(path).resolve()
    if not path.is_relative_to(SNIPPETS.resolve()):
        return path.stem
    return ".".join(path.relative_to(SNIPPETS.resolve()).with_suffix("").parts)


def path_of(name: str) -> str:
    """``many_heads.pruning`` -> ``many_heads/pruning``: the snippet's place, in URLs too."""
    return name.replace(".", "/")


def imported_names(path: Path) -> list[str]:
    """Every module name an import statement in ``path`` may refer to (``from a import b``
    gives ``a`` and ``a.b``); each version of a file is parsed once per process."""
    return list(_imported_names(path.read_text(encoding="utf-8"), str(path)))


@functools.lru_cache(maxsize=512)
def _imported_names(source: str, filename: str) -> tuple[str, ...]:
    names: list[str] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return tuple(names)


def shared_modules(path: Path, seen: set[Path] | None = None) -> set[Path]:
    """Files of the shared package that ``path`` imports, followed transitively."""
    seen = set() if seen is None else seen
    for name in imported_names(path):
        parts = name.split(".")
        if parts[0] != SHARED_PACKAGE:
            continue
        for depth in range(1, len(parts) + 1):
            base = SNIPPETS.joinpath(*parts[:depth])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file() and candidate not in seen:
                    seen.add(candidate)
                    shared_modules(candidate, seen)
    return seen


def environment_fingerprint() -> str:
    """Python and every installed distribution's version, but the shared package's own
    (its sources are hashed instead): a process with snippets/ on sys.path sees a built
    snippets/explainer.egg-info, one without does not, and both must agree on the keys."""
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                   if d.metadata["Name"] != SHARED_PACKAGE)
    return sys.version + "\n" + "\n".join(dists)


def cache_key(path: Path, environment: str, seeds: int | None = None) -> str:
    """The snippet's source, the shared modules it imports, the installed packages, the CPU
    kernels and (when the build asks for more than the snippet's own) the number of seeds."""
    kernels = json.dumps(KERNELS, sort_keys=True)
    digest = hashlib.sha256(f"{CACHE_FORMAT}\n{environment}\n{kernels}\n{seeds}".encode())
    for source in [path, *sorted(shared_modules(path))]:
        digest.update(_shown(source).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _shown(path: Path) -> str:
    return os.path.relpath(path, ROOT)


def _where_it_failed(path: Path, stderr: str) -> str:
    """'snippets/x.py, line N: Error: message' from a Python traceback."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', stderr)
    lines = [int(line) for file, line in frames if Path(file).resolve() == path.resolve()]
    error = next((l for l in reversed(stderr.strip().splitlines()) if l and not l.startswith(" ")), "")
    where = f", line {lines[-1]}" if lines else ""
    return f"{_shown(path)}{where}: {error}"


def _kernels():
    """snippets/explainer/kernels.py, loaded by path: the runner does not import the package
    (that would pin this process's kernels, and it must not import torch at all)."""
    spec = importlib.util.spec_from_file_location(
        "explainer_kernels", ROOT / "snippets" / "explainer" / "kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The CPU kernels every snippet computes with (explicit environment first, else the pin):
# part of the cache key, so results from other kernels are never reused.
KERNELS = {name: value for name, value in _kernels().pinned().items() if value}
SNIPPET_ENV = {"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0",
               # One thread per snippet: snippets run side by side on few cores.
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", **KERNELS}


class Worker:
    """A tools/running/snippet_worker.py process: heavy imports done once, one forked child per snippet."""

    def __init__(self):
        env = dict(os.environ, **SNIPPET_ENV)
        env.pop("PYTHONPATH", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tools.running.snippet_worker", str(SNIPPETS)],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def _answer(self, timeout: float | None) -> dict | None:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.process.stdout.readline()
        if not line:
            raise SnippetError("the snippet worker process died")
        return json.loads(line)

    def run(self, path: Path, output_dir: Path, env: dict[str, str]) -> tuple[int, bool]:
        """Run one snippet with ``env`` added to its environment; returns (exit code, timed out)."""
        request = {"path": str(path), "output_dir": str(output_dir), "env": env,
                   "cpu_seconds": TIMEOUT_S}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        started = self._answer(WALL_TIMEOUT_S)  # the worker forks at once; it may have hung before
        if started is None:
            raise SnippetError(f"the snippet worker did not start {_shown(path)} within {WALL_TIMEOUT_S:.0f} s")
        pid = started["pid"]
        answer = self._answer(WALL_TIMEOUT_S)
        if answer is not None:  # finished, or stopped by its CPU limit (the worker's child)
            return answer["exit"], answer["exit"] in (CPU_LIMIT_EXIT, -signal.SIGKILL)
        # Interrupt first so Python prints where it was stuck, then kill.
        os.kill(pid, signal.SIGINT)
        answer = self._answer(WALL_TIMEOUT_S)
        if answer is None:
            os.kill(pid, signal.SIGKILL)
            answer = self._answer(None)
        return answer["exit"], True

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


class Workers:
    """Up to ``size`` worker processes, started only when a snippet must actually run."""

    def __init__(self, size: int):
        self.size, self.started = size, 0
        self.idle: queue.Queue = queue.Queue()
        self.lock = threading.Lock()

    def get(self) -> Worker:
        with self.lock:
            if self.idle.empty() and self.started < self.size:
                self.started += 1
                return Worker()
        return self.idle.get()

    def put(self, worker: Worker) -> None:
        self.idle.put(worker)

    def close(self) -> None:
        while not self.idle.empty():
            self.idle.get().close()


def _execute(path: Path, output_dir: Path, workers: Workers, env: dict[str, str]) -> None:
    worker = workers.get()
    try:
        code, timed_out = worker.run(path, output_dir, env)
    finally:
        workers.put(worker)
    stderr_file = output_dir / "stderr.txt"
    stderr = stderr_file.read_text(encoding="utf-8") if stderr_file.is_file() else ""
    if timed_out:
        raise SnippetError(f"{_where_it_failed(path, stderr)} (stopped at its limit: "
                           f"{TIMEOUT_S:.0f} s of CPU time, {WALL_TIMEOUT_S:.0f} s of wall "
                           f"time; SNIPPET_TIMEOUT raises both)")
    if code != 0:
        tail = "\n".join(stderr.strip().splitlines()[-15:])
        raise SnippetError(f"{_where_it_failed(path, stderr)}\n{tail}")
    if not (output_dir / "results.json").is_file():
        raise SnippetError(f"{_shown(path)}: finished without calling report.save()")


def _place(path: Path, seeds: int | None = None) -> Path:
    """Where a snippet's results are cached: one folder per number of seeds asked for."""
    return CACHE / (name_of(path) if seeds is None else f"{name_of(path)}@{seeds}")


def _cached(path: Path, key: str, seeds: int | None = None) -> bool:
    stored = _place(path, seeds) / "key"
    return stored.is_file() and stored.read_text() == key


def _expected_seconds(path: Path) -> float:
    """How long the snippet took last time (0 if never run here): the longest start first,
    so two workers finish close together instead of one waiting on a late long snippet."""
    try:
        return float((CACHE / name_of(path) / "seconds").read_text())
    except (OSError, ValueError):
        return 0.0


def _run_one(path: Path, key: str, force: bool, log, workers: Workers,
             seeds: int | None = None) -> Outcome:
    target = _place(path, seeds)
    if not force and _cached(path, key, seeds):
        return Outcome(name_of(path), target, executed=False)
    log(f"  running {_shown(path)}" + (f" with {seeds} seeds" if seeds else ""))
    CACHE.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name_of(path)}-", dir=CACHE))
    start = time.perf_counter()
    try:
        _execute(path, scratch, workers, {"EXPLAINER_SEEDS": str(seeds)} if seeds else {})
        (scratch / "key").write_text(key)
        (scratch / "seconds").write_text(f"{time.perf_counter() - start:.1f}")
        shutil.rmtree(target, ignore_errors=True)
        scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Outcome(name_of(path), target, executed=True, seconds=time.perf_counter() - start)


def run_all(force: bool = False, log=print, only: list[str] | None = None,
            failures: dict[str, str] | None = None) -> dict[str, Outcome]:
    """Bring the snippets' cached results up to date. A failure raises SnippetError,
    unless ``failures`` is given: then it is filled in (name -> message) instead.

    When a snippet finishes, every claim it helps decide whose snippets have all finished is
    assessed (tools/verdicts/claims.py): a claim that resampling its seeds leaves undecided gets its
    trained snippets run again with twice the seeds, up to the claim's seed_cap, while the
    other snippets still run. The outcome of a snippet is its largest run."""
    snippets = discover()
    if only is not None:
        unknown = set(only) - {name_of(p) for p in snippets}
        if unknown:
            raise SnippetError(f"no such snippet: {', '.join(sorted(unknown))} (in {SNIPPETS})")
        snippets = [p for p in snippets if name_of(p) in only]
    by_name = {name_of(path): path for path in snippets}
    log = _one_line_at_a_time(log)
    environment = environment_fingerprint()
    outcomes: dict[str, Outcome] = {}
    results: dict[str, dict] = {}
    errors: dict[str, str] = {}
    n_workers = max(1, min(len(snippets), os.cpu_count() or 1))
    start = time.perf_counter()
    workers = Workers(n_workers)
    claims = registry.load()
    pending = {}
    with ThreadPoolExecutor(max_workers=n_workers) as pool:
        def submit(path: Path, seeds: int | None = None) -> None:
            key = cache_key(path, environment, seeds)
            pending[pool.submit(_run_one, path, key, force, log, workers, seeds)] = path

        for path in sorted(snippets, key=_expected_seconds, reverse=True):
            submit(path)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                path = pending.pop(future)
                try:
                    outcome = future.result()
                except SnippetError as error:
                    errors[name_of(path)] = str(error)
                    log(f"  FAILED  {_shown(path)}")
                    continue
                outcomes[outcome.name] = outcome
                results[outcome.name] = load_results(outcome)
                if outcome.executed:
                    log(f"  ran     {outcome.output_dir.name:<32} {outcome.seconds:6.1f} s")
                for name, seeds in _more_seeds(outcome.name, results, claims, errors).items():
                    if name in by_name and by_name[name] not in pending.values():
                        submit(by_name[name], seeds)
    workers.close()
    executed = sum(o.executed for o in outcomes.values())
    log(f"snippets: {executed} executed, {len(outcomes) - executed} cached, "
        f"{len(errors)} failed ({time.perf_counter() - start:.1f} s)")
    if errors and failures is None:
        raise SnippetError("snippet failed:\n" + "\n\n".join(errors.values()))
    if failures is not None:
        failures.update(errors)
    return outcomes


def _one_line_at_a_time(log):
    """``log`` behind a lock: lines from the runner's threads never interleave."""
    lock = threading.Lock()

    def locked(message: str) -> None:
        with lock:
            log(message)
    return locked


def _more_seeds(finished: str, results: dict[str, dict], claims: dict, errors: dict) -> dict[str, int]:
    """Snippets to run with more seeds now that ``finished`` has: from the claims it helps
    decide whose snippets have all finished (a failed or unselected one: not decided here)."""
    ready = {}
    for claim_id, claim in claims.items():
        needed = {e.snippet for e in claim.experiments if e.snippet}
        if finished in needed and claim.trained_snippets() and needed <= set(results):
            ready[claim_id] = claim
    if not ready:
        return {}
    wanted = registry.more_seeds(registry.assess(results, ready), ready)
    return {name: n for name, n in wanted.items()
            if n > results[name]["numbers"]["n_seeds"]["value"] and name not in errors}


def load_results(outcome: Outcome) -> dict:
    return json.loads((outcome.output_dir / "results.json").read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="snippet names (default: all)")
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    parser.add_argument("--json", action="store_true",
                        help="print every snippet's results.json as one JSON object (progress to stderr)")
    args = parser.parse_args()
    log = (lambda message: print(message, file=sys.stderr)) if args.json else print
    try:
        outcomes = run_all(force=args.force, only=args.names or None, log=log)
    except SnippetError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({name: load_results(o) for name, o in outcomes.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
