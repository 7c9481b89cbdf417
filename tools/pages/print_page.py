"""The print page (mkdocs-print-site's one page with every page of the nav), finished for
reading on paper: a cover, a plain title, and one footer in the page's language.

mkdocs-print-site writes ``print_page/index.html`` at the end of the build; ``finish``
rewrites it in place. The PDFs (tools/pages/print_pdf.py) are printed from this page, so a reader
who prints the page from a browser gets the same cover and footer.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import subprocess
from pathlib import Path

from tools.pages import katex_math

ROOT = Path(__file__).resolve().parents[2]

TEXT = {
    "en": {
        "sources": "The two source explanations this site puts to the test",
        "built": "Made from commit {commit} of {repo} ({date}), the newest that changed the site.",
        "dirty": "{commit} with uncommitted changes",
        "footer": "counter(page) \" / \" counter(pages)",
    },
    "zh": {
        "sources": "本站逐条检验的两篇原文",
        "built": "由 {repo} 的提交 {commit}（{date}）生成，这是最近一次改动网站内容的提交。",
        "dirty": "{commit}（另有未提交的改动）",
        "footer": "\"第 \" counter(page) \" 页，共 \" counter(pages) \" 页\"",
    },
}

# The Sources page's overview of the two essays (docs/<lang>/sources.md), reused on the cover.
SOURCE_ESSAYS = re.compile(r'<div class="source-essays">.*?</div>', re.S)
PRINT_SITE_PAGE = '<div id="print-site-page" class="">'
TITLE = re.compile(r"<title>.*?</title>", re.S)


def source_essays(page_html: str) -> str | None:
    """The overview of the two essays on the Sources page, if the page has one, its links to
    the page's sections pointing where the print page has them (#a becomes #sources-a)."""
    found = SOURCE_ESSAYS.search(page_html)
    return found.group(0).replace('href="#', 'href="#sources-') if found else None


# What the site is not made from: a commit that changes only these leaves the pages and the
# PDFs as they were, and their cover keeps naming the commit before it (so a new commit does
# not print the PDFs again unless it changed what they show).
NOT_THE_SITE = ("tests", ".github", ".ci", "README.md", "CONTRIBUTING.md", "CONTRIBUTING.zh.md",
                "Makefile", "pytest.ini", "tools/README.md", "tools/contributing/*_bench.py")


def site_commit(root: Path = ROOT, today: dt.date | None = None) -> tuple[str, dt.date]:
    """The newest commit that changed what the site is made from (short) and its date; with
    uncommitted changes there, the commit marked ``*`` and today's date. ("", today) outside
    a git checkout."""
    today = today or dt.date.today()
    paths = ["--", ".", *(f":(exclude,glob){path}" for path in NOT_THE_SITE)]
    try:
        newest = subprocess.run(["git", "log", "-1", "--abbrev=10", "--format=%h %cs", *paths], cwd=root,
                                capture_output=True, text=True, check=True).stdout.split()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", *paths],
                                cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "", today  # not a git checkout
    if not newest:
        return "", today
    commit, day = newest
    if status.strip():
        return commit + "*", today
    return commit, dt.date.fromisoformat(day)


def cover(lang: str, site_name: str, description: str, essays: str | None, repo_url: str,
          commit: str, day: dt.date) -> str:
    text = TEXT[lang]
    shown = commit.rstrip("*")
    if commit.endswith("*"):
        shown = text["dirty"].format(commit=shown)
    date = (f"{day.year} 年 {day.month} 月 {day.day} 日" if lang == "zh"
            else f"{day.day} {day.strftime('%B')} {day.year}")
    built = text["built"].format(date=date, commit=f"<code>{html.escape(shown)}</code>",
                                 repo=f'<a href="{html.escape(repo_url)}">{html.escape(repo_url)}</a>')
    sources = (f'<p class="cover-heading">{text["sources"]}</p>\n{essays}\n' if essays else "")
    return (f'<section class="print-cover">\n'
            f'<p class="cover-title">{html.escape(site_name)}</p>\n'
            f'<p class="cover-description">{html.escape(description)}</p>\n'
            f"{sources}"
            f'<p class="cover-build">{built if commit else ""}</p>\n'
            f"</section>\n")


def footer_css(lang: str, site_name: str) -> str:
    """One footer per printed page: the site's name and the page number, in the page's language.
    (It replaces mkdocs-print-site's English "Page N".)"""
    name = site_name.replace("\\", "\\\\").replace('"', '\\"')
    return ("<style>@page { size: A4; margin: 16mm 14mm 18mm;"
            f' @bottom-left {{ content: "{name}"; font-size: 8pt; color: #555; }}'
            f' @bottom-right {{ content: {TEXT[lang]["footer"]}; font-size: 8pt; color: #555; }}'
            " @bottom-center { content: none; } }"
            " @page :first { @bottom-left { content: none; } @bottom-right { content: none; } }"
            "</style>")


FOLD = re.compile(r'<details(?![^>]*\bclass="snippet-listing")(?![^>]*\bopen\b)')


def open_folds(page: str) -> str:
    """On paper nothing unfolds: exercise answers, the claims' cards and the numbers tables
    print open. A whole script stays folded (its download is linked; the cells the page
    shows are in the text)."""
    return FOLD.sub("<details open", page)


# mkdocs-print-site writes a nav section's heading as "<h1>Title<a class='headerlink' …></a>"
# followed by a newline and indentation before "</h1>"; Chromium's PDF outline takes the
# heading's text with that whitespace, so the entry reads "Title " (a trailing space).
HEADING_EDGE_SPACE = re.compile(r"(<h[1-6](?:\s[^>]*)?>)\s+|\s+(</h[1-6]>)")


def trim_headings(page: str) -> str:
    """No whitespace just inside a heading's tags: the PDF outline's titles end with their text."""
    return HEADING_EDGE_SPACE.sub(lambda m: m.group(1) or m.group(2), page)


def finish(path: Path, lang: str, site_name: str, description: str, essays: str | None,
           repo_url: str, commit: str, day: dt.date) -> None:
    """Rewrite the print page at ``path``: title, footer, cover; the search-only math text out."""
    page = path.read_text(encoding="utf-8")
    if PRINT_SITE_PAGE not in page:
        raise ValueError(f"{path}: no {PRINT_SITE_PAGE!r}; has mkdocs-print-site changed?")
    page = katex_math.search_only_parts(page)
    page = open_folds(page)
    page = trim_headings(page)
    page = TITLE.sub(f"<title>{html.escape(site_name)}</title>", page, count=1)
    page = page.replace("</head>", footer_css(lang, site_name) + "</head>", 1)
    page = page.replace(PRINT_SITE_PAGE, PRINT_SITE_PAGE + "\n" + cover(
        lang, site_name, description, essays, repo_url, commit, day), 1)
    path.write_text(page, encoding="utf-8")


# mkdocs-print-site 2.9 renames the ids of headings, list items and footnote marks on each
# page it combines (urls.update_anchor_ids) with a regex that, on a long line with no id
# after a "<", scans to the line's end from every "<": 17 s for the ledger alone. The same
# regex gives the same matches on each line cut where the last possible match ends (no match
# crosses a newline; one that uses the id=" at i ends at the first ">" after the quote that
# closes it), so this is the plugin's function, output for output (tests/test_print_page.py
# compares them), in milliseconds.
_ANCHOR = re.compile(r"<([^\s]+).*?id=\"([^\"]*?)\".*?>", flags=re.IGNORECASE)
_ID_START = re.compile(r'(?=id=")', flags=re.IGNORECASE)
_ID_ACROSS_LINES = re.compile(r'id="[^"]*\n', flags=re.IGNORECASE)
_RENAMED_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6", "sup", "li")


def update_anchor_ids(page_html: str, page_key: str) -> str:
    if _ID_ACROSS_LINES.search(page_html):  # an id value spanning lines: the plain scan
        matches = list(_ANCHOR.finditer(page_html))
    else:
        matches = []
        for line in page_html.split("\n"):
            cut = 0
            for start in _ID_START.finditer(line):
                quote = line.find('"', start.start() + 4)
                close = line.find(">", quote + 1) if quote >= 0 else -1
                cut = max(cut, close + 1)
            if cut:
                matches.extend(_ANCHOR.finditer(line[:cut]))
    for match in matches:
        if match.group(1) in _RENAMED_TAGS:
            renamed = match.group().replace(match.group(2), f"{page_key}-{match.group(2)}")
            page_html = page_html.replace(match.group(), renamed)
    return page_html

