"""The rules history (docs/rules_history.yml): every version of every claim's rule, append-only.

A rule may change after its experiment's numbers are known; the history says when each version
was fixed and whether the numbers it reads were already recorded then, so the ledger can say
which rules were fixed before the first run and which were revised after results were known.

    python -m tools.verdicts.rules_history          # append a version for each changed rule
    python -m tools.verdicts.rules_history --seed   # (once) the history computed from git

Per claim, a list of versions, oldest first:

    C25:
      - decision: 3f0c…      # hash of the cases and `otherwise` (keys without their snippet module)
        words: 9ab1…         # hash of the rule in plain words (en, zh)
        date: 2026-11-29T14:33:32+00:00
        commit: 43c8c4e…     # the commit that fixed it (null when this tool appended it: the
                             # commit comes after; the build finds it in git by its hashes)
        numbers_known: false # were the numbers it reads already recorded when it was fixed?
        results: null        # hash of those numbers at that moment, when known
        verdict: null        # the verdict it gave then, when known
        cases: [...]         # the rule itself, so the ledger can apply an old version to today's numbers
        otherwise: refuted

Renaming a snippet module (``real_model.head_roles.x`` -> ``real_model.head_roles.coreference.x``)
is not a new version: the hashes read each number by its key alone. Rewording the rule is one
(``words`` changes), but only a changed ``decision`` counts as a revised rule.

The build (tools/pages/mkdocs_hooks.py) calls ``check``: it fails when a claim's rule is not the
last version of its history, and, when the repository's history is there, when a commit changed a
claim's rule without a version recorded for it.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tools.verdicts import claims as registry

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "docs" / "rules_history.yml"
REGISTRY_PATH = "docs/claims.yml"
COMMAND = "python -m tools.verdicts.rules_history"
HEADER = f"""\
# The rules history: every version of every claim's rule in docs/claims.yml, oldest first.
# Append-only, written by `{COMMAND}` (run it after changing a rule, and commit
# both files together); the build fails when a claim's rule is not the last version here.
# decision: hash of the rule's cases and `otherwise`, each number read by its key alone (moving a
#           snippet module is not a new version); words: hash of the rule in words (en, zh).
# date, commit: when the version was fixed (commit null: appended before its commit).
# numbers_known: whether the numbers the rule reads were already recorded when it was fixed (from git:
#           a snippet recording one of its keys, or computing a verdict for the claim, in an earlier commit).
# results: hash of those numbers at that moment, when known; verdict: the verdict it gave then, when known.
# cases, otherwise: the version's rule, so the ledger can apply an earlier version to today's numbers.
"""


class HistoryError(ValueError):
    """The rules history and the registry disagree."""


# --- Hashes ------------------------------------------------------------------------------------

class _KeysOnly(ast.NodeTransformer):
    """``snippet.module.key`` -> ``key``: a number is the same number wherever its module moves."""

    def visit_Attribute(self, node):
        return ast.Name(id=node.attr, ctx=ast.Load())


def _by_key(condition: str) -> str:
    try:
        return ast.unparse(_KeysOnly().visit(ast.parse(str(condition), mode="eval")))
    except SyntaxError:
        return " ".join(str(condition).split())


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


def _cases(rule: dict) -> list[tuple[str, str]]:
    return [next(iter(case.items())) for case in rule.get("cases") or [] if isinstance(case, dict) and case]


def decision_hash(rule: dict) -> str:
    """The hash of what decides: the cases in order and ``otherwise`` (keys without modules)."""
    return _digest([[[verdict, _by_key(condition)] for verdict, condition in _cases(rule)],
                    rule.get("otherwise")])


def words_hash(rule: dict) -> str:
    """The hash of the rule in plain words, both languages (whitespace does not count)."""
    return _digest([" ".join(str(rule.get(lang, "")).split()) for lang in ("en", "zh")])


def rule_of(entry: dict) -> dict | None:
    rule = entry.get("rule") if isinstance(entry, dict) else None
    return rule if isinstance(rule, dict) else None


def names(rule: dict) -> list[str]:
    """Every ``source.key`` the rule's cases read."""
    found = []
    for _, condition in _cases(rule):
        try:
            found += [n for n in registry._names(ast.parse(str(condition), mode="eval")) if n not in found]
        except SyntaxError:
            pass
    return found


# --- The file ------------------------------------------------------------------------------------

def read(path: Path = HISTORY) -> dict[str, list[dict]]:
    if not path.is_file():
        return {}
    return yaml.load(path.read_text(encoding="utf-8"), Loader=registry.YAML_LOADER) or {}


def _dump(history: dict[str, list[dict]]) -> str:
    def order(claim_id: str):
        digits = re.sub(r"\D", "", claim_id)
        return (int(digits) if digits else 0, claim_id)
    body = {claim_id: history[claim_id] for claim_id in sorted(history, key=order)}
    return HEADER + "\n" + yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=100)


def write(history: dict[str, list[dict]], path: Path = HISTORY) -> None:
    path.write_text(_dump(history), encoding="utf-8")


def append_only(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> None:
    """Raise unless ``after`` keeps every entry of ``before`` as it was, in its place."""
    for claim_id, versions in before.items():
        if after.get(claim_id, [])[:len(versions)] != versions:
            raise HistoryError(f"{claim_id}: the rules history is append-only; an earlier version "
                               f"was changed or removed")


# --- Git ---------------------------------------------------------------------------------------

def _git(*args: str, root: Path = ROOT, input: str | None = None) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True, input=input).stdout


def git_history_available(root: Path = ROOT) -> bool:
    try:
        return _git("rev-parse", "--is-shallow-repository", root=root).strip() == "false"
    except (OSError, subprocess.CalledProcessError):
        return False


@dataclass
class Commit:
    sha: str
    parents: list[str]
    time: int                 # committer time, seconds
    date: str                 # ISO 8601 with offset
    blob: str | None          # docs/claims.yml's blob, None when absent


def _commits(root: Path) -> list[Commit]:
    """Every commit reachable from HEAD, parents before children."""
    lines = _git("log", "--topo-order", "--reverse", "--format=%H %ct %cI %P", "HEAD", root=root).splitlines()
    commits = []
    for line in lines:
        sha, time, date, *parents = line.split()
        commits.append(Commit(sha, parents, int(time), date, None))
    batch = _git("cat-file", "--batch-check=%(objectname) %(objecttype)", root=root,
                 input="".join(f"{c.sha}:{REGISTRY_PATH}\n" for c in commits)).splitlines()
    for commit, answer in zip(commits, batch):
        objectname, _, kind = answer.partition(" ")
        commit.blob = objectname if kind == "blob" else None
    return commits


def _registries(root: Path, blobs: set[str]) -> dict[str, dict]:
    """Each blob of docs/claims.yml parsed (a blob yaml cannot read counts as empty)."""
    parsed = {}
    for blob in sorted(blobs):
        try:
            entries = yaml.load(_git("cat-file", "blob", blob, root=root), Loader=registry.YAML_LOADER)
        except yaml.YAMLError:
            entries = None
        parsed[blob] = entries if isinstance(entries, dict) else {}
    return parsed


def _first_recorded(root: Path, wanted: dict[str, set[str]], claim_ids: set[str]) -> tuple[dict, dict, dict]:
    """When each number could first be recorded, when a snippet first computed a verdict for
    a claim (``report.claim("C25", …)``, before the registry's rules) and when each snippet file
    first existed: from the snippets' added lines over the history. ``wanted``: snippet file ->
    keys. Returns ({(file, key): time}, {claim_id: time}, {file: time})."""
    key_times: dict[tuple[str, str], int] = {}
    claim_times: dict[str, int] = {}
    file_times: dict[str, int] = {}
    verdict = re.compile(r"""claim\(\s*["'](C\d+)["']""")
    time, path, opened = 0, "", False   # opened: the previous added line ended in "claim("
    log = _git("log", "--reverse", "--format=@@commit %ct", "-p", "--no-renames", "--unified=0",
               "HEAD", "--", "snippets", root=root)
    for line in log.splitlines():
        if line.startswith("@@commit "):
            time = int(line.split()[1])
        elif line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("+") and path.endswith(".py"):
            file_times.setdefault(path, time)
            found = verdict.findall(line)
            if opened:
                found += re.findall(r"""^\+\s*["'](C\d+)["']""", line)
            opened = bool(re.search(r"claim\(\s*$", line))
            for claim_id in found:
                if claim_id in claim_ids:
                    claim_times.setdefault(claim_id, time)
            for key in wanted.get(path, ()):
                if (path, key) not in key_times and re.search(rf"\b{re.escape(key)}\b", line):
                    key_times[(path, key)] = time
    return key_times, claim_times, file_times


def _snippet_file(name: str) -> tuple[str, str]:
    source, _, key = name.rpartition(".")
    return f"snippets/{source.replace('.', '/')}.py", key


def from_git(root: Path = ROOT) -> dict[str, list[dict]]:
    """The history as the repository's commits tell it: a version wherever a commit's rule for a
    claim differs from its rule in every parent of that commit (a merge that takes one side's rule
    makes none), oldest first."""
    commits = _commits(root)
    parsed = _registries(root, {c.blob for c in commits if c.blob})
    by_sha = {c.sha: c for c in commits}

    def rule_at(commit: Commit | None, claim_id: str) -> dict | None:
        return rule_of(parsed.get(commit.blob, {}).get(claim_id)) if commit and commit.blob else None

    def hashes(rule):
        return (decision_hash(rule), words_hash(rule)) if rule else None

    introduced: dict[str, list[tuple[Commit, dict]]] = {}
    for commit in commits:
        if not commit.blob:
            continue
        parent_blobs = {by_sha[p].blob for p in commit.parents if p in by_sha}
        if parent_blobs == {commit.blob}:
            continue
        for claim_id, entry in parsed[commit.blob].items():
            rule = rule_of(entry)
            if rule is None:
                continue
            mine = hashes(rule)
            if any(hashes(rule_at(by_sha.get(p), claim_id)) == mine for p in commit.parents):
                continue
            versions = introduced.setdefault(claim_id, [])
            if versions and hashes(versions[-1][1]) == mine:
                continue   # the same edit made on two branches
            versions.append((commit, rule))

    wanted: dict[str, set[str]] = {}
    for versions in introduced.values():
        for _, rule in versions:
            for name in names(rule):
                path, key = _snippet_file(name)
                wanted.setdefault(path, set()).add(key)
    key_times, claim_times, file_times = _first_recorded(root, wanted, set(introduced))

    history = {}
    for claim_id, versions in introduced.items():
        history[claim_id] = []
        # Numbers are known for a version when, before its commit, a snippet recorded a number that
        # it or an earlier version of the claim's rule reads, or computed the claim's verdict, or
        # when every snippet an earlier deciding version reads existed: the build computed that
        # version's verdict (it stops when a rule reads a number nobody recorded).
        recorded = [claim_times.get(claim_id)]
        for commit, rule in versions:
            recorded += [key_times.get(_snippet_file(name)) for name in names(rule)]
            known = any(t is not None and t < commit.time for t in recorded)
            files = {_snippet_file(name)[0] for name in names(rule) if _snippet_file(name)[0] in wanted}
            ran = max((file_times.get(f) for f in files), default=None, key=lambda t: t or 0) \
                if files and all(f in file_times for f in files) else None
            history[claim_id].append(_version(rule, commit.date, commit.sha, known, None, None))
            if ran is not None:
                recorded.append(max(ran, commit.time))
    return history


def _from_git_cached(root: Path) -> dict[str, list[dict]]:
    """``from_git``, kept in .cache/rules_history/ under the commit it was read from (the history
    of a commit never changes; the English and Chinese builds read it once)."""
    head = _git("rev-parse", "HEAD", root=root).strip()
    key = hashlib.sha256((head + Path(__file__).read_text(encoding="utf-8")).encode()).hexdigest()[:24]
    stored = root / ".cache" / "rules_history" / f"{key}.json"
    if stored.is_file():
        return json.loads(stored.read_text(encoding="utf-8"))
    history = from_git(root)
    stored.parent.mkdir(parents=True, exist_ok=True)
    scratch = stored.with_suffix(f".{os.getpid()}.tmp")   # both builds may store it at once
    scratch.write_text(json.dumps(history), encoding="utf-8")
    scratch.replace(stored)
    return history


def _version(rule: dict, date: str, commit: str | None, numbers_known: bool, results: str | None,
             verdict: str | None) -> dict:
    return {"decision": decision_hash(rule), "words": words_hash(rule), "date": date, "commit": commit,
            "numbers_known": bool(numbers_known), "results": results, "verdict": verdict,
            "cases": [{v: str(c)} for v, c in _cases(rule)], "otherwise": rule.get("otherwise")}


def _same(version: dict, rule: dict) -> bool:
    return version["decision"] == decision_hash(rule) and version["words"] == words_hash(rule)


# --- Appending -------------------------------------------------------------------------------

CACHE = ROOT / ".cache" / "snippets"


def _recorded(rule: dict, claim: registry.Claim, cache: Path) -> tuple[str | None, str | None]:
    """The numbers the rule reads as cached now (their hash) and the verdict it gives on them;
    (None, None) when some number is not recorded."""
    numbers = {}
    for experiment in claim.experiments:
        numbers.update({f"{experiment.reference}.{k}": v for k, v in experiment.numbers.items()})
    for name in names(rule):
        if name in numbers:
            continue
        source, _, key = name.rpartition(".")
        results = cache / source / "results.json"
        if not results.is_file():
            return None, None
        recorded = json.loads(results.read_text(encoding="utf-8")).get("numbers", {})
        if key not in recorded:
            return None, None
        numbers[name] = recorded[key]["value"]
    read = {name: numbers[name] for name in names(rule)}
    try:
        verdict = registry.decide(claim, numbers)
    except (registry.MissingMeasurement, registry.RegistryError):
        verdict = None
    return _digest(read), verdict


def update(registry_path: Path = registry.REGISTRY, path: Path = HISTORY, cache: Path = CACHE,
           today: str | None = None) -> list[str]:
    """Append a version for every claim whose rule differs from its last recorded version;
    returns the claims appended to. Never changes an earlier entry."""
    entries = yaml.load(registry_path.read_text(encoding="utf-8"), Loader=registry.YAML_LOADER)
    claims = registry.load(registry_path)
    history = read(path)
    before = json.loads(json.dumps(history))
    today = today or dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
    appended = []
    # Versions that commits made since the history was last written come first, with their
    # commits' dates (a rule committed before its run, then revised, keeps both versions).
    root = registry_path.resolve().parents[1]     # docs/claims.yml -> the repository
    from_commits = _from_git_cached(root) if git_history_available(root) else {}
    for claim_id, committed in from_commits.items():
        versions = history.setdefault(claim_id, [])
        recorded = {(v["decision"], v["words"]) for v in versions}
        for version in committed:
            if (version["decision"], version["words"]) not in recorded:
                versions.append(version)
                appended.append(claim_id)
    for claim_id, entry in entries.items():
        rule = rule_of(entry)
        versions = history.setdefault(claim_id, [])
        if rule is None or (versions and _same(versions[-1], rule)):
            continue
        results, verdict = _recorded(rule, claims[claim_id], cache)
        versions.append(_version(rule, today, None, results is not None, results, verdict))
        appended.append(claim_id)
    history = {claim_id: versions for claim_id, versions in history.items() if versions}
    append_only(before, history)
    if appended:
        write(history, path)
    return sorted(set(appended))


# --- The build's check -------------------------------------------------------------------------

def check(registry_path: Path = registry.REGISTRY, path: Path = HISTORY, root: Path | None = ROOT) -> None:
    """Raise HistoryError, naming the claim and the command to run, when a claim's rule is not the
    last version of its history, or (with ``root``'s git history) when a commit changed a claim's
    rule and the history has no version of it."""
    entries = yaml.load(registry_path.read_text(encoding="utf-8"), Loader=registry.YAML_LOADER)
    history = read(path)
    problems = []
    for claim_id, entry in entries.items():
        rule = rule_of(entry)
        versions = history.get(claim_id) or []
        if rule is not None and not (versions and _same(versions[-1], rule)):
            problems.append(f"{claim_id}: its rule in docs/claims.yml is not the last version in "
                            f"{path.name} (changed without a history entry)")
    if root is not None and git_history_available(root):
        for claim_id, versions in _from_git_cached(root).items():
            recorded = {(v["decision"], v["words"]) for v in history.get(claim_id) or []}
            for version in versions:
                if (version["decision"], version["words"]) not in recorded:
                    problems.append(f"{claim_id}: commit {version['commit'][:10]} ({version['date']}) "
                                    f"changed its rule, but {path.name} has no version of it")
    if problems:
        raise HistoryError("the rules history disagrees with the registry:\n  " + "\n  ".join(problems)
                           + f"\nRun `{COMMAND}` to append the changed rules (never edit earlier entries), "
                             f"then commit docs/claims.yml and {path.name} together.")


# --- What the ledger shows ----------------------------------------------------------------------

@dataclass
class Counts:
    fixed_before: list[str]      # every decision fixed before its numbers were recorded
    written_after: list[str]     # first written when numbers were already recorded, never revised
    revised_after: list[str]     # a decision revised after its numbers were recorded
    no_rule: list[str]           # no case yet (open)


def decisions(versions: list[dict]) -> list[dict]:
    """The versions that changed the decision (a rewording alone is left out), oldest first;
    a rule without any case (an open claim waiting for its experiment) decides nothing."""
    kept = []
    for version in versions:
        if not version.get("cases"):
            continue
        if not kept or kept[-1]["decision"] != version["decision"]:
            kept.append(version)
    return kept


def counts(history: dict[str, list[dict]]) -> Counts:
    result = Counts([], [], [], [])
    for claim_id, versions in history.items():
        deciding = decisions(versions)
        if not deciding:
            result.no_rule.append(claim_id)
        elif any(v["numbers_known"] for v in deciding[1:]):
            result.revised_after.append(claim_id)
        elif deciding[0]["numbers_known"]:
            result.written_after.append(claim_id)
        else:
            result.fixed_before.append(claim_id)
    return result


def verdict_today(version: dict, claim: registry.Claim, numbers: dict[str, float]) -> str | None:
    """What an earlier version's rule gives on today's numbers: each number it reads found by its
    name, or by its key under the module today's rule reads it from; None when one is gone."""
    today = {name.rpartition(".")[2]: name for name in claim.names()}
    def lookup(name: str) -> float:
        if name in numbers:
            return numbers[name]
        moved = today.get(name.rpartition(".")[2])
        if moved in numbers:
            return numbers[moved]
        raise KeyError(name)
    try:
        for case in version.get("cases") or []:
            (verdict, condition), = case.items()
            if registry._evaluate(claim.id, registry._parsed(claim.id, str(condition)), lookup):
                return verdict
    except (KeyError, registry.RegistryError, TypeError, ZeroDivisionError):
        return None
    return version.get("otherwise")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", action="store_true",
                        help="write the history computed from git (only when there is no history yet)")
    parser.add_argument("--check", action="store_true", help="check the history as the build does")
    args = parser.parse_args(argv)
    if args.check:
        try:
            check()
        except HistoryError as error:
            print(error, file=sys.stderr)
            return 1
        print(f"{HISTORY.relative_to(ROOT)} agrees with docs/claims.yml and the git history")
        return 0
    if args.seed:
        if HISTORY.is_file():
            print(f"{HISTORY.relative_to(ROOT)} exists; it is append-only (run without --seed)", file=sys.stderr)
            return 1
        write(from_git())
        print(f"seeded {HISTORY.relative_to(ROOT)} from the git history")
    appended = update()
    print(f"appended a version for {', '.join(appended)}" if appended else "no rule changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
