"""Benchmark the site build (not a test): cold, warm and no-execution builds.

    python -m tools.contributing.bench_build [--runs 3]

cold      = empty snippet cache: every snippet executes
warm      = built again (--again) with nothing changed: no snippet executes, every page is built
no-exec   = EXPLAINER_NO_EXEC=1, built again: the same pages with snippets switched off
unchanged = nothing changed since the last build: the site is left as it is
Prints the median wall time of each and the snippet executions of a cold build.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parents[2]
BUILD = [sys.executable, "-m", "tools.pages.build_site"]


def timed_build(env_extra: dict | None = None, phases: list | None = None,
                again: bool = True) -> tuple[float, int]:
    """Seconds and snippet executions of one build; ``phases`` gets (snippet phase, summed
    snippet run time, after the snippet phase) in seconds."""
    env = dict(os.environ, **(env_extra or {}))
    start = time.perf_counter()
    done = subprocess.run(BUILD + ["--again"] * again, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"build failed:\n{done.stdout}\n{done.stderr}")
    match = re.search(r"snippets: (\d+) executed.*\(([\d.]+) s\)", done.stdout)
    if phases is not None and match:
        summed = sum(float(t) for t in re.findall(r"^  ran +\S+ +([\d.]+) s\b", done.stdout, re.M))
        phases.append((float(match.group(2)), summed, seconds - float(match.group(2))))
    return seconds, int(match.group(1)) if match else 0


def clear_caches() -> None:
    for path in (ROOT / ".cache" / "snippets", ROOT / ".cache" / "mkdocs-jupyter", ROOT / "site"):
        shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cold, warm, no_exec, unchanged, executions, phases = [], [], [], [], [], []
    for _ in range(args.runs):
        clear_caches()
        seconds, executed = timed_build(phases=phases)
        cold.append(seconds)
        executions.append(executed)
        warm.append(timed_build()[0])
        no_exec.append(timed_build({"EXPLAINER_NO_EXEC": "1"})[0])
    timed_build()  # leave a complete site behind
    for _ in range(args.runs):
        unchanged.append(timed_build(again=False)[0])
    print(f"cores: {os.cpu_count()}, runs: {args.runs}")
    for label, values in (("cold", cold), ("warm", warm), ("no-exec", no_exec), ("unchanged", unchanged)):
        print(f"{label:9} median {statistics.median(values):6.1f} s   "
              f"(min {min(values):.1f}, max {max(values):.1f})")
    print(f"snippet executions in a cold build: {executions[0]} "
          f"(snippets: {len(snippet_runner.discover())})")
    print(f"warm / no-exec: {statistics.median(warm) / statistics.median(no_exec):.2f}")
    cores = os.cpu_count() or 1
    for phase, summed, after in phases:  # the budget: phase <= 1.15 x summed / cores, after <= 30 s
        print(f"cold build: snippet phase {phase:.1f} s = {phase / (summed / cores):.2f} x (summed snippet "
              f"time {summed:.1f} s / {cores} cores); after it {after:.1f} s")


if __name__ == "__main__":
    main()
