"""Which translations may be behind their twin, from git history.

    python -m tools.contributing.translation_status

A page is "behind" when its twin (same path in the other language) has commits
after the page's own last commit. Changing both twins in the same commit (or
pull request, when squashed) keeps them in step. A commit that changes one
language only and needs nothing from the other (a typo, a catch-up
translation) says so with the line "Translation: in step" in its message.
Commits that only move whitespace (re-wrapping lines) never put a twin behind.
Outside a git checkout the status is empty.
"""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGS = ("en", "zh")
IN_STEP = "^Translation: in step$"


@dataclass
class Behind:
    page: str            # path inside docs/<lang>/, e.g. "four-steps.md"
    lang: str            # the language that is behind
    twin_lang: str
    commits: list[str]   # "<hash> <subject>" of twin commits not yet reflected


def _git(*args: str) -> str:
    # errors="replace": a word diff of Chinese text cuts characters into bytes
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          encoding="utf-8", errors="replace")
    return done.stdout.strip() if done.returncode == 0 else ""


def _last_commit(path: Path) -> str:
    return _git("log", "-1", "--format=%H", "--", str(path.relative_to(ROOT)))


def _changes_text(commit: str, path: str) -> bool:
    """Whether ``commit`` changes any non-space character of ``path``."""
    diff = _git("show", commit, "--format=", "--word-diff=porcelain",
                "--word-diff-regex=[^[:space:]]", "--", path)
    return any(line[:1] in ("+", "-") and not line.startswith(("+++", "---"))
               for line in diff.splitlines())


def translations_behind() -> list[Behind]:
    if not _git("rev-parse", "--is-inside-work-tree"):
        return []
    behind = []
    for page in sorted(p.relative_to(DOCS / "en").as_posix() for p in (DOCS / "en").rglob("*.md")):
        paths = {lang: DOCS / lang / page for lang in LANGS}
        if not all(path.is_file() for path in paths.values()):
            continue  # a missing twin is the parity test's business
        last = {lang: _last_commit(path) for lang, path in paths.items()}
        if not all(last.values()) or last["en"] == last["zh"]:
            continue
        for lang, twin in (("en", "zh"), ("zh", "en")):
            twin_path = str(paths[twin].relative_to(ROOT))
            newer = _git("log", "--no-merges", "--format=%h %s", "--invert-grep", f"--grep={IN_STEP}",
                         f"{last[lang]}..HEAD", "--", twin_path)
            own_path = str(paths[lang].relative_to(ROOT))
            # a commit that changes both twins keeps them in step
            commits = [c for c in newer.splitlines() if _changes_text(c.split()[0], twin_path)
                       and not _changes_text(c.split()[0], own_path)]
            if commits:
                behind.append(Behind(page, lang, twin, commits))
    return behind


def main() -> int:
    behind = translations_behind()
    for item in behind:
        print(f"translation behind: docs/{item.lang}/{item.page} "
              f"(docs/{item.twin_lang}/{item.page} changed since):")
        for commit in item.commits:
            print(f"    {commit}")
    if not behind:
        print("all translations in step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
