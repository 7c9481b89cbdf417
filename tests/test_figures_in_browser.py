"""Figures as a reader sees them in Chromium: legible at 1280 px, numbered and captioned,
full size on click, no white slab in the dark scheme; display math scrolls."""

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


WIDE_MATH = """() => [...document.querySelectorAll('article div.arithmatex')].map(d => ({
    wide: d.scrollWidth > d.clientWidth + 1, overflow: getComputedStyle(d).overflowX,
    bar: d.offsetHeight - d.clientHeight, tex: Array.from(d.innerText).slice(0, 40).join('')}))"""  # whole characters: 𝑑 is two UTF-16 units


@pytest.mark.parametrize("width", [1280, 390])
def test_display_math_is_never_clipped_a_wide_formula_scrolls_with_a_visible_scrollbar(
        browser, built_site, site_url, width):
    """Playwright hides scrollbars in headless Chromium; a reader's browser shows them,
    so this test starts a Chromium that shows them."""
    from conftest import CHROMIUM

    opened = []  # the reader's browser, started only if a page is measured

    def measure(path):
        if not opened:
            reader_browser = browser.browser_type.launch(
                executable_path=CHROMIUM, ignore_default_args=["--hide-scrollbars"],
                args=["--no-sandbox", "--disable-gpu"])
            opened.extend([reader_browser, reader_browser.new_page(viewport={"width": width, "height": 800})])
        opened[1].goto(site_url + path)
        return opened[1].evaluate(WIDE_MATH)
    pages = [path for path in all_pages(built_site)
             if "notebooks/" not in path and "print_page" not in path
             and "arithmatex" in (built_site / path / "index.html").read_text(encoding="utf-8")]
    clipped = []
    for path, boxes in remembered.per_page(built_site, pages, f"math-{width}", measure, __file__).items():
        for box in boxes:
            if box["wide"] and not (box["overflow"] in ("auto", "scroll") and box["bar"] > 0):
                clipped.append(f"{path} ({width} px): {box}")
    if opened:
        opened[0].close()
    assert clipped == []


def test_the_gradients_equation_fits_the_column_at_1280_px(page, site_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site_url + "three-roles/gradients/")
    assert [box for box in page.evaluate(WIDE_MATH) if box["wide"]] == []


def edge_strips(png: bytes, width: int = 4, rows: int = 6) -> tuple[tuple, tuple]:
    """Mean colour of the left and the right ``width`` px of an element's top ``rows`` px
    (above the formula, where only a scroll cue can draw)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    w, _ = image.size

    def mean(x0, x1):
        pixels = [image.getpixel((x, y)) for x in range(x0, x1) for y in range(1, 1 + rows)]
        return tuple(sum(channel) / len(pixels) for channel in zip(*pixels))
    return mean(0, width), mean(w - width, w)


def colour_distance(a: tuple, b: tuple) -> float:
    return max(abs(x - y) for x, y in zip(a, b))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_a_wide_formula_at_390_px_shows_a_cue_on_the_side_that_has_more(
        browser, built_site, site_url, lang_root, scheme):
    """Phones hide scrollbars: a formula cut off at the right edge must show that it goes on.
    At the start, a shade at the right edge and none at the left; scrolled to the end, the
    other way round."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()

    def measure(path):
        """For the page's first two wide formulas: the edges' colours at the start and the end."""
        page.goto(site_url + path)
        wide = [i for i, box in enumerate(page.evaluate(WIDE_MATH)) if box["wide"]]
        edges = []
        for i in wide[:2]:
            formula = page.locator("article div.arithmatex").nth(i)
            formula.scroll_into_view_if_needed()
            formula.evaluate("d => d.scrollLeft = 0")
            start = edge_strips(formula.screenshot())
            formula.evaluate("d => d.scrollLeft = d.scrollWidth")
            edges.append([i, *start, *edge_strips(formula.screenshot())])
        return edges
    pages = [path for path in all_pages(built_site)
             if path.startswith(lang_root) and not (lang_root == "" and path.startswith("zh/"))
             and "notebooks/" not in path and "print_page" not in path
             and "arithmatex" in (built_site / path / "index.html").read_text(encoding="utf-8")]
    checked, missing = 0, []
    for path, edges in remembered.per_page(built_site, pages, f"math-cue-390-{scheme}", measure, __file__).items():
        for i, start_left, start_right, end_left, end_right in edges:
            checked += 1
            # The right edge is shaded at the start and not at the end; the left, the reverse.
            if colour_distance(start_right, end_right) < 12 or colour_distance(start_left, end_left) < 12:
                missing.append(f"{path} formula {i}: right {start_right} → {end_right}, "
                               f"left {start_left} → {end_left}")
    context.close()
    assert checked > 0, "no formula is wider than a 390 px screen: nothing to check"
    assert missing == []


# --- On a phone: legible as shown, or legible on a tap that the figure says it takes --------

PHONE_MIN_PX = 9       # smallest figure text as shown in a 390 px column
OPENED_MIN_PX = 11     # smallest figure text once opened

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
def test_on_a_phone_each_figure_is_legible_or_says_a_tap_opens_it_legibly(browser, site_url, built_site, lang_root):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()

    def measure(path):
        page.goto(site_url + path)
        return open_each_figure(page, path)
    failing, small = [], 0
    pages = pages_with_figures(built_site, lang_root)
    for path, figures in remembered.per_page(built_site, pages, "figures-opened-390", measure, __file__).items():
        for shown, opened in figures:
            px = shown["pt"] * 4 / 3 * shown["scale"]
            if px >= PHONE_MIN_PX:
                continue
            small += 1
            opened_px = shown.get("wide_pt", shown["pt"]) * 4 / 3 * opened["width"] / natural_width(shown)
            if not shown["cue"] or opened_px < OPENED_MIN_PX:
                failing.append(f"{shown['key']} on {path}: {px:.1f} px shown, {opened_px:.1f} px "
                               f"opened, cue {shown['cue']!r}")
    context.close()
    print(f"{small} figures under {PHONE_MIN_PX} px at 390 px ({lang_root or 'en'})")
    assert failing == []


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


# --- On a phone, the narrow variant: legible without a tap, in both languages and schemes ---

NARROW_SHOWN = """() => [...document.querySelectorAll('article figure.explainer-figure')].map(f => {
    const img = [...f.querySelectorAll('img')].find(i => i.offsetParent !== null);
    return {key: f.dataset.figure, pt: parseFloat(f.dataset.narrowSmallestFontPt),
            src: img ? img.currentSrc : '', dark: img ? img.classList.contains('figure-dark') : null,
            width: img ? img.clientWidth : 0, natural: img ? img.naturalWidth : 0,
            window: document.documentElement.clientWidth};
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_at_390_px_every_figure_shows_its_narrow_variant_with_text_of_at_least_9_px_untapped(
        browser, site_url, built_site, lang_root, scheme):
    """Chromium at 390 × 844: each figure shows the variant drawn for a phone's column, in the
    page's scheme, and its smallest text (the size recorded when the snippet drew it, 4/3 px per
    pt, times the scale the column shows it at) is at least 9 px without opening it."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme,
                                  has_touch=True)
    page = context.new_page()

    def measure(path):
        page.goto(site_url + path)
        load_figures(page)
        return page.evaluate(NARROW_SHOWN)
    failing, checked = [], 0
    suffix = ".narrow.dark.svg" if scheme == "dark" else ".narrow.svg"
    pages = pages_with_figures(built_site, lang_root)
    assert len(pages) >= 8
    for path, figures in remembered.per_page(built_site, pages, f"figures-narrow-390-{scheme}",
                                             measure, __file__).items():
        for figure in figures:
            checked += 1
            px = figure["pt"] * 4 / 3 * figure["width"] / figure["natural"] if figure["natural"] else 0
            if not figure["src"].endswith(suffix) or figure["dark"] != (scheme == "dark") \
                    or not px >= PHONE_MIN_PX:
                failing.append(f"{figure['key']} on {path}: {figure['src'].rsplit('/', 1)[-1]} "
                               f"shown {figure['width']} of {figure['natural']} px, {px:.1f} px text")
    context.close()
    print(f"{checked} figures at 390 px ({lang_root or 'en'}, {scheme})")
    assert checked >= 50
    assert failing == [], f"{len(failing)} of {checked} figures:\n" + "\n".join(failing)
