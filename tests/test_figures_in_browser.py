"""Figures as a reader sees them in Chromium at 1280 px: legible, numbered and captioned,
full size on click, no white slab in the dark scheme. On a phone: test_figures_on_a_phone.py;
display math: test_math_in_browser.py (three files, so that test workers share them out)."""

import io
import re

import pytest

import remembered
from test_browser import all_pages, reading_pages

MIN_TEXT_PX = 11
NARROW_FILE = re.compile(r"\.narrow(\.dark)?\.svg$")  # a figure's variant for a phone's column
CAPTION = {"": re.compile(r"^Figure (\d+)\. \S"), "zh/": re.compile(r"^图 (\d+)\u3000\S")}

# Rendered size of each figure's smallest text: its size in pt (recorded when the snippet
# saved it), in CSS px at natural size (4/3 px per pt), times the scale the page shows it at.
MEASURE = """() => [...document.querySelectorAll('article figure.explainer-figure')].map(f => {
    const img = [...f.querySelectorAll('img')].find(i => i.offsetParent !== null);
    return {key: f.dataset.figure, pt: parseFloat(f.dataset.smallestFontPt),
            scale: img.clientWidth / img.naturalWidth, caption: f.querySelector('figcaption').innerText,
            loaded: img.complete && img.naturalWidth > 0, src: img.currentSrc};
})"""


def load_figures(page):
    """Scroll every lazy figure into view and wait until each is decoded."""
    figures = page.locator("article figure.explainer-figure")
    for i in range(figures.count()):
        figures.nth(i).scroll_into_view_if_needed()
    page.wait_for_function("""() => [...document.querySelectorAll('article figure.explainer-figure img')]
        .filter(i => i.offsetParent !== null).every(i => i.complete && i.naturalWidth > 0)""", timeout=20000)


def pages_with_figures(built_site, lang_root):
    return reading_pages(built_site, lang_root, "explainer-figure")


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_figure_text_renders_at_least_11_px_and_every_figure_is_numbered_and_captioned(
        browser, site_url, built_site, lang_root):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()

    def measure(path):
        page.goto(site_url + path)
        load_figures(page)
        return page.evaluate(MEASURE)
    small, captions, narrow = [], [], []
    pages = pages_with_figures(built_site, lang_root)
    assert len(pages) >= 8
    for path, figures in remembered.per_page(built_site, pages, "figures-1280", measure, __file__).items():
        numbers = []
        for figure in figures:
            if NARROW_FILE.search(figure["src"]):  # the phone's variant has no place at 1280 px
                narrow.append(f"{figure['key']} on {path}: {figure['src']}")
            px = figure["pt"] * 4 / 3 * figure["scale"]
            if px < MIN_TEXT_PX:
                small.append(f"{figure['key']} on {path}: {px:.1f} px")
            found = CAPTION[lang_root].match(figure["caption"])
            numbers.append(int(found.group(1)) if found else None)
        if numbers != list(range(1, len(figures) + 1)):
            captions.append(f"{path}: captions {[f['caption'][:30] for f in figures]}")
    context.close()
    print("\n".join(small))
    assert captions == []
    assert narrow == []
    assert small == [], f"{len(small)} figures with text under {MIN_TEXT_PX} px at 1280 px"


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_a_figure_opens_full_size_on_click(page, site_url, lang_root):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site_url}{lang_root}four-steps/")
    load_figures(page)
    figure = page.locator("article figure.explainer-figure img.figure-light").first
    shown = figure.evaluate("img => img.clientWidth")
    figure.click()
    big = page.locator("dialog.figure-lightbox[open] img")
    big.wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('dialog.figure-lightbox img').complete")
    width, natural = big.evaluate("img => [img.clientWidth, img.naturalWidth]")
    assert width == natural > shown, (width, natural, shown)
    page.keyboard.press("Escape")
    assert page.locator("dialog.figure-lightbox[open]").count() == 0
    assert page.console_errors == []


def white_border_share(png: bytes, border: int = 6) -> float:
    """Share of near-white pixels along the image's edges: where a figure's background
    shows (white in a colour map's middle, inside the axes, is data and does not count)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    edge = [image.getpixel((x, y)) for x in range(width) for y in range(height)
            if x < border or y < border or x >= width - border or y >= height - border]
    return sum(min(p) > 235 for p in edge) / len(edge)


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_no_figure_shows_a_white_background_in_the_dark_scheme(browser, site_url, built_site, lang_root):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
    page = context.new_page()

    def measure(path):
        """The page's scheme, and each figure's key and white share along its edges as shown."""
        page.goto(site_url + path)
        scheme = page.locator("body").get_attribute("data-md-color-scheme")
        load_figures(page)
        figures = page.locator("article figure.explainer-figure")
        shares = []
        for i in range(figures.count()):
            image = figures.nth(i).locator("img.figure-dark")
            shares.append([figures.nth(i).get_attribute("data-figure"),
                           white_border_share(image.screenshot()) if image.is_visible() else 1.0,
                           image.evaluate("img => img.currentSrc")])
        return {"scheme": scheme, "shares": shares}
    slabs = []
    pages = pages_with_figures(built_site, lang_root)
    for path, seen in remembered.per_page(built_site, pages, "figures-dark", measure, __file__).items():
        assert seen["scheme"] == "slate", path
        # A white slab, or no dark twin shown at all.
        slabs += [f"{key} on {path}: {share:.0%} white" for key, share, _ in seen["shares"] if share > 0.2]
        # At 1280 px the wide figure is shown, not the phone's variant.
        slabs += [f"{key} on {path}: {src}" for key, _, src in seen["shares"] if NARROW_FILE.search(src)]
    context.close()
    assert slabs == []


SHOWN = """f => {
    const img = [...f.querySelectorAll('img')].find(i => i.offsetParent !== null);
    const link = f.querySelector('a.figure-zoom');
    const cue = getComputedStyle(link, '::after');
    const box = link.getBoundingClientRect();
    // The narrow variant (a <source> the browser chose by width) or the wide figure; the
    // dialog opens the wide one (pt and natural width of the wide figure: wide_pt, wide_width).
    const narrow = /\\.narrow(\\.dark)?\\.svg$/.test(img.currentSrc);
    const source = img.parentElement.querySelector('source');
    const natural = Number((narrow ? source : img).getAttribute('width'));
    return {key: f.dataset.figure, narrow: narrow,
            pt: parseFloat(narrow ? f.dataset.narrowSmallestFontPt : f.dataset.smallestFontPt),
            wide_pt: parseFloat(f.dataset.smallestFontPt), wide_width: Number(img.getAttribute('width')),
            scale: img.clientWidth / natural, width: img.clientWidth,
            cue: cue.display !== 'none' && cue.visibility !== 'hidden' && /^".+"$/.test(cue.content)
                 ? cue.content : '',
            caption: f.querySelector('figcaption').innerText};
}"""
OPENED = """() => {
    const d = document.querySelector('dialog.figure-lightbox[open]');
    const img = d.querySelector('img');
    const caption = d.querySelector('.figure-lightbox__caption');
    return {width: img.getBoundingClientRect().width, caption: caption ? caption.innerText : ''};
}"""


def open_each_figure(page, path):
    """(shown, opened) for each figure of the page: as the column shows it, and in the dialog."""
    out = []
    figures = page.locator("article figure.explainer-figure")
    for i in range(figures.count()):
        figure = figures.nth(i)
        figure.scroll_into_view_if_needed()
        shown = figure.evaluate(SHOWN)
        figure.locator("a.figure-zoom").click()
        page.locator("dialog.figure-lightbox[open]").wait_for()
        opened = page.evaluate(OPENED)
        page.keyboard.press("Escape")
        out.append((shown, opened))
    return out


def natural_width(shown):
    """Of the figure the dialog opens (the wide one)."""
    return shown.get("wide_width") or shown["width"] / shown["scale"]


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_at_1280_px_a_figure_opens_at_least_half_again_as_large_with_its_caption(browser, site_url, built_site, lang_root):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()

    def measure(path):
        page.goto(site_url + path)
        return open_each_figure(page, path)
    failing = []
    pages = pages_with_figures(built_site, lang_root)
    for path, figures in remembered.per_page(built_site, pages, "figures-opened-1280", measure, __file__).items():
        for shown, opened in figures:
            if opened["width"] < 1.5 * shown["width"] or opened["caption"] != shown["caption"] \
                    or not opened["caption"]:
                failing.append(f"{shown['key']} on {path}: {shown['width']} px in the column, "
                               f"{opened['width']:.0f} px opened, caption {opened['caption'][:30]!r}")
    context.close()
    assert failing == []
