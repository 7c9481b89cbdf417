"""Print each language's print page (mkdocs-print-site) to a PDF with Debian's Chromium:
every page in nav order, figures as vectors, Chinese glyphs embedded, page numbers in the
footer and a document outline from the headings.

    python tools/print_pdf.py site/          # writes site/attention-en.pdf, site/zh/attention-zh.pdf
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PDF_NAME = {"en": "attention-en.pdf", "zh": "attention-zh.pdf"}
PRINT_FONT_ZH = '"WenQuanYi Micro Hei"'  # Debian package fonts-wqy-microhei
_FOOTER = '<div style="font-size:9px;width:100%;text-align:center;color:#555">{}</div>'
FOOTER = {"en": _FOOTER.format('<span class="pageNumber"></span> / <span class="totalPages"></span>'),
          "zh": _FOOTER.format('第 <span class="pageNumber"></span> 页，共 <span class="totalPages"></span> 页')}


def pdf_path(site_dir: Path, lang: str) -> Path:
    return (site_dir if lang == "en" else site_dir / "zh") / PDF_NAME[lang]


def print_site(site_dir: Path) -> list[Path]:
    """Both languages' PDFs, printed side by side (each page has its own renderer process)."""
    if not Path(CHROMIUM).exists():
        raise SystemExit("Chromium is missing: run `make setup` (Debian package chromium)")
    return asyncio.run(_print_all(site_dir))


async def _print_all(site_dir: Path) -> list[Path]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        written = await asyncio.gather(*(_print(browser, site_dir, lang) for lang in ("en", "zh")))
        await browser.close()
    return list(written)


async def _print(browser, site_dir: Path, lang: str) -> Path:
    page = await browser.new_page()  # one page per language (a page reused for zh printed 3x slower)

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
            f"body, .md-typeset {{ font-family: {PRINT_FONT_ZH}, sans-serif !important; }}"
            f"code, pre, kbd, samp {{ font-family: 'DejaVu Sans Mono', {PRINT_FONT_ZH}, "
            "monospace !important; }"))
    await page.emulate_media(media="print")
    target = pdf_path(site_dir, lang)
    await page.pdf(path=str(target), format="A4", print_background=True, outline=True, tagged=True,
                   display_header_footer=True, header_template="<span></span>",
                   footer_template=FOOTER[lang],
                   margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
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
