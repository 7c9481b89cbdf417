"""Nothing in an article is cut off without a cue (issue 37): every printed output, code
block and table either fits its column, or scrolls sideways with a shade drawn on the side
that has more. Display math has its own tests (test_figures_in_browser.py, WIDE_MATH)."""

import pytest

import remembered
from test_browser import reading_pages
from test_figures_in_browser import colour_distance, edge_strips

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


def scroll_cues(page, count: int, selector: str = "[data-clip-scroller='{}']") -> list[list]:
    """For each scrolling box: the colours of its left and right edges at the start and at
    the end of its scroll (the strips the formula cue's test reads: its top rows, inside its
    padding). The box's top is put a third of the way down the window, clear of the sticky
    header, and the window is shot there (an element's own screenshot of a box taller than the
    window would scroll it back under the header)."""
    edges = []
    for i in range(count):
        box = page.locator(selector.format(i)).first
        box.evaluate("b => window.scrollBy(0, b.getBoundingClientRect().top - window.innerHeight / 3)")
        rect = box.evaluate("b => { const r = b.getBoundingClientRect(); return {x: r.left, y: r.top, "
                            "width: b.clientWidth, height: Math.min(r.height, 12)}; }")
        shots = []
        for to in ("0", "b.scrollWidth"):
            box.evaluate(f"b => b.scrollLeft = {to}")
            shots.append(edge_strips(page.screenshot(clip=rect)))
        edges.append([*shots[0], *shots[1]])
    return edges


def measure_page(page, url: str) -> dict:
    page.goto(url)
    found = page.evaluate(BLOCKS)
    found["cues"] = scroll_cues(page, found["scrollers"])
    return found


def failures(path: str, found: dict) -> list[str]:
    """Blocks cut without a cue: a box that cuts, a scroll with no shade that moves from the
    right edge (at the start) to the left (at the end), or a page that scrolls sideways."""
    out = [f"{path}: the page itself scrolls sideways"] if found["page"] else []
    for block in found["blocks"]:
        for problem in block["problems"]:
            if "cut" in problem:
                out.append(f"{path} {block['kind']} {block['index']} ({block['text']!r}): "
                           f"cut by {problem['cut']} (overflow {problem['overflow']})")
                continue
            start_left, start_right, end_left, end_right = found["cues"][problem["scrolls"]]
            if colour_distance(start_right, end_right) < 12 or colour_distance(start_left, end_left) < 12:
                out.append(f"{path} {block['kind']} {block['index']} ({block['text']!r}): scrolls with "
                           f"no cue: right {start_right} → {end_right}, left {start_left} → {end_left}")
    return out


def article_pages(built_site, lang_root):
    return reading_pages(built_site, lang_root, "<article")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_no_output_code_or_table_is_cut_off_without_a_scroll_cue(
        browser, site_url, built_site, lang_root, width, height, scheme):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    pages = article_pages(built_site, lang_root)
    assert len(pages) >= 20
    cut, blocks, scrolling = [], 0, 0
    measured = remembered.per_page(built_site, pages, f"clipped-{width}-{scheme}",
                                   lambda path: measure_page(page, site_url + path), __file__)
    for path, found in measured.items():
        blocks += len(found["blocks"])
        scrolling += found["scrollers"]
        cut += failures(path, found)
    context.close()
    print(f"{blocks} blocks, {scrolling} scroll sideways ({lang_root or 'en'}, {width} px, {scheme})")
    assert blocks > 100
    assert cut == []


PLANTED = """<div id="planted">
  <pre id="cut"><code style="white-space: pre; overflow: hidden">weights of it: {line}</code></pre>
  <div class="cell-code highlight"><pre id="bare"><code style="background: none">{line}</code></pre></div>
  <div class="cell-code highlight"><pre id="cued"><code>{line}</code></pre></div>
  <pre id="wraps"><code style="white-space: pre-wrap; overflow-wrap: anywhere">{line}</code></pre>
</div>"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_check_catches_a_wide_output_cut_off_and_a_scroll_without_its_cue(browser, site_url, scheme):
    """Planted in a real page at 390 px: a wide printed output with overflow hidden (cut), a
    code line that scrolls with its shade removed (no cue), one with the site's shade, and
    one that wraps. The same measurement finds exactly the first two."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    page.goto(site_url + "four-steps/")
    line = " ".join(f"{0.013 * i:.3f}" for i in range(60))
    page.evaluate("html => document.querySelector('article').insertAdjacentHTML('afterbegin', html)",
                  PLANTED.format(line=line))
    found = page.evaluate(BLOCKS, page.query_selector("#planted"))
    found["cues"] = scroll_cues(page, found["scrollers"])
    context.close()
    problems = failures("planted", found)
    assert len(found["blocks"]) == 4
    assert [p.split(" ")[2] for p in problems] == ["0", "1"], problems
    assert "cut by" in problems[0] and "no cue" in problems[1]


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
    scrolling back up."""
    page.set_viewport_size({"width": 390, "height": 844})
    cut = []
    for path in article_pages(built_site, lang_root):
        page.goto(site_url + path)
        topics = page.evaluate(HEADER)
        cut += [f"{path}: {t}" for t in topics if not (t["whole"] and t["inside"])]
        assert len(topics) == 2, path
    assert cut == [], "\n".join(cut)
    page.mouse.wheel(0, 3000)
    page.wait_for_timeout(300)
    page.mouse.wheel(0, -600)
    page.wait_for_timeout(500)
    assert not page.locator(".md-top").is_visible()
