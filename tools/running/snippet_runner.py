"""Run every snippet at most once per build: in parallel, each with a timeout,
cached under a key of its source, the shared modules it imports and the
installed package versions.

    python -m tools.running.snippet_runner                     # run what changed, show progress
    python -m tools.running.snippet_runner many_heads.pruning  # only this snippet
    python -m tools.running.snippet_runner --force             # run everything again
    python -m tools.running.snippet_runner --write-durations   # then commit the measured seconds
                                                               # (make durations)
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
import tomllib
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tools.running import progress
from tools.verdicts import claims as registry

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = Path(os.environ.get("EXPLAINER_SNIPPETS_DIR", ROOT / "snippets"))
SHARED_PACKAGE = "explainer"
CACHE = Path(os.environ.get("EXPLAINER_CACHE_DIR", ROOT / ".cache" / "snippets"))
# What the shared package declares it needs: the checkout's, also when SNIPPETS points at
# another folder of snippets (the runner's tests), since those import the same packages.
PYPROJECT = ROOT / "snippets" / "pyproject.toml"
NOT_SNIPPETS = {SHARED_PACKAGE, "notebooks", "zh", "build", "__pycache__"}
# A snippet may use this much CPU time (its own, one thread): a limit that holds on a busy
# machine as on an idle one. A hang that uses no CPU (waiting, sleeping) is stopped by the
# wall clock, at a bound so wide that a slow, shared machine never reaches it.
TIMEOUT_S = float(os.environ.get("SNIPPET_TIMEOUT", 600))
WALL_TIMEOUT_S = float(os.environ.get("SNIPPET_WALL_TIMEOUT", 20 * TIMEOUT_S))
CPU_LIMIT_EXIT = 124  # what the child exits with when it ran out of CPU time (as timeout(1))
FIGURE_TEXT = "figure_text"   # the strings file's table of the figures' words (Report.figure_text)
CACHE_FORMAT = "3"  # bump when the layout of cached results changes (3: state.json, cell_state.py)


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


def imported_names_of(source: str) -> list[str]:
    """``imported_names`` of a piece of code (a cell a page shows)."""
    return list(_imported_names(source, "<cell>"))


@functools.lru_cache(maxsize=512)
def _imported_names(source: str, filename: str) -> tuple[str, ...]:
    names: list[str] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return tuple(names)


def keyed_source(source: Path, snippet: Path) -> bytes:
    """What of ``source`` a run of ``snippet`` depends on. The snippet's own bytes, since its
    cells are shown as written. A shared module's syntax tree without its docstrings, so a
    comment, a docstring or a blank line in ``explainer`` runs nothing again; but its bytes
    when the snippet prints shared code (``inspect.getsource``: the text is then an output)."""
    if source == snippet or "getsource" in snippet.read_text(encoding="utf-8"):
        return source.read_bytes()
    return _syntax_without_docstrings(source.read_text(encoding="utf-8")).encode()


@functools.lru_cache(maxsize=512)
def _syntax_without_docstrings(text: str) -> str:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str):
            node.body = node.body[1:]
    return ast.dump(tree)


def shared_modules(path: Path, seen: set[Path] | None = None) -> set[Path]:
    """Files of the shared package that ``path`` imports, followed transitively."""
    return shared_modules_of(imported_names(path), seen)


def shared_modules_of(names: list[str], seen: set[Path] | None = None) -> set[Path]:
    """Files of the shared package that imports of ``names`` reach, followed transitively."""
    seen = set() if seen is None else seen
    for name in names:
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


def snippet_distributions() -> set[str]:
    """The installed distributions a snippet can import: what the shared package declares
    (snippets/pyproject.toml, its extras included) and, transitively, what those require.
    Read from the pyproject file, not the package's metadata: a process with snippets/ on
    sys.path sees a built snippets/explainer.egg-info, one without does not, and both must
    agree on the keys. The site's tools (MkDocs, its plugins, pytest) are not among them, so
    changing those never runs an experiment again."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"]) + [r for extra in project.get("optional-dependencies", {}).values()
                                              for r in extra]
    seen: set[str] = set()
    while wanted:
        requirement = Requirement(wanted.pop())
        name = canonicalize_name(requirement.name)
        if name in seen or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue  # not installed: its absence is the same everywhere it is absent
        seen.add(name)
        wanted += requires
    return seen


def environment_fingerprint() -> str:
    """Python and the version of every distribution a snippet can import (see
    ``snippet_distributions``; the shared package's own sources are hashed instead)."""
    names = snippet_distributions()
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                   if canonicalize(d.metadata["Name"]) in names)
    return sys.version + "\n" + "\n".join(dists)


def canonicalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def cache_key(path: Path, environment: str, seeds: int | None = None, items: int | None = None) -> str:
    """The snippet's source, the shared modules it imports, the installed packages, the CPU
    kernels and (when the build asks for more than the snippet's own) the number of seeds or items."""
    kernels = json.dumps(KERNELS, sort_keys=True)
    more = f"{seeds}" if items is None else f"{seeds}\n{items} items"
    digest = hashlib.sha256(f"{CACHE_FORMAT}\n{environment}\n{kernels}\n{more}".encode())
    for source in [path, *sorted(shared_modules(path))]:
        digest.update(_shown(source).encode())
        digest.update(keyed_source(source, path))
    if words := figure_text(path):
        digest.update(json.dumps(words, ensure_ascii=False, sort_keys=True).encode())
    return digest.hexdigest()


def figure_text(path: Path) -> dict:
    """The snippet's figure words from its strings file (``[figure_text.en]``/``.zh``): the
    run draws them, so they are part of its cache key; the numbers' descriptions are not."""
    strings = path.with_suffix(".strings.toml")
    return tomllib.loads(strings.read_text(encoding="utf-8")).get(FIGURE_TEXT, {}) if strings.is_file() else {}


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


def _place(path: Path, seeds: int | None = None, items: int | None = None) -> Path:
    """Where a snippet's results are cached: one folder per run the build asks for beyond the
    snippet's own — more seeds (a trained claim, doubled up to seed_cap) or more items (a
    real-model claim's one more look, at item_cap)."""
    if seeds is not None:
        return CACHE / f"{name_of(path)}@{seeds}"
    return CACHE / (name_of(path) if items is None else f"{name_of(path)}@{items}items")


def _cached(path: Path, key: str, seeds: int | None = None, items: int | None = None) -> bool:
    stored = _place(path, seeds, items) / "key"
    return stored.is_file() and stored.read_text() == key


def _expected(label: str, durations: dict[str, float]) -> float | None:
    """How long a run (``many_heads.pruning``, ``…@16`` with 16 seeds, ``…@120items``) is
    expected to take: its last run in this cache, else the committed durations
    (tools/running/durations.json), else None (a snippet new to both)."""
    try:
        return float((CACHE / label / "seconds").read_text())
    except (OSError, ValueError):
        return durations.get(label)


def _run_one(path: Path, key: str, force: bool, log, workers: Workers, shown: progress.Progress,
             seeds: int | None = None, items: int | None = None) -> Outcome:
    target = _place(path, seeds, items)
    if not force and _cached(path, key, seeds, items):
        return Outcome(name_of(path), target, executed=False)
    shown.start(target.name)
    if not shown.live:  # a terminal shows what runs on its progress line
        log(f"  running {_shown(path)}" + (f" with {seeds} seeds" if seeds else "")
            + (f" with {items} items" if items else ""))
    CACHE.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name_of(path)}-", dir=CACHE))
    start = time.perf_counter()
    try:
        more = {"EXPLAINER_SEEDS": seeds, "EXPLAINER_ITEMS": items}
        _execute(path, scratch, workers, {k: str(v) for k, v in more.items() if v})
        seconds = time.perf_counter() - start
        (scratch / "key").write_text(key)
        (scratch / "seconds").write_text(f"{seconds:.1f}")
        shutil.rmtree(target, ignore_errors=True)
        scratch.rename(target)
    except BaseException:
        shown.finish(target.name)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    shown.finish(target.name, seconds)
    return Outcome(name_of(path), target, executed=True, seconds=seconds)


def run_all(force: bool = False, log=print, only: list[str] | None = None,
            failures: dict[str, str] | None = None, live: bool = False) -> dict[str, Outcome]:
    """Bring the snippets' cached results up to date. A failure raises SnippetError,
    unless ``failures`` is given: then it is filled in (name -> message) instead.

    The longest expected start first (tools/running/progress.py: the committed durations,
    a new snippet before them all), so the workers finish close together. Each finished
    snippet's log line says how many of all are done, which run and the time left; with
    ``live`` (a terminal) one line on stdout, redrawn every second, says it instead.

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
    environment = environment_fingerprint()
    outcomes: dict[str, Outcome] = {}
    results: dict[str, dict] = {}
    errors: dict[str, str] = {}
    n_workers = max(1, min(len(snippets), os.cpu_count() or 1))
    start = time.perf_counter()
    workers = Workers(n_workers)
    claims = registry.load()
    durations = progress.load_durations()
    unknown_s = progress.unknown_seconds(durations)
    shown = progress.Progress(n_workers, live=live)
    log = shown.log(log)  # lines from the runner's threads never interleave
    pending: dict = {}   # future -> (path, the run's label: its cache folder's name)
    looked: set[str] = set()   # snippets given their one more look at item_cap
    asked: set[tuple[str, int]] = set()   # (snippet, seeds) already asked for: once each, even when a
    # snippet's seeds are its own (planted draws) and it records fewer than it was asked for
    try:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            def submit(path: Path, seeds: int | None = None, items: int | None = None,
                       expected: float | None = None, start: bool = True):
                """Queue a run (counted if it executes); ``start``: hand it to the workers now,
                else return what to hand them."""
                key = cache_key(path, environment, seeds, items)
                label = _place(path, seeds, items).name
                if force or not _cached(path, key, seeds, items):
                    shown.queue(label, unknown_s if expected is None else expected, guessed=expected is None)
                    # the runs with more seeds or items it needed last time: a cold build repeats them
                    for later in set(durations) | {p.name for p in CACHE.glob(f"{label}@*")}:
                        if seeds is None and items is None and later.startswith(f"{label}@"):
                            shown.expect_later(later, _expected(later, durations) or unknown_s)
                job = (path, key, force, log, workers, shown, seeds, items)
                if not start:
                    return job
                pending[pool.submit(_run_one, *job)] = (path, label)

            def follow_up(path: Path, n: int, seeds: int | None = None, items: int | None = None) -> None:
                """Run ``path`` again with more seeds or items; expected: as measured, else
                its last run's seconds times seeds (items) over the last run's."""
                measured = _expected(_place(path, seeds, items).name, durations)
                last = _expected(outcomes[name_of(path)].output_dir.name, durations) or unknown_s
                submit(path, seeds, items, expected=measured or last * (seeds or items) / n)

            expected = {name: _expected(name, durations) for name in by_name}
            jobs = [submit(by_name[name], expected=expected[name], start=False)
                    for name in progress.longest_first(list(by_name), expected)]
            for job in jobs:  # all counted before the first starts
                pending[pool.submit(_run_one, *job)] = (job[0], name_of(job[0]))
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    path, label = pending.pop(future)
                    try:
                        outcome = future.result()
                    except SnippetError as error:
                        errors[name_of(path)] = str(error)
                        _settle(shown, by_name, pending, results, errors, claims)
                        log(f"  FAILED  {_shown(path)}" + _facts(shown))
                        continue
                    outcomes[outcome.name] = outcome
                    results[outcome.name] = load_results(outcome)
                    more_seeds, more_items = _more_runs(outcome.name, results, claims, errors)
                    for name, seeds in more_seeds.items():
                        if (name in by_name and by_name[name] not in {p for p, _ in pending.values()}
                                and (name, seeds) not in asked):
                            asked.add((name, seeds))
                            follow_up(by_name[name], results[name]["numbers"]["n_seeds"]["value"], seeds=seeds)
                    for name, items in more_items.items():   # G2: exactly one more look
                        if name in by_name and name not in looked:
                            looked.add(name)
                            follow_up(by_name[name], results[name]["numbers"]["n_items"]["value"], items=items)
                    _settle(shown, by_name, pending, results, errors, claims)
                    if outcome.executed:  # after the runs it asked for: the line counts them
                        log(f"  ran     {label:<32} {outcome.seconds:6.1f} s" + _facts(shown))
    finally:
        shown.close()
        workers.close()
    executed = sum(o.executed for o in outcomes.values())
    log(f"snippets: {executed} executed, {len(outcomes) - executed} cached, "
        f"{len(errors)} failed ({time.perf_counter() - start:.1f} s)")
    if errors and failures is None:
        raise SnippetError("snippet failed:\n" + "\n\n".join(errors.values()))
    if failures is not None:
        failures.update(errors)
    return outcomes


def _facts(shown: progress.Progress) -> str:
    """A finished run's log line ends with the progress (a terminal has it on its live line)."""
    return "" if shown.live else f"   [{shown.facts()}]"


def _settle(shown: progress.Progress, by_name: dict[str, Path], pending: dict, results: dict,
            errors: dict, claims: dict) -> None:
    """Forget the runs expected later of each snippet that no claim will ask to run again."""
    running = {name_of(path) for path, _ in pending.values()}
    for name in shown.later_names() - running:
        if not any(_may_ask(claim, name, by_name, results, errors) for claim in claims.values()):
            shown.drop_later(name)


def _may_ask(claim, name: str, by_name: dict[str, Path], results: dict, errors: dict) -> bool:
    """Whether ``claim`` may still ask for another run of ``name``: it is decided by trained
    models or has an item_cap, and some of its snippets, all in this run, have not finished."""
    needed = {e.snippet for e in claim.experiments if e.snippet}
    return (name in needed and bool(claim.trained_snippets() or claim.item_cap)
            and needed <= set(by_name) and not needed <= set(results) | set(errors))


def _more_runs(finished: str, results: dict[str, dict], claims: dict,
               errors: dict) -> tuple[dict[str, int], dict[str, int]]:
    """Snippets to run with more seeds, and with more items, now that ``finished`` has: from
    the claims it helps decide whose snippets have all finished (a failed or unselected one:
    not decided here)."""
    ready = {}
    for claim_id, claim in claims.items():
        needed = {e.snippet for e in claim.experiments if e.snippet}
        if finished in needed and (claim.trained_snippets() or claim.item_cap) and needed <= set(results):
            ready[claim_id] = claim
    if not ready:
        return {}, {}
    assessments = registry.assess(results, ready)
    seeds = {name: n for name, n in registry.more_seeds(assessments, ready).items()
             if n > results[name]["numbers"]["n_seeds"]["value"] and name not in errors}
    items = {name: n for name, n in registry.more_items(assessments, ready).items()
             if n > results[name]["numbers"]["n_items"]["value"] and name not in errors}
    return seeds, items


def load_results(outcome: Outcome) -> dict:
    results = json.loads((outcome.output_dir / "results.json").read_text(encoding="utf-8"))
    return with_strings(results, strings_file(label_parts(outcome.name)[0]))


def strings_file(name: str) -> Path:
    """A snippet's words beside it: snippets/three_roles/views.py -> views.strings.toml."""
    return SNIPPETS.joinpath(*name.split(".")).with_suffix(".strings.toml")


def with_strings(results: dict, path: Path) -> dict:
    """``results`` with each number's description (what it is, in English and Chinese) read
    from the snippet's strings file, a table per key: ``[key]`` then ``en = "…"`` and
    ``zh = "…"``. The file is read at every build, not by the run: editing a description
    runs nothing again. A number is described in its snippet or in the file, not in both.
    ``{other_key}`` in a description is that recorded number as the language writes it (a
    threshold named once in the snippet: "seeds with a score ≥ {role_bar}"). A number only some
    runs record (a view without a head of its own records none of that head's numbers) has
    ``sometimes = true`` in its table; every other table names a number the run recorded.
    ``spread = true`` describes the numbers of one measurement over the seeds at once
    (``key_mean``, ``key_std``, ``key_min``, ``key_max`` as report_spread records them, those
    the run recorded), each ending adding its words to the table's (SPREAD_WORDS)."""
    if not path.is_file():
        return results
    numbers = results["numbers"]
    for key, about in described(tomllib.loads(path.read_text(encoding="utf-8")), numbers, path):
        where = f"{_shown(path)} [{key}]"
        sometimes = about.pop("sometimes", False)
        if sometimes not in (True, False):
            raise SnippetError(f"{where}: sometimes is true or false")
        if key not in numbers:
            if sometimes:
                continue
            raise SnippetError(f"{where}: the snippet records no number '{key}'")
        if "about" in numbers[key]:
            raise SnippetError(f"{where}: the snippet describes '{key}' too; keep one description")
        if set(about) != {"en", "zh"} or not all(str(text).strip() for text in about.values()):
            raise SnippetError(f"{where}: needs en and zh, and nothing else")
        numbers[key]["about"] = {lang: _filled(about[lang], numbers, lang, where) for lang in ("en", "zh")}
    return results


# What each ending of a measurement over the seeds adds to its description (spread = true).
SPREAD_WORDS = {"mean": (" (mean over seeds)", "（各种子的平均）"),
                "std": (" (standard deviation over seeds)", "（各种子间的标准差）"),
                "min": (" (lowest seed)", "（最低的种子）"),
                "max": (" (highest seed)", "（最高的种子）")}


def described(tables: dict, numbers: dict, path: Path):
    """(key, its table) for each number a strings file describes: a ``spread = true`` table
    stands for the endings of its key the run recorded, each with that ending's words."""
    for key, about in tables.items():
        if key == FIGURE_TEXT:
            continue  # the figures' words: drawn by the run (Report.figure_text)
        spread = about.pop("spread", False)
        if spread not in (True, False):
            raise SnippetError(f"{_shown(path)} [{key}]: spread is true or false")
        if not spread:
            yield key, about
            continue
        endings = [end for end in SPREAD_WORDS if f"{key}_{end}" in numbers]
        if not endings and not about.get("sometimes"):
            raise SnippetError(f"{_shown(path)} [{key}]: spread = true, but the snippet records "
                               f"none of {', '.join(f'{key}_{end}' for end in SPREAD_WORDS)}")
        for end in endings:
            words = dict(zip(("en", "zh"), SPREAD_WORDS[end]))
            yield f"{key}_{end}", {field: text + words[field] if field in words and isinstance(text, str) else text
                                   for field, text in about.items()}


def _filled(description: str, numbers: dict, lang: str, where: str) -> str:
    def number(match: re.Match) -> str:
        if match[1] not in numbers:
            raise SnippetError(f"{where}: {{{match[1]}}} is no number the snippet records")
        return numbers[match[1]]["texts"][lang]
    return re.sub(r"\{(\w+)\}", number, description)


def label_parts(label: str) -> tuple[str, int | None, int | None]:
    """``many_heads.pruning@16`` -> (name, 16 seeds, None); ``…@120items`` -> (name, None, 120)."""
    name, _, more = label.partition("@")
    seeds = int(more) if more.isdigit() else None
    items = int(more.removesuffix("items")) if more.endswith("items") and more[:-5].isdigit() else None
    return name, seeds, items


def current_runs() -> dict[str, Path]:
    """Every finished run in the cache that the current sources would not run again (its key
    is today's), label -> folder: the snippets and the runs with more seeds or items that
    their claims asked for. Runs of older sources and of removed snippets are left out."""
    environment = environment_fingerprint()
    paths = {name_of(path): path for path in discover()}
    runs = {}
    for folder in sorted(CACHE.glob("*")) if CACHE.is_dir() else []:
        name, seeds, items = label_parts(folder.name)
        more = folder.name != name
        if name in paths and (folder / "seconds").is_file() and (seeds or items or not more) \
                and _cached(paths[name], cache_key(paths[name], environment, seeds, items), seeds, items):
            runs[folder.name] = folder
    return runs


def measured_durations() -> dict[str, float]:
    """The seconds of every current run in the cache, by label (see ``current_runs``)."""
    return {label: float((folder / "seconds").read_text()) for label, folder in current_runs().items()}


def write_durations() -> dict[str, float]:
    """tools/running/durations.json from this cache's measured runs; a snippet not measured
    here (it failed) keeps the seconds the file had."""
    names = {name_of(path) for path in discover()}
    kept = {label: s for label, s in progress.load_durations().items() if label in names}
    durations = {**kept, **measured_durations()}
    progress.write_durations(durations)
    return durations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="snippet names (default: all)")
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    parser.add_argument("--json", action="store_true",
                        help="print every snippet's results.json as one JSON object (progress to stderr)")
    parser.add_argument("--write-durations", action="store_true",
                        help=f"then write each run's seconds to {_shown(progress.DURATIONS)} (commit it)")
    args = parser.parse_args()
    log = (lambda message: print(message, file=sys.stderr)) if args.json else print
    try:
        outcomes = run_all(force=args.force, only=args.names or None, log=log,
                           live=not args.json and sys.stdout.isatty())
    except SnippetError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({name: load_results(o) for name, o in outcomes.items()}))
    if args.write_durations:
        durations = write_durations()
        log(f"wrote {_shown(progress.DURATIONS)}: {len(durations)} runs, "
            f"{sum(durations.values()):.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
