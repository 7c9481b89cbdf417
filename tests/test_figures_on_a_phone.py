"""Figures on a phone (Chromium at 390 px): legible as shown, or legible on a tap the figure
says it takes; the narrow variant shown, in both languages and schemes."""

from pathlib import Path

import pytest

import remembered
from test_figures_in_browser import load_figures, natural_width, open_each_figure, pages_with_figures

MEASURING = (__file__, str(Path(__file__).with_name("test_figures_in_browser.py")))   # what measures


PHONE_MIN_PX = 9       # smallest figure text as shown in a 390 px column
OPENED_MIN_PX = 11     # smallest figure text once opened


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_on_a_phone_each_figure_is_legible_or_says_a_tap_opens_it_legibly(browser, site_url, built_site, lang_root):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()

    def measure(path):
        page.goto(site_url + path)
        return open_each_figure(page, path)
    failing, small = [], 0
    pages = pages_with_figures(built_site, lang_root)
    for path, figures in remembered.per_page(built_site, pages, "figures-opened-390", measure, *MEASURING).items():
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
                                             measure, *MEASURING).items():
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
