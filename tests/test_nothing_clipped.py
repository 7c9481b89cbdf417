"""Nothing in an article is cut off without a cue (issue 37): every printed output, code
block and table either fits its column, or scrolls sideways with a shade drawn on the side
that has more. Display math has its own tests (test_math_in_browser.py, WIDE_MATH)."""

import io

import pytest
from PIL import Image

import remembered
from test_browser import reading_pages
from test_math_in_browser import colour_distance, edge_strips

# Each block's boxes, from its innermost box out to the page, and what each does with what
# does not fit: a box wider than it shows either scrolls (then a cue must be drawn) or cuts.
# Closed <details> are opened first: a reader who opens one sees the same blocks.
BLOCKS = """(root) => {
    root = root || document.querySelector('article');
    root.querySelectorAll('details').forEach(d => d.open = true);
    const blocks = [];
    const seen = new Set();
    const boxes = [];
    const kindOf = el => el.tagName === 'TABLE' ? 'table'
        : el.closest('.cell-output') ? 'output' : 'code';
    const inner = el => el.tagName === 'PRE' ? (el.querySelector(':scope > code') || el) : el;
    const candidates = [...root.querySelectorAll('pre, table')].filter(el =>
        !el.closest('.arithmatex, .katex') && el.getClientRects().length > 0);
    candidates.forEach((el, index) => {
        const problems = [];
        for (let box = inner(el); box && box !== document.documentElement; box = box.parentElement) {
            if (box.scrollWidth <= box.clientWidth + 1) continue;
            const overflow = getComputedStyle(box).overflowX;
            if (overflow === 'auto' || overflow === 'scroll') {
                if (!seen.has(box)) {
                    seen.add(box);
                    box.dataset.clipScroller = String(boxes.length);
                    boxes.push(box);
                }
                problems.push({scrolls: Number(box.dataset.clipScroller)});
            } else if (overflow !== 'visible') {
                problems.push({cut: (box.className || box.tagName).toString().slice(0, 60), overflow});
            }
        }
        blocks.push({index, kind: kindOf(el), problems,
                     text: (el.innerText || '').trim().split('\\n')[0].slice(0, 50)});
    });
    const page = document.documentElement.scrollWidth > window.innerWidth + 1;
    return {blocks, page, scrollers: boxes.length};
}"""


# The window is shot once for every box whose strip it shows whole, below its top quarter (the
# sticky header and, on a desktop, the back-to-top button float there): the next box not yet
# shot is put a third of the way down, as one box at a time was, and every box the shot shows
# is read from it. Scrolled to their start, then to their end, all boxes at once.
SHOW = """([first, pending, selector, scroll]) => {
    const box = i => document.querySelector(selector.replace('{}', i));
    if (scroll) window.scrollBy(0, box(first).getBoundingClientRect().top - window.innerHeight / 3);
    const shown = [];
    for (const i of pending) {
        const b = box(i), r = b.getBoundingClientRect();
        const rect = {x: r.left, y: r.top, width: b.clientWidth, height: Math.min(r.height, 12)};
        if (i === first || (rect.y >= window.innerHeight / 4 && rect.y + rect.height <= window.innerHeight
                            && rect.x >= 0 && rect.x + rect.width <= window.innerWidth))
            shown.push([i, rect]);
    }
    return shown;
}"""


def scroll_cues(page, count: int, selector: str = "[data-clip-scroller='{}']") -> list[list]:
    """For each scrolling box: the colours of its left and right edges at the start and at
    the end of its scroll (the strips the formula cue's test reads: its top rows, inside its
    padding), read from shots of the window with the box clear of the sticky header (an
    element's own screenshot of a box taller than the window would scroll it back under the
    header)."""
    shots: dict[int, list] = {i: [] for i in range(count)}
    for to in ("0", "b.scrollWidth"):
        page.evaluate(f"""(selector) => {{ for (let i = 0; ; i++) {{
            const b = document.querySelector(selector.replace('{{}}', i));
            if (!b) break;
            b.scrollLeft = {to}; }} }}""", selector)
        pending = list(range(count))
        while pending:
            page.evaluate(SHOW, [pending[0], pending, selector, True])
            # the shades follow scroll events: two frames for them to be drawn (a busy machine
            # once shot the band before the shade came); the boxes are then found where those
            # frames left them (under load the explorer page's first code block moved between)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            shown = page.evaluate(SHOW, [pending[0], pending, selector, False])
            # the band of the window that holds their strips, shot once
            top = min(rect["y"] for _, rect in shown)
            bottom = max(rect["y"] + rect["height"] for _, rect in shown)
            width = page.evaluate("() => window.innerWidth")
            band = Image.open(io.BytesIO(page.screenshot(  # slow on a busy 2-core machine: 2 min
                clip={"x": 0, "y": top, "width": width, "height": bottom - top}, timeout=120_000))).convert("RGB")
            for i, rect in shown:
                box = (round(rect["x"]), round(rect["y"] - top), round(rect["x"] + rect["width"]),
                       round(rect["y"] - top + rect["height"]))
                strip = io.BytesIO()
                band.crop(box).save(strip, "PNG")
                shots[i].append(edge_strips(strip.getvalue()))
                pending.remove(i)
    return [[*shots[i][0], *shots[i][1]] for i in range(count)]


SCHEMES = {"light": "default", "dark": "slate"}   # the palette's name for each (mkdocs.yml)

# The page in the other scheme, as Material's palette switch leaves it: the body carries the
# palette's attributes, which every scheme-dependent colour of the theme and of
# docs/assets/explainer.css hangs on. The colours' own transitions (125 ms) are run to their
# end, so the shots see the scheme's colours, not a blend.
SET_SCHEME = """(scheme) => {
    const input = document.querySelector(`input[name=__palette][data-md-color-scheme="${scheme}"]`);
    for (const key of ['media', 'scheme', 'primary', 'accent'])
        document.body.setAttribute('data-md-color-' + key, input.getAttribute('data-md-color-' + key));
    getComputedStyle(document.body).backgroundColor;   // the new style now, with its transitions
    document.getAnimations().filter(a => a instanceof CSSTransition).forEach(a => a.finish());
    return document.body.getAttribute('data-md-color-scheme');
}"""


def measure_page(page, url: str) -> dict:
    """One visit per page and width: where each block scrolls or is cut (the layout, the same
    in both schemes), then the scroll cues' colours in each scheme."""
    page.goto(url)
    # the page as a reader sees it once it has settled: its fonts (text width decides what
    # scrolls) and what its scripts fetch (the explorer's data lays out above its code)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    found = page.evaluate(BLOCKS)
    found["cues"] = {}
    for scheme, palette in SCHEMES.items():
        assert page.evaluate(SET_SCHEME, palette) == palette, (url, scheme)
        found["cues"][scheme] = scroll_cues(page, found["scrollers"])
    return found


def failures(path: str, found: dict, scheme: str) -> list[str]:
    """Blocks cut without a cue in ``scheme``: a box that cuts, a scroll with no shade that
    moves from the right edge (at the start) to the left (at the end), or a page that scrolls
    sideways."""
    out = [f"{path}: the page itself scrolls sideways"] if found["page"] else []
    for block in found["blocks"]:
        for problem in block["problems"]:
            if "cut" in problem:
                out.append(f"{path} {block['kind']} {block['index']} ({block['text']!r}): "
                           f"cut by {problem['cut']} (overflow {problem['overflow']})")
                continue
            start_left, start_right, end_left, end_right = found["cues"][scheme][problem["scrolls"]]
            if colour_distance(start_right, end_right) < 12 or colour_distance(start_left, end_left) < 12:
                out.append(f"{path} {block['kind']} {block['index']} ({block['text']!r}): scrolls with "
                           f"no cue in the {scheme} scheme: right {start_right} → {end_right}, "
                           f"left {start_left} → {end_left}")
    return out


def article_pages(built_site, lang_root):
    return reading_pages(built_site, lang_root, "<article")


def no_block_cut_off(browser, site_url, built_site, lang_root, width, height):
    """Every article page at one width, each visited once and its scroll cues shot in both
    schemes (one visit per page: the blocks' layout does not depend on the scheme, the cues'
    colours do). The desktop's width is tested in test_nothing_clipped_at_1280.py, so that two
    test workers share the pages out."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    pages = article_pages(built_site, lang_root)
    assert len(pages) >= 20
    cut, blocks, scrolling = [], 0, 0
    measured = remembered.per_page(built_site, pages, f"clipped-{width}",
                                   lambda path: measure_page(page, site_url + path), __file__)
    for path, found in measured.items():
        blocks += len(found["blocks"])
        scrolling += found["scrollers"]
        for scheme in SCHEMES:
            cut += failures(path, found, scheme)
    context.close()
    print(f"{blocks} blocks, {scrolling} scroll sideways ({lang_root or 'en'}, {width} px)")
    assert blocks > 100
    assert cut == []


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_on_a_phone_no_output_code_or_table_is_cut_off_without_a_scroll_cue(
        browser, site_url, built_site, lang_root):
    no_block_cut_off(browser, site_url, built_site, lang_root, 390, 844)


PLANTED = """<div id="planted">
  <pre id="cut"><code style="white-space: pre; overflow: hidden">weights of it: {line}</code></pre>
  <div class="cell-code highlight"><pre id="bare"><code style="background: none">{line}</code></pre></div>
  <div class="cell-code highlight"><pre id="cued"><code>{line}</code></pre></div>
  <pre id="wraps"><code style="white-space: pre-wrap; overflow-wrap: anywhere">{line}</code></pre>
</div>"""


def test_the_check_catches_a_wide_output_cut_off_and_a_scroll_without_its_cue(browser, site_url):
    """Planted in a real page at 390 px: a wide printed output with overflow hidden (cut), a
    code line that scrolls with its shade removed (no cue), one with the site's shade, and
    one that wraps. The same measurement finds exactly the first two, in each scheme the
    page is switched to as the measurement switches it."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(site_url + "four-steps/")
    line = " ".join(f"{0.013 * i:.3f}" for i in range(60))
    page.evaluate("html => document.querySelector('article').insertAdjacentHTML('afterbegin', html)",
                  PLANTED.format(line=line))
    found = page.evaluate(BLOCKS, page.query_selector("#planted"))
    found["cues"] = {}
    backgrounds = {}
    for scheme, palette in SCHEMES.items():
        assert page.evaluate(SET_SCHEME, palette) == palette
        backgrounds[scheme] = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        found["cues"][scheme] = scroll_cues(page, found["scrollers"])
    context.close()
    assert backgrounds["light"] != backgrounds["dark"], backgrounds   # the switch took
    assert found["cues"]["light"] != found["cues"]["dark"]            # and the shots saw it
    assert len(found["blocks"]) == 4
    for scheme in SCHEMES:
        problems = failures("planted", found, scheme)
        assert [p.split(" ")[2] for p in problems] == ["0", "1"], (scheme, problems)
        assert "cut by" in problems[0] and "no cue" in problems[1]


def test_the_scheme_switch_gives_the_colours_a_reader_who_prefers_dark_gets(browser, site_url):
    """The dark scheme as the measurement switches to it, after loading in light, has the
    colours of a page loaded by a browser that prefers dark (Material's own choice at load):
    the body's and a code block's background, and a scroll cue's edges."""
    seen = {}
    for how in ("switched", "preferred"):
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      color_scheme="light" if how == "switched" else "dark")
        page = context.new_page()
        page.goto(site_url + "four-steps/")
        if how == "switched":
            assert page.evaluate(SET_SCHEME, SCHEMES["dark"]) == "slate"
        found = page.evaluate(BLOCKS)
        seen[how] = (page.evaluate("() => [document.body, document.querySelector('article pre > code')]"
                                   ".map(e => getComputedStyle(e).backgroundColor)"),
                     scroll_cues(page, found["scrollers"]))
        context.close()
    assert seen["switched"] == seen["preferred"]


HEADER = """() => { const header = document.querySelector('.md-header').getBoundingClientRect();
    return [...document.querySelectorAll('.md-header__topic .md-ellipsis')].map(e => {
        const r = e.getBoundingClientRect();
        return {text: e.innerText, whole: e.scrollWidth <= e.clientWidth + 1,
                inside: r.top >= header.top - 1 && r.bottom <= header.bottom + 1};
    }); }"""


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_on_a_phone_the_header_names_site_and_page_whole_and_no_button_covers_the_text(
        page, site_url, built_site, lang_root):
    """On every page, the site's name (注意力机制：跑一遍，量一量 was cut to 注意力机制：跑一…)
    and the page's title that replaces it on scrolling show whole inside the header; the
    back-to-top button, which floats over the text, is not shown on a phone even when
    scrolling back up. What each page showed is remembered under its inputs (tests/remembered.py)."""
    page.set_viewport_size({"width": 390, "height": 844})

    def header(path):
        page.goto(site_url + path)
        return page.evaluate(HEADER)

    def top_button(path):
        page.goto(site_url + path)
        page.mouse.wheel(0, 3000)
        page.wait_for_timeout(300)
        page.mouse.wheel(0, -600)
        page.wait_for_timeout(500)
        return {"shown": page.locator(".md-top").is_visible()}

    pages = article_pages(built_site, lang_root)
    cut = []
    for path, topics in remembered.per_page(built_site, pages, "phone-header-390", header, __file__).items():
        cut += [f"{path}: {t}" for t in topics if not (t["whole"] and t["inside"])]
        assert len(topics) == 2, path
    assert cut == [], "\n".join(cut)
    last = pages[-1]
    assert not remembered.per_page(built_site, [last], "phone-top-button-390", top_button, __file__)[last]["shown"]
