"""The same numbers on every machine, checked: a fingerprint of each snippet's recorded
numbers under the pinned CPU kernels, committed beside the durations.

    python -m tools.running.fingerprints           # compare this cache with the committed file
    python -m tools.running.fingerprints --write   # after a snippet changed (make durations does it)

A run's fingerprint is one short hash per recorded number (its exact value), together with
the hash of what the run computed from: the snippet's source, the shared modules it imports,
the versions of the packages it can import, the CPU kernels and its seeds or items. Another
machine that builds the same code must record the same numbers; a build whose numbers differ
says which snippet and how many numbers (tests/test_fingerprints.py fails on it).
"""

import argparse
import functools
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parents[2]
FINGERPRINTS = Path(__file__).with_name("fingerprints.json")


@functools.cache
def _snippet_paths() -> dict[str, Path]:
    return {snippet_runner.name_of(p): p for p in snippet_runner.discover()}


@functools.cache
def _snippet_pins() -> str:
    """The versions of what snippets can import (the runner's environment, without Python's
    own build string): a new version of the site's tools leaves the fingerprints valid."""
    return snippet_runner.environment_fingerprint().split("\n", 1)[1]


def code_key(label: str) -> str:
    """What a run computed from, without the machine: sources, package versions, kernels, seeds/items."""
    name, seeds, items = snippet_runner.label_parts(label)
    path = _snippet_paths()[name]
    pins = _snippet_pins()
    kernels = json.dumps(snippet_runner.KERNELS, sort_keys=True)
    digest = hashlib.sha256(f"{pins}\n{kernels}\n{seeds}\n{items}\n".encode())
    for source in [path, *sorted(snippet_runner.shared_modules(path))]:
        digest.update(source.relative_to(ROOT).as_posix().encode())
        digest.update(snippet_runner.keyed_source(source, path))
    return digest.hexdigest()[:16]


def number_hashes(results: dict) -> dict[str, str]:
    """One hash per recorded number: its exact value (repr of the float), NaN included."""
    return {key: hashlib.sha256(repr(float(entry["value"])).encode()).hexdigest()[:10]
            for key, entry in sorted(results["numbers"].items())}


def of_cache() -> dict[str, dict]:
    """label -> {"code": …, "numbers": {key: hash}} for every current run in the cache."""
    out = {}
    for label, folder in snippet_runner.current_runs().items():
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        out[label] = {"code": code_key(label), "numbers": number_hashes(results)}
    return out


def load(path: Path = FINGERPRINTS) -> dict[str, dict]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def write(fingerprints: dict[str, dict], path: Path = FINGERPRINTS) -> None:
    """One run a line, sorted: a refresh's diff shows which snippets' numbers changed."""
    lines = [f"  {json.dumps(label)}: {json.dumps(entry, sort_keys=True)}"
             for label, entry in sorted(fingerprints.items())]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


@dataclass
class Comparison:
    differ: dict[str, tuple[int, int]] = field(default_factory=dict)  # label -> (numbers differing, of)
    stale: list[str] = field(default_factory=list)      # committed for other code: run --write
    missing: list[str] = field(default_factory=list)    # runs the committed file does not have
    same: int = 0                                       # runs whose every number matches

    @property
    def ok(self) -> bool:
        return not (self.differ or self.stale or self.missing)

    def lines(self) -> list[str]:
        out = [f"{label}: {n} of {total} numbers differ from the committed fingerprints"
               for label, (n, total) in sorted(self.differ.items())]
        out += [f"{label}: fingerprint committed for other code (run make durations and commit "
                f"{FINGERPRINTS.relative_to(ROOT)})" for label in self.stale]
        out += [f"{label}: no committed fingerprint (run make durations and commit it)" for label in self.missing]
        return out


def compare(committed: dict[str, dict], measured: dict[str, dict]) -> Comparison:
    """The measured runs against the committed fingerprints, number by number."""
    result = Comparison()
    for label, entry in sorted(measured.items()):
        known = committed.get(label)
        if known is None:
            result.missing.append(label)
        elif known["code"] != entry["code"]:
            result.stale.append(label)
        else:
            keys = set(known["numbers"]) | set(entry["numbers"])
            differ = sum(known["numbers"].get(k) != entry["numbers"].get(k) for k in keys)
            if differ:
                result.differ[label] = (differ, len(keys))
            else:
                result.same += 1
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {FINGERPRINTS.name} from this cache")
    args = parser.parse_args()
    measured = of_cache()
    if args.write:
        kept = {k: v for k, v in load().items() if snippet_runner.label_parts(k)[0] in _snippet_paths()}
        write({**kept, **measured})  # a snippet that failed here keeps its committed entry
        print(f"wrote {FINGERPRINTS.relative_to(ROOT)}: {len(measured)} runs")
        return 0
    comparison = compare(load(), measured)
    for line in comparison.lines():
        print(line)
    print(f"fingerprints: {comparison.same} of {len(measured)} runs record the committed numbers")
    return 0 if comparison.ok else 1


if __name__ == "__main__":
    sys.exit(main())
