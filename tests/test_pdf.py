"""The PDF of each language: every page of the nav in it, an outline to navigate it, and
Chinese text that is real text (a reader can search and copy it), not pictures of glyphs."""

import hashlib
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import remembered  # noqa: E402
from tools.pages import print_page, print_pdf  # noqa: E402
from test_site import ConfigLoader, flatten, nav_of  # noqa: E402

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
    read = pdf(built_site, lang)
    files = [file for _, file in flatten(nav_of(config)) if file.endswith(".md")]
    assert len(read["texts"]) >= len(files), "fewer printed pages than pages in the nav"
    titles = " | ".join(read["outline"])
    headings = [page_heading(lang, file) for file in files if file != "index.md"]
    missing = [heading for heading in headings if heading and heading not in titles]
    assert missing == [], f"{lang} PDF outline lacks {missing}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pdf_outline_titles_end_with_their_text(built_site, lang):
    titles = pdf(built_site, lang)["outline"]
    # a space at either end, or two in a row where a formula was dropped (the outline has no math)
    padded = [title for title in titles if title != title.strip() or "  " in title]
    assert len(titles) > 30 and padded == [], f"{len(padded)} outline titles with stray spaces: {padded[:5]}"


def test_chinese_pdf_text_is_extractable_as_chinese(built_site):
    text = "".join(pdf(built_site, "zh")["texts"])
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


# --- what a reader of the PDFs sees (issue 22) -----------------------------------------------

# TeX a reader should never see: a command (\sqrt, \text), a math delimiter \( \) \[ \], or a
# braced script (^{…}, _{…}). KaTeX's output carries none of these in its text.
RAW_TEX = re.compile(r"\\[a-zA-Z]{2,}|\\[()\[\]]|[_^]\{")
FOOTER = {"en": re.compile(r"(\d+) / (\d+)"), "zh": re.compile(r"第 (\d+) 页，共 (\d+) 页")}
CONTENTS_TITLE = {"en": "Contents", "zh": "目录"}


def raw_tex(text: str) -> list[str]:
    return [text[max(0, m.start() - 30):m.end() + 20] for m in RAW_TEX.finditer(text)]


@pytest.mark.parametrize("text", [
    r"why we divide by \(\sqrt{d_k}\) on", r"\[ \text{Attention}(Q, K, V) = … \]",
    r"divided by 8\sqrt 88", r"e^{\text{gap}}", r"the \frac{1}{2} norm", r"x_{ij}",
])
def test_the_raw_tex_check_flags_tex(text):
    assert raw_tex(text), text


@pytest.mark.parametrize("text", [
    "why we divide by √dₖ", "Attention(Q,K,V) = softmax(QKᵀ/√dₖ)V", "C:\\ no",
    "a path snippets/real_model/weights.py", "x_1 and x^2",
])
def test_the_raw_tex_check_passes_typeset_math(text):
    assert raw_tex(text) == [], text




def page_text(page) -> tuple[str, str]:
    """A PDF page's text, and its prose: its text but the code (set in a monospaced font:
    f"W_{name}" is Python). One extraction gives both (pypdf's is the slow part)."""
    parts = []

    def visit(text, cm, tm, font, size):
        if "Mono" not in str((font or {}).get("/BaseFont", "")):
            parts.append(text)
    return page.extract_text(visitor_text=visit), "".join(parts)


def read_pdf(pdf: Path, lang: str) -> dict:
    """What the tests read from a PDF, in one pass of pypdf: each page's text, its prose
    (its text but the code), the embedded fonts of the first 40 pages, the title, the
    outline and the contents' entries."""
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    fonts = set()
    for page in reader.pages[:40]:
        for font in (page.get("/Resources", {}).get("/Font") or {}).values():
            descriptor = font.get_object()
            for descendant in descriptor.get("/DescendantFonts", []):
                embedded = descendant.get_object().get("/FontDescriptor", {})
                if any(key in embedded for key in ("/FontFile", "/FontFile2", "/FontFile3")):
                    fonts.add(str(descriptor.get("/BaseFont")).split("+")[-1])
    texts, prose = map(list, zip(*(page_text(page) for page in reader.pages)))
    try:
        contents = contents_entries(reader, texts, lang)
    except StopIteration:
        contents = None  # no contents page: the contents test says so
    return {"texts": texts, "prose": prose,
            "fonts": sorted(fonts), "title": reader.metadata.title,
            "outline": outline_titles(reader.outline), "contents": contents}


def pdf(built_site, lang) -> dict:
    """``read_pdf`` of the language's PDF, remembered under the PDF's bytes (tests/remembered.py)."""
    path = print_pdf.pdf_path(built_site, lang)
    return remembered.remember("pdf", lang + hashlib.sha256(path.read_bytes()).hexdigest(),
                               lambda: read_pdf(path, lang), __file__)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_raw_tex_in_the_pdf_text_layer(built_site, lang):
    prose = pdf(built_site, lang)["prose"]
    found = [f"p. {number}: {fragment!r}" for number, text in enumerate(prose, 1)
             for fragment in raw_tex(text)]
    assert sum(len(text) for text in prose[:3]) > 500  # the prose is read
    assert found == [], f"{len(found)} raw TeX fragments in the {lang} PDF: {found[:5]}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pdf_math_is_set_in_katex_fonts_embedded(built_site, lang):
    fonts = set(pdf(built_site, lang)["fonts"])
    assert {"KaTeX_Main-Regular", "KaTeX_Math-Italic"} <= fonts, sorted(fonts)


@pytest.mark.parametrize("lang,config", [("en", "mkdocs.yml"), ("zh", "mkdocs.zh.yml")])
def test_the_pdf_title_is_the_site_name(built_site, lang, config):
    name = yaml.load((ROOT / config).read_text(encoding="utf-8"), Loader=ConfigLoader)["site_name"]
    title = pdf(built_site, lang)["title"]
    assert title == name, f"PDF title {title!r}, site name {name!r}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cover_names_the_sources_and_the_build(built_site, lang):
    cover = pdf(built_site, lang)["texts"][0]
    labels = ("Source A", "Source B") if lang == "en" else ("原文 A", "原文 B")
    assert all(label in cover for label in labels), cover[:300]
    assert "微观数学机制" in cover, "source A's own title is missing from the cover"
    commit = print_page.site_commit()[0].rstrip("*")  # the newest that changed the site
    assert commit and commit in cover, f"the cover does not name commit {commit}"
    assert not FOOTER[lang].search(cover), "the cover carries a page number"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_print_page_and_pdf_show_answers_claims_and_numbers_unfolded(built_site, lang):
    page = ((built_site if lang == "en" else built_site / "zh") / "print_page" / "index.html").read_text()
    folds = re.findall(r"<details[^>]*>", page)
    closed = [f for f in folds if not re.search(r"\bopen\b", f) and "snippet-listing" not in f]
    assert folds and closed == [], closed[:3]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_after_the_cover_has_one_footer_in_its_language(built_site, lang):
    texts = pdf(built_site, lang)["texts"]
    wrong = []
    for number, text in enumerate(texts[1:], 2):
        footers = [found for found in FOOTER[lang].findall(text) if found[1] == str(len(texts))]
        if footers != [(str(number), str(len(texts)))] or re.search(r"\bPage \d", text):
            wrong.append(f"p. {number}: {footers}")
    assert wrong == [], wrong[:5]


def contents_entries(reader, texts, lang) -> list[tuple[int, int]]:
    """(printed number, page the entry's link leads to) for each entry of the contents: the
    links in order on the contents' pages, the numbers in order in their text."""
    first = next(i for i, text in enumerate(texts)
                 if CONTENTS_TITLE[lang] in text.splitlines()[:3] or text.startswith(CONTENTS_TITLE[lang]))
    targets, numbers, index = [], [], first
    while not targets or index + 1 < min(targets):  # up to the page the first entry starts on
        page = reader.pages[index]
        links = sorted((annot.get_object() for annot in page.get("/Annots", [])
                        if annot.get_object().get("/Dest")), key=lambda a: -float(a["/Rect"][1]))
        targets += [reader.get_destination_page_number(reader.named_destinations[link["/Dest"]]) + 1
                    for link in links]
        text = FOOTER[lang].sub("", texts[index])
        numbers += [int(n) for n in re.findall(r"^\s*(\d+)\s*$", text, re.M)]
        index += 1
    return [numbers, targets]


@pytest.mark.parametrize("lang,config", [("en", "mkdocs.yml"), ("zh", "mkdocs.zh.yml")])
def test_the_contents_give_the_page_each_entry_starts_on(built_site, lang, config):
    contents = pdf(built_site, lang)["contents"]
    assert contents is not None, f"no page of the {lang} PDF starts with {CONTENTS_TITLE[lang]!r}"
    numbers, targets = contents
    assert len(numbers) == len(targets), f"{len(numbers)} page numbers for {len(targets)} entries"
    entries = list(zip(numbers, targets))
    assert len(entries) >= len([f for _, f in flatten(nav_of(config)) if f.endswith(".md")])
    wrong = [(number, target) for number, target in entries if number != target]
    assert wrong == [], f"printed page ≠ page the entry leads to: {wrong[:5]}"


def test_a_pdf_is_printed_again_only_when_what_it_is_printed_from_changed(tmp_path, monkeypatch):
    site = tmp_path / "site"
    for lang, base in (("en", site), ("zh", site / "zh")):
        (base / "print_page").mkdir(parents=True)
        (base / "print_page" / "index.html").write_text(
            f'<html lang="{lang}"><img src="../figures/f.svg"><a href="#top">x</a></html>')
    (site / "figures").mkdir()
    (site / "figures" / "f.svg").write_text("<svg>one</svg>")
    (site / "assets").mkdir()
    (site / "assets" / "font.woff2").write_bytes(b"glyphs")
    (site / "unrelated.html").write_text("a page the PDF does not show")
    key = print_pdf.print_key(site, "en")
    assert key != print_pdf.print_key(site, "zh")

    (site / "unrelated.html").write_text("changed")
    assert print_pdf.print_key(site, "en") == key
    (site / "figures" / "f.svg").write_text("<svg>two</svg>")  # a figure the print page shows
    assert print_pdf.print_key(site, "en") != key
    key = print_pdf.print_key(site, "en")
    (site / "assets" / "font.woff2").write_bytes(b"other glyphs")
    assert print_pdf.print_key(site, "en") != key

    # With both printings in the cache, nothing is printed (no Chromium is needed) and the
    # cached bytes are the site's PDFs.
    monkeypatch.setattr(print_pdf, "CACHE", tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    for lang in ("en", "zh"):
        (tmp_path / "cache" / f"{lang}-{print_pdf.print_key(site, lang)}.pdf").write_bytes(lang.encode())
    monkeypatch.setattr(print_pdf, "CHROMIUM", str(tmp_path / "no-chromium"))
    written = print_pdf.print_site(site)
    assert [path.read_bytes() for path in written] == [b"en", b"zh"]
    (site / "zh" / "print_page" / "index.html").write_text("<html>a changed page</html>")
    with pytest.raises(SystemExit, match="Chromium is missing"):  # zh must be printed again
        print_pdf.print_site(site)


# --- one printing of the whole document (issue 35) -------------------------------------------
# The contents' page numbers come from the one printing; only the contents' pages are printed
# again, with the numbers in, and put in place of the first printing's (print_pdf.splice_pages).

def small_pdf(pages) -> bytes:
    """A PDF as Chromium writes one, in miniature: per page (text, links, tag), the text in
    Helvetica (marked as tagged content of that tag unless None), links to named destinations."""
    import io

    from pypdf import PdfWriter
    from pypdf.generic import (ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject,
                               NameObject)

    def pdf_dict(**entries):
        return DictionaryObject({NameObject("/" + key): value for key, value in entries.items()})

    writer = PdfWriter()
    font = writer._add_object(pdf_dict(Type=NameObject("/Font"), Subtype=NameObject("/Type1"),
                                       BaseFont=NameObject("/Helvetica")))
    for text, links, tag in pages:
        page = writer.add_blank_page(595, 842)
        shown = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text.encode()
        if tag:
            shown = b"/%s <</MCID 0 >>BDC %s EMC" % (tag.encode(), shown)
        content = DecodedStreamObject()
        content.set_data(shown)
        page[NameObject("/Contents")] = writer._add_object(content)
        page[NameObject("/Resources")] = pdf_dict(Font=pdf_dict(F1=font))
        page[NameObject("/Annots")] = ArrayObject(writer._add_object(pdf_dict(
            Type=NameObject("/Annot"), Subtype=NameObject("/Link"), Dest=NameObject("/" + dest),
            Rect=ArrayObject(FloatObject(x) for x in rect))) for dest, rect in links)
    written = io.BytesIO()
    writer.write(written)
    return written.getvalue()


ENTRIES = [("a", (72, 700, 500, 712)), ("b", (72, 680, 500, 692))]


def test_the_contents_pages_are_the_pages_that_link_its_entries_in_order():
    pdf = small_pdf([("Cover", [("b", (1, 2, 3, 4))], None), ("Contents", ENTRIES[:1], None),
                     ("Contents, on", ENTRIES[1:], None), ("A", [("a", (1, 2, 3, 4))], None)])
    assert print_pdf.contents_pages(pdf, ["a", "b"]) == (1, 2)
    with pytest.raises(RuntimeError, match="not the entries"):
        print_pdf.contents_pages(pdf, ["a", "c"])
    with pytest.raises(RuntimeError, match="no page links"):
        print_pdf.contents_pages(pdf, ["c"])


def test_splicing_the_reprinted_contents_changes_only_the_contents_pages():
    import io
    import logging

    from pypdf import PdfReader

    printed = small_pdf([("Cover", [], "P"), ("Contents 888", ENTRIES, "P"), ("Chapter A", [], "P")])
    reprinted = small_pdf([("Contents 3", ENTRIES, "P")])
    spliced = print_pdf.splice_pages(printed, 1, reprinted)
    assert spliced.startswith(printed)  # an update appended: every byte printed stays
    logger = logging.getLogger("pypdf")
    warnings = []
    handler = logging.Handler()
    handler.emit = warnings.append
    logger.addHandler(handler)
    try:
        reader = PdfReader(io.BytesIO(spliced), strict=True)
        texts = [page.extract_text() for page in reader.pages]
    finally:
        logger.removeHandler(handler)
    assert texts == ["Cover", "Contents 3", "Chapter A"]
    assert warnings == [], [record.getMessage() for record in warnings]
    before = PdfReader(io.BytesIO(printed))
    # the page objects (what the outline, the links and the tags refer to) and their links stay
    assert [page.indirect_reference.idnum for page in reader.pages] == \
           [page.indirect_reference.idnum for page in before.pages]
    assert [annot.idnum for annot in reader.pages[1]["/Annots"]] == \
           [annot.idnum for annot in before.pages[1]["/Annots"]]


@pytest.mark.parametrize("reprint,refusal", [
    ([("Contents 3", [ENTRIES[0], ("b", (72, 660, 500, 672))], "P")], "links moved"),
    ([("Contents 3", ENTRIES, "Span")], "tagged content differs"),
    ([("Contents 3", ENTRIES, None)], "tagged content differs"),
])
def test_a_reprinted_contents_page_laid_out_otherwise_is_refused(reprint, refusal):
    printed = small_pdf([("Cover", [], "P"), ("Contents 888", ENTRIES, "P"), ("Chapter A", [], "P")])
    with pytest.raises(RuntimeError, match=refusal):
        print_pdf.splice_pages(printed, 1, small_pdf(reprint))


def test_a_print_page_is_printed_once_and_its_contents_numbered(tmp_path, monkeypatch):
    """Chromium prints the whole document once and the contents' pages again; each entry's
    printed number is the page its link leads to, on contents that take two pages."""
    from playwright.async_api import Page
    from pypdf import PdfReader

    site = tmp_path / "site"
    (site / "print_page").mkdir(parents=True)
    entries = "".join(f'<a class="md-nav__link" href="#s{i}">Section {i}</a>' for i in range(60))
    sections = "".join(f'<h2 id="s{i}">Section {i}</h2>' + "<p>Text.</p>" * (i % 7 * 20)
                       for i in range(60))
    (site / "print_page" / "index.html").write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><style>"
        "@page { size: A4; margin: 20mm; @bottom-right { content: counter(page) ' / ' counter(pages); } }"
        "#print-page-toc .md-nav__link { display: flex; margin-top: 0.4em; }"
        "#print-page-toc .toc-page { margin-left: auto; min-width: 3em; text-align: right; }"
        "#print-page-toc + h2, h2:nth-of-type(5n) { break-before: page; }"
        "</style></head><body><div id='print-page-toc'><p>Contents</p>"
        f"{entries}</div>{sections}</body></html>", encoding="utf-8")
    monkeypatch.setattr(print_pdf, "CACHE", tmp_path / "cache")
    printings = []
    pdf = Page.pdf

    async def counted(self, **options):
        printings.append(options.get("page_ranges", "all"))
        return await pdf(self, **options)
    monkeypatch.setattr(Page, "pdf", counted)
    # in a thread of its own: a browser test before it in this process may hold an event loop
    with ThreadPoolExecutor(max_workers=1) as thread:
        [path] = thread.submit(print_pdf.print_site, site, ["en"]).result()

    texts = [page.extract_text() for page in PdfReader(path).pages]
    numbers = [int(n) for n in re.findall(r"^Section \d+ (\d+)$", texts[0] + "\n" + texts[1], re.M)]
    pages = print_pdf.anchor_pages(path.read_bytes())
    assert numbers == [pages[f"s{i}"] for i in range(60)]
    assert all(f"Section {i}" in texts[pages[f"s{i}"] - 1] for i in range(60))
    assert len(set(numbers)) > 30  # the sections start on many different pages
    first, last = print_pdf.contents_pages(path.read_bytes(), [f"s{i}" for i in range(60)])
    assert (first, last) == (0, 1), "the contents should take two pages here"
    assert printings == ["all", "1-2"]
    assert [FOOTER["en"].search(text).groups() for text in texts[:2]] == \
           [("1", str(len(texts))), ("2", str(len(texts)))]
