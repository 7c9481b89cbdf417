"""The built site in a real browser (Debian's Chromium): what a reader sees."""

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit
from pathlib import Path

import pytest

import remembered

CJK = re.compile(r"[\u4e00-\u9fff]")


def all_pages(site: Path) -> list[str]:
    """Every HTML page of both languages, as URL paths."""
    pages = []
    for html in sorted(site.rglob("index.html")):
        path = html.parent.relative_to(site).as_posix()
        pages.append("" if path == "." else path + "/")
    return pages


def reading_pages(site: Path, lang_root: str, marker: str) -> list[str]:
    """The pages of one language (``""`` or ``"zh/"``) a reader reads — no notebooks, no print
    page — whose HTML contains ``marker``."""
    return [p for p in all_pages(site)
            if p.startswith(lang_root) and (lang_root or not p.startswith("zh/"))
            and not p.startswith(("notebooks/", "zh/notebooks/", "print_page/", "zh/print_page/"))
            and marker in (site / p / "index.html").read_text(encoding="utf-8")]


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_four_steps_page_typesets_math_and_shows_figures_in_its_language(page, site_url, lang_root):
    page.goto(f"{site_url}{lang_root}four-steps/")
    page.wait_for_load_state("networkidle")
    assert page.locator(".arithmatex .katex").count() >= 5, "math was not typeset by KaTeX"
    assert page.locator(".arithmatex:has-text('\\\\(')").count() == 0, "raw TeX left on the page"
    figures = page.locator("article figure img.figure-light")
    assert figures.count() >= 2
    for i in range(figures.count()):
        figure = figures.nth(i)
        figure.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
        alt = figure.get_attribute("alt")
        assert alt and len(alt) > 20
        assert bool(CJK.search(alt)) == (lang_root == "zh/"), f"alt text in the wrong language: {alt}"
    assert page.outside_requests == []
    assert page.console_errors == []


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root, copy_label", [("", "Copy"), ("zh/", "复制")])
def test_the_whole_script_opens_on_request_and_copies_exactly(browser, site_url, lang_root, copy_label):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.goto(f"{site_url}{lang_root}four-steps/")
    listing = tab.locator("details.snippet-listing")
    assert listing.locator("pre").count() == 0  # inert until opened
    listing.locator("summary").click()
    code = listing.locator("pre")
    assert "F.scaled_dot_product_attention" in code.inner_text()
    listing.get_by_role("button", name=copy_label).click()
    source = (Path(__file__).resolve().parent.parent / "snippets" / "four_steps.py").read_text(encoding="utf-8")
    assert tab.evaluate("navigator.clipboard.readText()") == source
    context.close()


@pytest.mark.remembered
@pytest.mark.parametrize("start, switch_to, expected", [
    ("four-steps/", "zh", "zh/four-steps/"),
    ("zh/four-steps/", "en", "four-steps/"),
    ("zh/claims/", "en", "claims/"),
    ("", "zh", "zh/"),
])
def test_language_switch_lands_on_the_same_page(page, site_url, start, switch_to, expected):
    page.goto(site_url + start)
    page.locator(".md-header .md-select").hover()
    page.locator(f".md-select__link[hreflang='{switch_to}']").click()
    page.wait_for_load_state("load")
    assert page.url == site_url + expected
    assert page.locator("html").get_attribute("lang").startswith(switch_to)


@pytest.mark.remembered
def test_chinese_search_finds_the_pages(page, site_url):
    page.goto(site_url + "zh/")
    page.wait_for_load_state("networkidle")
    search = page.locator("input.md-search__input")
    search.click()
    search.fill("注意力")
    search.press("End")  # Material searches on keyup; fill() alone sends no key event
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15000)
    links = {urlsplit(results.nth(i).locator("a").first.get_attribute("href")).path
             for i in range(results.count())}
    assert {"/zh/", "/zh/four-steps/"} <= links, links


AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"


def test_every_page_loads_cleanly_and_has_no_serious_accessibility_violation(site_url, built_site):
    """Each page of both languages: no request leaves localhost, no failed response,
    no console error, and axe-core finds no serious or critical violation. Two tabs work
    through the pages side by side (each tab's page runs in its own renderer process)."""
    pages = all_pages(built_site)
    assert len(pages) >= 8
    # Each page's problems are remembered under everything it loads (tests/remembered.py).
    stored = {path: remembered.key("axe", remembered.page_inputs(built_site, path), __file__) for path in pages}
    found = {path: remembered.recall(stored[path]) for path in pages}
    missing = [path for path in pages if found[path] is None]
    if missing:
        with ThreadPoolExecutor(max_workers=1) as thread:  # away from the sync API's event loop
            found.update(thread.submit(asyncio.run, _check_pages(site_url, missing, tabs=2)).result())
        for path in missing:
            remembered.keep(stored[path], found[path])
    problems = [f"{path}: {problem}" for path in pages for problem in found[path]]
    assert problems == []


async def _check_pages(site_url: str, pages: list[str], tabs: int) -> dict[str, list[str]]:
    """Each page's problems: violations, requests leaving localhost, console errors, failed responses."""
    from playwright.async_api import async_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS

    waiting, problems = list(pages), {}

    async def tab_through(browser) -> None:
        context = await browser.new_context()
        tab = await context.new_page()
        outside, console, failed = [], [], []

        async def route(request_route):
            url = request_route.request.url
            if url.startswith((site_url, "data:", "blob:")):
                await request_route.continue_()
            else:
                outside.append(url)
                await request_route.abort()

        await tab.route("**/*", route)
        tab.on("console", lambda message: message.type == "error" and console.append(message.text))
        tab.on("pageerror", lambda error: console.append(str(error)))
        tab.on("response", lambda response: response.status >= 400
               and failed.append(f"{response.status} {response.url}"))
        while waiting:
            path = waiting.pop(0)
            await tab.goto(site_url + path, wait_until="load")
            await tab.add_script_tag(path=str(AXE))
            violations = await tab.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
                .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
            problems[path] = [*violations, *(f"request to {url}" for url in outside),
                              *(f"console: {text}" for text in console), *failed]
            outside.clear(), console.clear(), failed.clear()
        await context.close()

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        await asyncio.gather(*(tab_through(browser) for _ in range(tabs)))
        await browser.close()
    return problems


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root, term, definition", [
    ("", "query", "What a token is looking for"),
    ("zh/", "查询", "一个词元想找什么"),
])
def test_glossary_terms_show_their_definition_on_hover(page, site_url, lang_root, term, definition):
    page.goto(f"{site_url}{lang_root}four-steps/")
    abbr = page.locator("article abbr", has_text=term).first
    assert definition in abbr.get_attribute("title")
    abbr.hover()
    page.locator(".md-tooltip2", has_text=definition).first.wait_for(state="visible", timeout=5000)


# --- the home page leads in (issue 22) ----------------------------------------------------------

@pytest.mark.remembered
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_start_button_is_above_the_fold_and_goes_where_next_goes(
        browser, site_url, lang_root, width, height, scheme):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.goto(site_url + lang_root)
    button = page.locator("article a.start-button")
    assert button.count() == 1 and button.is_visible()
    box = button.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, \
        f"the start button ends at y = {box['y'] + box['height']:.0f}, below the fold ({height})"
    next_link = page.locator("a.md-footer__link--next")
    resolve = "a => new URL(a.getAttribute('href'), location.href).pathname"
    assert button.evaluate(resolve) == next_link.evaluate(resolve)
    context.close()


# --- search: formulas as text, titles and headings first (issue 22) -------------------------

def headings_first(heading_hits: list[bool]) -> bool:
    """Results in order, each True when the word is in the page's title or a heading: every
    such result must come before every result that has the word in its text only."""
    return heading_hits == sorted(heading_hits, reverse=True)


@pytest.mark.parametrize("hits, expected", [
    ([True, True, False, False], True), ([True, False], True), ([False, False], True),
    ([True, False, True], False), ([False, True], False),
])
def test_the_headings_first_check(hits, expected):
    assert headings_first(hits) is expected


RESULT_HITS = """items => items.map(item =>
    [...item.querySelectorAll('h1, h2')].some(heading => heading.querySelector('mark')))"""


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root, query", [
    ("", "softmax"), ("", "gradient"), ("", "induction"), ("zh/", "梯度"), ("zh/", "残差"), ("zh/", "缩放"),
])
def test_search_ranks_pages_with_the_word_in_a_title_or_heading_first(page, site_url, lang_root, query):
    page.goto(site_url + lang_root)
    search = page.locator("input.md-search__input")
    search.click()
    search.fill(query)
    search.press("End")  # Material searches on keyup
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15000)
    hits = results.evaluate_all(RESULT_HITS)
    assert any(hits), f"no result has {query!r} in a title or heading"
    assert headings_first(hits), f"{query!r}: {hits}"
    previews = " ".join(results.all_inner_texts())
    assert "\\" not in previews, "a search preview shows TeX"


@pytest.mark.remembered
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_ledger_opens_compact_and_filters_by_verdict(page, site_url, lang_root):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{site_url}{lang_root}claims/")
    cards = page.locator(".claim-card")
    total = cards.count()
    assert total >= 30
    # Compact: every card folded, its verdict and the sentence that says why in view.
    assert page.locator(".claim-card details[open]").count() == 0
    assert page.locator(".claim-card .claim-why:visible").count() == total
    print(f"ledger at 1280 px: {page.evaluate('document.documentElement.scrollHeight')} px tall")
    verdict_of = "el => /verdict--(\\w+)/.exec(el.querySelector('.verdict').className)[1]"
    rows = page.locator("article tr:has(td .verdict)")
    assert rows.count() == total
    for button in page.locator(".ledger-filter button[data-verdict]:not([data-verdict=''])").all():
        verdict = button.get_attribute("data-verdict")
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        shown_rows = [r.evaluate(verdict_of) for r in rows.all() if r.is_visible()]
        shown_cards = [c.get_attribute("data-verdict") for c in cards.all() if c.is_visible()]
        assert shown_rows and set(shown_rows) == {verdict}, verdict
        assert shown_cards == [verdict] * len(shown_rows)
        count = f"（{len(shown_rows)}）" if lang_root == "zh/" else f"({len(shown_rows)})"
        assert count in button.text_content()
    page.locator(".ledger-filter button[data-verdict='']").click()
    assert sum(r.is_visible() for r in rows.all()) == total
    assert page.console_errors == []


# Each cell of the ledger's overview: its box, whether its text overflows it, and the column
# name drawn before it (the folded rows of a phone name their cells).
LEDGER_CELLS = """table => [...table.querySelectorAll('tbody tr')].map(row =>
    [...row.querySelectorAll('td')].map(cell => {
        const box = cell.getBoundingClientRect();
        const label = getComputedStyle(cell, '::before').content;
        return {left: box.left, right: box.right, width: box.width, height: box.height,
                clipped: cell.scrollWidth > cell.clientWidth + 1, label: label,
                name: cell.dataset.label};
    }))"""


@pytest.mark.remembered
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_ledger_table_shows_every_column_on_a_laptop_and_a_phone(browser, site_url, lang_root, width, scheme):
    """Issue 37: all six columns in view, nothing to scroll sideways; on a phone each row folds
    into a block whose cells below the claim and its verdict say which column they are."""
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{site_url}{lang_root}claims/")
    page.wait_for_load_state("networkidle")
    table = page.locator(".ledger-index table")
    assert table.count() == 1
    view = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= view, "the page scrolls sideways"
    scrolls = table.evaluate("""t => { const out = [];
        for (let el = t; el && el.tagName !== 'ARTICLE'; el = el.parentElement)
            if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
                && el.scrollWidth > el.clientWidth + 1) out.push(el.className || el.tagName);
        return out; }""")
    assert scrolls == [], f"the table scrolls sideways in {scrolls}"
    rows = table.evaluate(LEDGER_CELLS)
    assert len(rows) >= 30
    for number, cells in enumerate(rows, 1):
        assert len(cells) == 6, f"row {number}: {len(cells)} cells"
        for cell in cells:
            assert cell["width"] > 0 and cell["height"] > 0, f"row {number}: {cell['name']} is not shown"
            assert cell["left"] >= 0 and cell["right"] <= view + 0.5, f"row {number}: {cell['name']} is cut"
            assert not cell["clipped"], f"row {number}: {cell['name']} overflows its cell"
        if width < 720:   # folded: the cells under the claim and its verdict name their column
            assert all(cell["name"] in cell["label"] for cell in cells[2:]), f"row {number}: {cells[2:]}"
        else:             # a table: one row, the header names the columns
            assert all(cell["label"] in ("none", "normal") for cell in cells)
    context.close()
