"""Print each language's print page (mkdocs-print-site) to a PDF with Debian's Chromium:
a cover, the contents with the page each entry starts on, every page in nav order, math as
KaTeX typesets it (its fonts embedded), figures as vectors, Chinese glyphs embedded, a footer
in the document's language (tools/pages/print_page.py) and a document outline from the headings.

Chromium cannot print a link's target page (CSS target-counter), so the document is printed
once with space reserved for the contents' page numbers, and the numbers are read from that
printing: where each entry's anchor landed (the PDF's named destinations). The numbers then
go in and only the contents' pages are printed again (page_ranges: a few seconds, not a
second printing of the whole document), checked to hold every link and every piece of
tagged content where the first printing had them, and put in place of the first printing's
contents pages by an incremental update of the PDF (splice_pages): every other page, the
outline and the links stay the bytes Chromium wrote.

    python -m tools.pages.print_pdf site/   # writes site/attention-en.pdf, site/zh/attention-zh.pdf
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import os
import re
import shutil
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PDF_NAME = {"en": "attention-en.pdf", "zh": "attention-zh.pdf"}
CACHE = Path(__file__).resolve().parents[2] / ".cache" / "pdf"
PRINT_TIMEOUT_MS = 15 * 60 * 1000  # a bound for each step of printing (see _print)
PRINT_FONT_ZH = '"WenQuanYi Micro Hei"'  # Debian package fonts-wqy-microhei
# The contents' page numbers: one span per entry, right-aligned in a fixed width (explainer.css).
SET_TOC_PAGES = """(pages) => {
    for (const link of document.querySelectorAll('#print-page-toc a[href^="#"]')) {
        let number = link.querySelector(".toc-page");
        if (!number) {
            number = document.createElement("span");
            number.className = "toc-page";
            link.append(number);
        }
        number.textContent = pages[link.hash.slice(1)] ?? "";
    }
    return document.querySelectorAll("#print-page-toc .toc-page").length;
}"""
TOC_TARGETS = """() => [...document.querySelectorAll('#print-page-toc a[href^="#"]')]
    .map(link => link.hash.slice(1))"""


def anchor_pages(pdf: bytes) -> dict[str, int]:
    """Each named destination (an anchor a link points at) and its page, counted from 1."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    return {name.lstrip("/"): reader.get_destination_page_number(destination) + 1
            for name, destination in reader.named_destinations.items()}


def _links(page) -> list[tuple[str, tuple[float, ...]]]:
    """A page's links within the document: where each leads and where it sits."""
    return [(str(link["/Dest"]), tuple(round(float(x), 2) for x in link["/Rect"]))
            for link in (annot.get_object() for annot in page.get("/Annots", []))
            if "/Dest" in link]


def contents_pages(pdf: bytes, targets: list[str]) -> tuple[int, int]:
    """The first and the last page (counted from 0) of the contents: from the page that holds
    the link to the first entry, the pages whose links are the entries, in order."""
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(pdf)).pages
    first = next((index for index, page in enumerate(pages)
                  if [dest for dest, _ in _links(page)][:1] == ["/" + targets[0]]), None)
    if first is None:
        raise RuntimeError(f"no page links the contents' first entry {targets[0]!r}")
    links, last = [], first
    for last in range(first, len(pages)):
        links += [dest.lstrip("/") for dest, _ in _links(pages[last])]
        if len(links) >= len(targets):
            break
    if links != targets:
        raise RuntimeError(f"the contents' pages link {links[:5]}…, not the entries {targets[:5]}…")
    return first, last


MARKED_CONTENT = re.compile(rb"/(\w+)\s*<<\s*/MCID\s+(\d+)\s*>>\s*BDC")


def splice_pages(pdf: bytes, first: int, reprinted: bytes) -> bytes:
    """``pdf`` with its pages from ``first`` on showing the pages of ``reprinted`` instead
    (their content and its resources: fonts, images), as an incremental update (objects
    appended, a new cross-reference section): the page objects stay, and with them the
    links, the outline's and the tags' references to them. Each reprinted page must hold
    the same links at the same places and the same tagged content as the page it replaces."""
    from pypdf import PdfReader
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject, NumberObject

    reader, new = PdfReader(io.BytesIO(pdf)), PdfReader(io.BytesIO(reprinted))
    # Chromium (Skia) ends its PDFs with a cross-reference table, a trailer and where the table starts
    tail = re.search(rb"\ntrailer\s*<<.*startxref\s+(\d+)\s+%%EOF\s*$", pdf[-4096:], re.S)
    if not tail:
        raise RuntimeError("the PDF does not end with a trailer: cannot update it")
    size = int(reader.trailer["/Size"])
    numbers: dict[int, int] = {}  # reprinted's object number -> the update's
    objects: dict[int, object] = {}

    def adopt(value):
        """``value`` from ``reprinted`` with what it refers to numbered after ``pdf``'s objects."""
        if isinstance(value, IndirectObject):
            if value.idnum not in numbers:
                numbers[value.idnum] = size + len(numbers)
                target = value.get_object()
                if isinstance(target, DictionaryObject) and target.get("/Type") in ("/Page", "/Pages"):
                    raise RuntimeError("a page's content refers to a page")
                objects[numbers[value.idnum]] = adopt(target)
            return IndirectObject(numbers[value.idnum], 0, None)
        if isinstance(value, DictionaryObject):  # streams too: their data stays as it is
            for key in list(value):
                value[key] = adopt(value.raw_get(key))
        elif isinstance(value, ArrayObject):
            value[:] = [adopt(item) for item in value]
        return value

    for offset, page in enumerate(new.pages):
        old = reader.pages[first + offset]
        if _links(page) != _links(old):
            raise RuntimeError(f"page {first + offset + 1}: the reprinted page's links moved")
        if MARKED_CONTENT.findall(page.get_contents().get_data()) != \
                MARKED_CONTENT.findall(old.get_contents().get_data()):
            raise RuntimeError(f"page {first + offset + 1}: the reprinted page's tagged content differs")
        for key in ("/Resources", "/Contents"):
            old[NameObject(key)] = adopt(page.raw_get(key))
        objects[old.indirect_reference.idnum] = old

    update = bytearray(pdf if pdf.endswith(b"\n") else pdf + b"\n")
    offsets = {}
    for number, value in sorted(objects.items()):
        offsets[number] = len(update)
        written = io.BytesIO()
        value.write_to_stream(written)
        update += b"%d 0 obj\n%s\nendobj\n" % (number, written.getvalue())
    xref = len(update)
    # object 0 (the head of the free list, as the first table has it) first: a table that does
    # not start at 0 reads to pypdf as one numbered wrongly, which it then checks object by object
    update += b"xref\n0 1\n0000000000 65535 f \n"
    update += b"".join(b"%d 1\n%010d 00000 n \n" % item for item in sorted(offsets.items()))
    trailer = DictionaryObject({key: reader.trailer.raw_get(key) for key in reader.trailer if key != "/Prev"})
    trailer[NameObject("/Size")] = NumberObject(size + len(numbers))
    trailer[NameObject("/Prev")] = NumberObject(int(tail.group(1)))
    written = io.BytesIO()
    trailer.write_to_stream(written)
    update += b"trailer\n%s\nstartxref\n%d\n%%%%EOF\n" % (written.getvalue(), xref)
    return bytes(update)


def pdf_path(site_dir: Path, lang: str) -> Path:
    return (site_dir if lang == "en" else site_dir / "zh") / PDF_NAME[lang]


def print_key(site_dir: Path, lang: str) -> str:
    """What a PDF is printed from: the print page, every local file it links (figures,
    stylesheets, scripts), the site's assets (fonts), SITE_URL and this script. A PDF whose
    key is unchanged is not printed again."""
    page = (site_dir if lang == "en" else site_dir / "zh") / "print_page" / "index.html"
    html = page.read_bytes()
    digest = hashlib.sha256(Path(__file__).read_bytes() + html)
    digest.update(os.environ.get("SITE_URL", "").encode())
    linked = {(page.parent / ref.decode()).resolve()
              for ref in re.findall(rb'(?:src|href)="([^"#?:]+)', html)}
    assets = set((site_dir / "assets").rglob("*"))
    for path in sorted(p for p in linked | assets if p.is_file()):
        digest.update(path.relative_to(site_dir.resolve()).as_posix().encode()
                      if path.is_relative_to(site_dir.resolve()) else path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def print_site(site_dir: Path, langs=tuple(PDF_NAME)) -> list[Path]:
    """The languages' PDFs (both unless ``langs``), printed side by side (each page has its own
    renderer process); a PDF printed before from the same inputs (print_key) is copied from the cache."""
    site_dir = site_dir.resolve()
    cached = {lang: CACHE / f"{lang}-{print_key(site_dir, lang)}.pdf" for lang in langs}
    missing = [lang for lang, path in cached.items() if not path.is_file()]
    if missing:
        if not Path(CHROMIUM).exists():
            raise SystemExit("Chromium is missing: run `make setup` (Debian package chromium)")
        CACHE.mkdir(parents=True, exist_ok=True)
        for lang, printed in zip(missing, asyncio.run(_print_all(site_dir, missing))):
            shutil.copyfile(printed, cached[lang])
            # the four latest printings per language are kept (a build of the pages without
            # running the snippets, then a normal one, each find theirs)
            for old in sorted(CACHE.glob(f"{lang}-*.pdf"), key=lambda p: p.stat().st_mtime)[:-4]:
                old.unlink()
    for lang, path in cached.items():
        if lang not in missing:
            shutil.copyfile(path, pdf_path(site_dir, lang))
    return [pdf_path(site_dir, lang) for lang in langs]



async def _print_all(site_dir: Path, langs: list[str]) -> list[Path]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        written = await asyncio.gather(*(_print(browser, site_dir, lang) for lang in langs))
        await browser.close()
    return list(written)


async def _print(browser, site_dir: Path, lang: str) -> Path:
    page = await browser.new_page()  # one page per language (a page reused for zh printed 3x slower)
    # Playwright's default 30 s is a timing: on a busy machine (load 15-20) loading the print
    # page alone took longer and the build failed. A generous bound still stops a hang.
    page.set_default_timeout(PRINT_TIMEOUT_MS)

    async def only_files(route):
        # Only the site's own files: a request elsewhere would mean the PDF depends on a network.
        await (route.continue_() if route.request.url.startswith("file://") else route.abort())

    await page.route("**/*", only_files)
    source = (site_dir if lang == "en" else site_dir / "zh") / "print_page" / "index.html"
    await page.goto(source.resolve().as_uri(), wait_until="load")
    # Figures are lazy-loaded on screen; in print every one must be there.
    await page.evaluate("""() => Promise.all([...document.images].map(img => {
        img.loading = "eager";
        return img.complete ? null : new Promise(done => { img.onload = img.onerror = done; });
    }))""")
    # Links into the site would point at this machine's files: make them point at the
    # published site when its URL is known (SITE_URL), otherwise drop them.
    await page.evaluate("""([root, siteUrl]) => {
        for (const link of document.querySelectorAll("a[href]")) {
            const url = new URL(link.href, document.baseURI);
            if (url.protocol !== "file:") continue;           // other sites stay
            if (url.pathname === location.pathname && url.hash) {
                link.setAttribute("href", url.hash);           // within the PDF
            } else if (siteUrl && url.pathname.startsWith(root)) {
                const path = url.pathname.slice(root.length).replace(/index\\.html$/, "");
                link.setAttribute("href", siteUrl + path + url.hash);
            } else {
                link.removeAttribute("href");
            }
        }
    }""", [site_dir.resolve().as_uri()[len("file://"):].rstrip("/") + "/",
           os.environ.get("SITE_URL", "")])
    if lang == "zh":
        # Noto Sans CJK shares glyphs between ideographs and Kangxi radicals, and
        # Chromium's PDF then maps 力 back to the radical ⼒: search and copy break.
        # WenQuanYi Micro Hei has no radicals (and embeds as TrueType, not Type 3).
        await page.add_style_tag(content=(
            f"html, body, .md-typeset {{ font-family: {PRINT_FONT_ZH}, sans-serif !important; }}"
            f"code, pre, kbd, samp {{ font-family: 'DejaVu Sans Mono', {PRINT_FONT_ZH}, "
            "monospace !important; }"
            # KaTeX sets Chinese inside formulas (v(\\text{汽车})) in a fallback font of its own.
            f".katex .cjk_fallback {{ font-family: {PRINT_FONT_ZH} !important; }}"))
    await page.emulate_media(media="print")
    targets = await page.evaluate(TOC_TARGETS)
    # Page size, margins and footer come from the print page's own @page rules.
    options = dict(print_background=True, outline=True, tagged=True, prefer_css_page_size=True)
    await page.evaluate(SET_TOC_PAGES, {target: "888" for target in targets})  # reserve the space
    pdf = await page.pdf(**options)
    pages = anchor_pages(pdf)
    missing = [target for target in targets if target not in pages]
    if missing:
        raise RuntimeError(f"{lang} PDF: no destination for contents entries {missing[:5]}")
    if targets:  # the contents' pages again, with the numbers in
        first, last = contents_pages(pdf, targets)
        await page.evaluate(SET_TOC_PAGES, {target: str(pages[target]) for target in targets})
        numbered = await page.pdf(page_ranges=f"{first + 1}-{last + 1}", **options)
        pdf = splice_pages(pdf, first, numbered)
    target = pdf_path(site_dir, lang)
    target.write_bytes(pdf)
    await page.close()
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_dir", type=Path)
    for path in print_site(parser.parse_args().site_dir):
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
