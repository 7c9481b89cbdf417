"""The machine-independence check: every claim decided by trained models must get the same
verdict when its snippets compute with another CPU kernel.

    python -m tools.running.kernel_check                  # second kernel: ATEN_CPU_CAPABILITY=default
    python -m tools.running.kernel_check --kernel avx512  # on a machine that has it

The pinned build's results come from the usual cache (run first if needed); the second
kernel's run keeps its own cache (.cache/snippets-<kernel>/), with every snippet the trained
claims read, seeds escalated by the same rules. Prints one line per claim; exit status 1
when any shown verdict differs.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from tools.verdicts import claims as registry
from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parents[2]


def trained_claims(claims: dict) -> dict:
    return {claim_id: c for claim_id, c in claims.items() if c.trained_snippets()}


def snippets_read(claims: dict) -> list[str]:
    return sorted({e.snippet for c in claims.values() for e in c.experiments if e.snippet})


def results_under(kernel: str | None, names: list[str]) -> dict[str, dict]:
    """The snippets' results computed with ``kernel`` (None: the pinned one, in this process)."""
    if kernel is None:
        outcomes = snippet_runner.run_all(only=names)
        return {name: snippet_runner.load_results(o) for name, o in outcomes.items()}
    env = dict(os.environ, ATEN_CPU_CAPABILITY=kernel,
               EXPLAINER_CACHE_DIR=str(ROOT / ".cache" / f"snippets-{kernel}"))
    done = subprocess.run([sys.executable, "-m", "tools.running.snippet_runner",
                           "--json", *names], env=env, cwd=ROOT, check=True, stdout=subprocess.PIPE,
                          text=True)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default="default",
                        help="ATEN_CPU_CAPABILITY of the second run (default, avx2, avx512)")
    kernel = parser.parse_args().kernel
    start = time.perf_counter()
    claims = trained_claims(registry.load())
    names = snippets_read(claims)
    pinned = registry.assess(results_under(None, names), claims)
    other = registry.assess(results_under(kernel, names), claims)
    differ = []
    print(f"\n{'claim':<6} {'pinned':<34} {kernel}")
    for claim_id in claims:
        a, b = pinned[claim_id], other[claim_id]
        show = lambda x: (f"{x.verdict} ({math.floor(100 * x.stability)} % at n = {x.n_seeds}"  # noqa: E731
                          + (", undecided)" if x.undecided else ")"))
        mark = "" if a.verdict == b.verdict else "   <- differs"
        print(f"{claim_id:<6} {show(a):<34} {show(b)}{mark}")
        if a.verdict != b.verdict:
            differ.append(claim_id)
    seconds = time.perf_counter() - start
    if differ:
        print(f"FAILED: {', '.join(differ)} get another verdict under ATEN_CPU_CAPABILITY={kernel} "
              f"({seconds:.0f} s)", file=sys.stderr)
        return 1
    print(f"every trained verdict is the same under ATEN_CPU_CAPABILITY={kernel} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
