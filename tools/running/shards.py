"""The snippets split over machines: CI's matrix of snippet jobs, and ``make build SHARDS=N``.

    python -m tools.running.shards plan 3               # the matrix (JSON): each shard's snippets, expected s
    python -m tools.running.shards run 2 3 OUT          # run shard 2 of 3 here, copy its runs to OUT/
    python -m tools.running.shards assemble DIR ...     # the shards' runs into .cache/snippets
    python -m tools.running.shards local 3              # make build SHARDS=3 (below)

A shard is a set of whole groups: the snippets one claim's rule reads stay together, because
the runner asks for more seeds (or items) only once every snippet of a claim has finished in
the same run (snippet_runner._more_runs). Groups go to shards longest first by the committed
durations (tools/running/durations.json, its runs with more seeds or items counted with their
snippet), each to the shard with the least expected time so far.

``local N`` proves the split changes nothing: each shard runs by itself, in its own runner
process and its own cache (.cache/shards/<i>/), the shards' runs are put together, and every
file of every run (results, figures, cells, what it printed; not ``seconds``, a timing) must be
byte-identical to the full build's run in .cache/snippets, which the runner brings up to date
first. Every run is keyed by content (snippet_runner.cache_key), so a shard's cache is reused
by the next ``local`` run as the full cache is.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools.running import progress, snippet_runner
from tools.verdicts import claims as registry

ROOT = snippet_runner.ROOT
LOCAL = ROOT / ".cache" / "shards"
NOT_COMPARED = {"seconds"}   # how long the run took: a timing, not a result
CORES = 2                    # a CI runner's (GitHub's ubuntu-latest has 2 to 4): the estimate's workers


def _snippet_of(source: str, names: set[str]) -> str | None:
    """The snippet a rule's ``source.key`` reads (its longest known prefix)."""
    parts = source.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:cut]) in names:
            return ".".join(parts[:cut])
    return None


def groups(names: list[str], claims: dict | None = None) -> list[list[str]]:
    """``names`` in groups that must run in one runner: every snippet a claim decided by trained
    models or with an item_cap reads (its experiments and its rule's numbers), and those of the
    claims it names as related, together. Each group sorted; groups in order of their first name."""
    claims = registry.load() if claims is None else claims
    parent = {name: name for name in names}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    known = set(names)
    for claim in claims.values():
        if not (claim.trained_snippets() or claim.item_cap):
            continue
        linked = [claim, *(claims[other] for other in claim.related if other in claims)]
        together = {e.snippet for c in linked for e in c.experiments if e.snippet in known}
        together |= {s for c in linked for s in (_snippet_of(n, known) for n in c.names()) if s}
        together = sorted(together)
        for other in together[1:]:
            parent[root(other)] = root(together[0])
    grouped: dict[str, list[str]] = {}
    for name in sorted(names):
        grouped.setdefault(root(name), []).append(name)
    return sorted(grouped.values())


def expected_seconds(group: list[str], durations: dict[str, float]) -> float:
    """A group's runs, its snippets' own and those with more seeds or items, by the durations
    (a snippet they do not know: their median)."""
    unknown = progress.unknown_seconds(durations)
    return sum(sum(s for label, s in durations.items() if label.partition("@")[0] == name)
               or unknown for name in group)


def plan(n: int, names: list[str] | None = None, claims: dict | None = None,
         durations: dict[str, float] | None = None) -> list[list[str]]:
    """``n`` shards of snippet names: whole groups, longest first, each to the shard expected to
    finish first (ties: the lower shard). Each shard's names sorted."""
    names = names if names is not None else [snippet_runner.name_of(p) for p in snippet_runner.discover()]
    durations = progress.load_durations() if durations is None else durations
    shards: list[list[str]] = [[] for _ in range(n)]
    load = [0.0] * n
    for group in sorted(groups(names, claims), key=lambda g: (-expected_seconds(g, durations), g)):
        lightest = min(range(n), key=lambda i: (load[i], i))
        shards[lightest] += group
        load[lightest] += expected_seconds(group, durations)
    return [sorted(shard) for shard in shards]


def wall_seconds(shard: list[str], durations: dict[str, float], workers: int = CORES) -> float:
    """A shard's expected wall time on ``workers`` cores: its runs longest first, each to the first
    free worker (as the runner starts them), the runs with more seeds or items after them."""
    unknown = progress.unknown_seconds(durations)
    own = sorted((durations.get(name, unknown) for name in shard), reverse=True)
    more = [s for label, s in durations.items() if "@" in label and label.partition("@")[0] in shard]
    return progress.finish_time([], own + more, workers)


def shard_runs(names: list[str], cache: Path) -> dict[str, Path]:
    """Every current run in ``cache`` of the snippets ``names``: label -> folder."""
    return {label: folder for label, folder in _current_runs(cache).items()
            if label.partition("@")[0] in names}


def _current_runs(cache: Path) -> dict[str, Path]:
    previous = snippet_runner.CACHE
    snippet_runner.CACHE = cache
    try:
        return snippet_runner.current_runs()
    finally:
        snippet_runner.CACHE = previous


def run_shard(index: int, n: int, out: Path | None = None, cache: Path | None = None) -> dict[str, Path]:
    """Run shard ``index`` (1-based) of ``n`` in a runner process of its own with ``cache`` as its
    cache (default: the build's); copy its runs to ``out`` (what a CI job uploads)."""
    names = plan(n)[index - 1]
    cache = cache or snippet_runner.CACHE
    env = dict(os.environ, EXPLAINER_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-m", "tools.running.snippet_runner", *names], cwd=ROOT, env=env)
    if done.returncode != 0:
        raise snippet_runner.SnippetError(f"shard {index} of {n} failed")
    runs = shard_runs(names, cache)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for label, folder in runs.items():
            shutil.rmtree(out / label, ignore_errors=True)
            shutil.copytree(folder, out / label)
    return runs


def assemble(folders: list[Path], cache: Path | None = None) -> list[str]:
    """Every run in the shards' ``folders`` (label -> run folder) into ``cache``; the labels."""
    cache = cache or snippet_runner.CACHE
    cache.mkdir(parents=True, exist_ok=True)
    labels = []
    for folder in folders:
        for run in sorted(p for p in folder.iterdir() if (p / "key").is_file()):
            shutil.rmtree(cache / run.name, ignore_errors=True)
            shutil.copytree(run, cache / run.name)
            labels.append(run.name)
    return labels


def differences(union: dict[str, Path], full: dict[str, Path]) -> list[str]:
    """Where the shards' runs and the full build's differ: a run only one has, a file only one
    has, a file whose bytes differ (``seconds`` aside)."""
    out = [f"{label}: only in the {where}" for label, where in
           [(l, "shards") for l in sorted(set(union) - set(full))]
           + [(l, "full build") for l in sorted(set(full) - set(union))]]
    for label in sorted(set(union) & set(full)):
        files = {side: {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
                 - NOT_COMPARED for side, folder in (("shards", union[label]), ("full", full[label]))}
        for name in sorted(files["shards"] ^ files["full"]):
            out.append(f"{label}/{name}: only in the {'shards' if name in files['shards'] else 'full build'}")
        for name in sorted(files["shards"] & files["full"]):
            if not filecmp.cmp(union[label] / name, full[label] / name, shallow=False):
                out.append(f"{label}/{name}: differs")
    return out


def local(n: int, log=print) -> list[str]:
    """``make build SHARDS=n``: the shards, each by itself in its own cache; the full build's
    runs brought up to date; the differences between their union and the full build's."""
    union: dict[str, Path] = {}
    for index in range(1, n + 1):
        log(f"shard {index} of {n}: {' '.join(plan(n)[index - 1])}")
        union.update(run_shard(index, n, cache=LOCAL / str(index)))
    log("the full build's runs:")
    snippet_runner.run_all(log=log)
    found = differences(union, snippet_runner.current_runs())
    log(f"{len(union)} runs in {n} shards: "
        + ("byte-identical to the full build's" if not found else f"{len(found)} differences"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    plan_ = commands.add_parser("plan", help="the shards as JSON (CI's matrix)")
    plan_.add_argument("n", type=int)
    run = commands.add_parser("run", help="run one shard here, copy its runs to OUT")
    run.add_argument("index", type=int)
    run.add_argument("n", type=int)
    run.add_argument("out", type=Path)
    together = commands.add_parser("assemble", help="the shards' runs into the build's cache")
    together.add_argument("folders", type=Path, nargs="+")
    both = commands.add_parser("local", help="each shard in its own cache; union == full build?")
    both.add_argument("n", type=int)
    args = parser.parse_args()
    if args.command == "plan":
        durations = progress.load_durations()
        shards = plan(args.n)
        print(json.dumps([{"shard": i + 1, "of": args.n, "snippets": len(s),
                           "expected_s": round(wall_seconds(s, durations))} for i, s in enumerate(shards)]))
    elif args.command == "run":
        try:
            runs = run_shard(args.index, args.n, args.out)
        except snippet_runner.SnippetError as error:
            print(f"ERROR: {error}", file=sys.stderr)
            return 1
        print(f"shard {args.index} of {args.n}: {len(runs)} runs in {args.out}")
    elif args.command == "assemble":
        labels = assemble(args.folders)
        print(f"{len(labels)} runs into {snippet_runner.CACHE}")
    else:
        found = local(args.n)
        for line in found:
            print(f"ERROR: {line}", file=sys.stderr)
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
