"""Wrap unlinked author–year citations in links to their entry on the references page.

    .venv/bin/python -m tools.contributing.link_citations   # rewrite docs/en and docs/zh in place

`tests/test_citations.py` names every citation that has no link; this fixes the ordinary cases
("Michel et al. (2019)" → "[Michel et al. (2019)](../references.md#michel2019)"), using the
test's own pattern, and leaves headings and code alone (a macro call names no paper). The anchor is the first
author's surname and the year; a paper without an entry on the references page still fails the
test, which is the point: add the entry first.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import test_citations as citations  # noqa: E402

SKIP = (citations.FENCED_CODE, citations.HTML_COMMENT, citations.INLINE_CODE, citations.HEADING, citations.REFERENCE_LINK)


def link_citations(page: Path, lang: str) -> int:
    text = page.read_text(encoding="utf-8")
    prefix = "../" * (len(page.relative_to(citations.DOCS / lang).parts) - 1)
    skipped = [m.span() for pattern in SKIP for m in pattern.finditer(text)]
    pieces, last, count = [], 0, 0
    for match in citations.CITATION.finditer(text):
        label = match.group(0).strip()
        start = match.start() + match.group(0).index(label)
        if any(a <= start < b for a, b in skipped):
            continue
        author = citations.ascii_lower(re.search(citations.NAME, label).group(0))
        year = re.search(citations.YEAR, label).group(0)
        pieces += [text[last:start], f"[{label}]({prefix}references.md#{author}{year})"]
        last, count = match.end(), count + 1
    if count:
        page.write_text("".join(pieces) + text[last:], encoding="utf-8")
    return count


if __name__ == "__main__":
    for lang in citations.LANGS:
        for page in citations.pages(lang):
            if n := link_citations(page, lang):
                print(f"{page.relative_to(ROOT)}: {n} citation(s) linked")
