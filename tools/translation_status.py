"""Which translations may be behind their twin, from git history.

    python tools/translation_status.py

A page is "behind" when its twin (same path in the other language) has commits
after the page's own last commit. Changing both twins in the same commit (or
pull request, when squashed) keeps them in step. A commit that changes one
language only and needs nothing from the other (a typo, a catch-up
translation) says so with the line "Translation: in step" in its message.
Outside a git checkout the status is empty.
"""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def _last_commit(path: Path) -> str:
    return _git("log", "-1", "--format=%H", "--", str(path.relative_to(ROOT)))


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
            newer = _git("log", "--format=%h %s", "--invert-grep", f"--grep={IN_STEP}",
                         f"{last[lang]}..HEAD", "--",
                         str(paths[twin].relative_to(ROOT)))
            if newer:
                behind.append(Behind(page, lang, twin, newer.splitlines()))
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
