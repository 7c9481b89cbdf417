"""Per page: the date it last changed (from git, in the page's language) and where to edit it.

One ``git log`` call per build gives every file's last commit date. A page built from
a generated source (the ledger, the glossary, a notebook view) gets the date and the edit
link of the file it is made from.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Generated pages, and the file in the repository they are made from.
MADE_FROM = {"claims.md": "docs/claims.yml", "glossary.md": "docs/glossary.yml"}
LABEL = {"en": "Last changed {date}", "zh": "最后修改：{date}"}


def last_changed() -> dict[str, dt.date]:
    """Every committed file's last commit date (the newest commit that touched it)."""
    try:
        log = subprocess.run(["git", "log", "--format=%x00%cs", "--name-only", "--", "docs", "snippets"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}  # not a git checkout (e.g. a source archive): no dates
    dates: dict[str, dt.date] = {}
    for entry in log.split("\0")[1:]:
        day, *files = entry.strip().splitlines()
        for file in files:
            dates.setdefault(file, dt.date.fromisoformat(day))
    return dates


def repository_file(src_uri: str, lang: str) -> str:
    """The file in the repository a page is made from."""
    if src_uri in MADE_FROM:
        return MADE_FROM[src_uri]
    if src_uri.startswith("notebooks/") and src_uri.endswith(".ipynb"):
        return "snippets/" + src_uri.removeprefix("notebooks/").removesuffix(".ipynb") + ".py"
    return f"docs/{lang}/{src_uri}"


def formatted(day: dt.date, lang: str) -> str:
    text = (f"{day.year} 年 {day.month} 月 {day.day} 日" if lang == "zh"
            else f"{day.day} {day.strftime('%B')} {day.year}")
    return LABEL[lang].format(date=text)


def edit_url(repo_url: str, src_uri: str, lang: str, branch: str = "main") -> str:
    return f"{repo_url.rstrip('/')}/edit/{branch}/{repository_file(src_uri, lang)}"
