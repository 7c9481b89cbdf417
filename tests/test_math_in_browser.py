"""Display math as a reader sees it in Chromium: never clipped (a wide formula scrolls with a
visible scrollbar), and on a phone a shade on the side that has more."""

import io

import pytest

import remembered
from test_browser import all_pages


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
