"""The PDF of each language: every page of the nav in it, an outline to navigate it, and
Chinese text that is real text (a reader can search and copy it), not pictures of glyphs."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import print_pdf  # noqa: E402
from test_site import flatten, nav_of  # noqa: E402

CJK = re.compile(r"[\u4e00-\u9fff]")


def outline_titles(outline) -> list[str]:
    titles = []
    for item in outline:
        if isinstance(item, list):
            titles.extend(outline_titles(item))
        else:
            titles.append(item.title)
    return titles


def page_heading(lang: str, file: str) -> str | None:
    """A page's own title (its first-level heading), as the print page shows it."""
    source = ROOT / "docs" / lang / file
    if not source.is_file():
        return None  # generated pages: the ledger, the glossary
    match = re.search(r"^# (.+)$", source.read_text(encoding="utf-8"), re.M)
    if not match or "$" in match.group(1):
        return None  # math in a heading is typeset: its text differs from the source
    return re.sub(r"\s*\{.*\}$", "", match.group(1)).replace("*", "").replace("`", "").strip()


@pytest.mark.parametrize("lang,config", [("en", "mkdocs.yml"), ("zh", "mkdocs.zh.yml")])
def test_pdf_has_every_page_in_its_outline(built_site, lang, config):
    from pypdf import PdfReader

    reader = PdfReader(print_pdf.pdf_path(built_site, lang))
    files = [file for _, file in flatten(nav_of(config)) if file.endswith(".md")]
    assert len(reader.pages) >= len(files), "fewer printed pages than pages in the nav"
    titles = " | ".join(outline_titles(reader.outline))
    headings = [page_heading(lang, file) for file in files if file != "index.md"]
    missing = [heading for heading in headings if heading and heading not in titles]
    assert missing == [], f"{lang} PDF outline lacks {missing}"


def test_chinese_pdf_text_is_extractable_as_chinese(built_site):
    from pypdf import PdfReader

    reader = PdfReader(print_pdf.pdf_path(built_site, "zh"))
    text = "".join(page.extract_text() for page in reader.pages)
    assert "注意力" in text
    assert len(CJK.findall(text)) > 3000, "the Chinese PDF should carry Chinese text, not outlines"
    # A glyph Noto CJK shares with a Kangxi radical comes back as the radical (力 as ⼒),
    # which a search for 注意力 does not find: the print font must not do that.
    radicals = re.findall(r"[\u2e80-\u2fdf]", text)
    assert radicals == [], f"{len(radicals)} characters extract as radicals, e.g. {radicals[:5]}"


def test_home_page_links_the_pdf_and_the_print_page(built_site):
    for lang, home in (("en", built_site / "index.html"), ("zh", built_site / "zh" / "index.html")):
        html = home.read_text(encoding="utf-8")
        assert f'href="{print_pdf.PDF_NAME[lang]}"' in html
        assert 'href="print_page/"' in html
