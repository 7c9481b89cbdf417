"""Pages a reader can read: what the build must never produce (a value turned into a
list, raw TeX in titles, a build machine's paths, notebooks in search, line breaks
inside Chinese paragraphs), checked on the sources and on the built site."""

import json
import re
import sys
import tempfile
import types
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import markdown
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import glossary, page_macros  # noqa: E402

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# A line that starts a new block (not the continuation of a paragraph); so does a line that
# starts with a figure, code, claims or claim macro (block_macro_lines).
BLOCK_START = re.compile(r"\s*(#|[-*+] |\d+[.)] |\||>|!!!|\?\?\?|\$\$|```|"
                         r"<(figure|div|details|table|p|template)\b)")
BLOCK_MACROS = ("figure", "code", "claims", "claim")


def block_macro_lines(text: str) -> set[int]:
    """Line numbers (1-based) of lines that start with a macro drawing a block."""
    return {c.line for c in page_macros.calls(text) if c.kind in BLOCK_MACROS and not c.before.strip()}


def chinese_line_breaks(text: str) -> list[int]:
    """Line numbers (1-based) of lines that continue a paragraph holding Chinese on a new
    line. Markdown renders that line break as a space, which Chinese text must not have."""
    breaks, fence, math = [], False, False
    lines, blocks = text.splitlines(), block_macro_lines(text)
    for i, (line, following) in enumerate(zip(lines, lines[1:])):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
        if stripped == "$$":
            math = not math
        if fence or math or not stripped or not following.strip():
            continue
        # An admonition's title line ("??? note \"答案\"") is followed by its indented body, not
        # by the rest of a paragraph.
        if BLOCK_START.match(following) or i + 2 in blocks or i + 1 in blocks \
                or stripped.startswith(("|", "#", "```", "$$", "!!!", "???")):
            continue
        if CJK.search(line) and CJK.search(following):
            breaks.append(i + 2)
    return breaks


def test_no_chinese_paragraph_has_a_line_break_inside():
    found = {str(p.relative_to(ROOT)): chinese_line_breaks(p.read_text(encoding="utf-8"))
             for p in sorted((ROOT / "docs" / "zh").rglob("*.md"))}
    found = {page: lines for page, lines in found.items() if lines}
    total = sum(len(lines) for lines in found.values())
    assert found == {}, f"{total} line breaks inside Chinese paragraphs (page: lines): {found}"


def test_the_line_break_check_sees_a_break_and_accepts_one_line_paragraphs():
    assert chinese_line_breaks("第一句话，\n第二句话。\n") == [2]
    assert chinese_line_breaks("第一段。\n\n第二段。\n- 列表\n- 列表\n") == []
    assert chinese_line_breaks('??? note "答案"\n    折叠起来的答案。\n') == []


ADMONITION_TITLE = re.compile(r'^\s*(!!!|\?\?\?\+?)\s*\w+(\s+[\w-]+)*(\s+"[^"]*")?\s*$')


def admonitions_with_text_on_their_title_line(text: str) -> list[int]:
    """Line numbers of admonitions ("!!! note \"Title\" body…") whose body sits on the title
    line: Markdown then shows the whole line as raw text."""
    return [i for i, line in enumerate(text.splitlines(), 1)
            if line.lstrip().startswith(("!!!", "???")) and not ADMONITION_TITLE.match(line)]


def test_no_admonition_carries_text_after_its_title():
    found = {str(p.relative_to(ROOT)): admonitions_with_text_on_their_title_line(p.read_text(encoding="utf-8"))
             for lang in ("en", "zh") for p in sorted((ROOT / "docs" / lang).rglob("*.md"))}
    assert {page: lines for page, lines in found.items() if lines} == {}


def test_the_admonition_check_sees_a_body_on_the_title_line():
    assert admonitions_with_text_on_their_title_line('!!! note "标题" 正文。\n') == [1]
    assert admonitions_with_text_on_their_title_line('!!! note "标题"\n\n    正文。\n') == []
    assert admonitions_with_text_on_their_title_line('??? note "答案"\n    答案。\n!!! tip\n') == []


# --- a value never starts a list ----------------------------------------------------------

class FakeFile:
    src_uri = "demo.md"


class FakePage:
    file, url = FakeFile(), "demo/"

    def __init__(self):
        self.meta = {}


@pytest.fixture
def hooks(tmp_path):
    from tools.pages import mkdocs_hooks

    saved = dict(mkdocs_hooks._state)
    mkdocs_hooks._state.update(
        lang="en", ui=mkdocs_hooks.UI["en"], behind={}, last_changed={},
        snippets={"demo": tmp_path / "demo.py"},
        results={"demo": {"numbers": {"heads": {"value": 16.0, "text": "16",
                                                "about": {"en": "heads", "zh": "头数"}}},
                          "categories": {"share": "most"},
                          "figures": {}, "claims": [], "_dir": tmp_path}})
    yield mkdocs_hooks
    mkdocs_hooks._state.clear()
    mkdocs_hooks._state.update(saved)


def rendered(page: str) -> str:
    """The page's Markdown as the build makes it: the hooks, then the macros as
    mkdocs-macros-plugin renders them (its pre- and post-page functions around Jinja)."""
    from tools.pages import macros, mkdocs_hooks

    functions = {}
    env = types.SimpleNamespace(page=FakePage(), markdown=page, macro=lambda f, name: functions.update({name: f}))
    macros.define_env(env)
    macros.on_pre_page_macros(env)
    env.markdown = jinja2.Environment(**page_macros.JINJA).from_string(env.markdown).render(functions)
    macros.on_post_page_macros(env)
    return mkdocs_hooks.on_page_markdown(env.markdown, env.page, None, None)


def test_a_value_at_the_start_of_a_line_never_becomes_a_list_item(hooks):
    page = 'Of the model\'s heads, all but\n{{ value("demo.heads") }}. Then the score drops.\n'
    html = markdown.markdown(rendered(page), extensions=["pymdownx.details", "tables"])
    assert "<ol" not in html and "<li" not in html
    assert "16. Then the score drops." in html


def test_the_page_ends_with_a_table_of_its_numbers_not_a_dump(hooks):
    page = '# Demo\n\nWe count {{ value("demo.heads") }} heads.\n'
    html = markdown.markdown(rendered(page), extensions=["pymdownx.details", "tables"])
    assert "The numbers on this page" in html
    assert "<td><code>demo.heads</code></td>" in html and "<td>heads</td>" in html
    assert "demo.output.txt" in html


def test_choose_shows_the_option_the_run_recorded_with_its_numbers(hooks):
    page = ('# Demo\n\nDo they? {{ choose("demo.share", most="In most seeds, yes: {{ value(\'demo.heads\') }} heads.", '
            'few="In most seeds, no.") }} Then more.\n')
    text = rendered(page)
    assert "Do they? In most seeds, yes: 16 heads. Then more." in text and "no." not in text.split("Then")[0]
    assert "<code>demo.heads</code>" in markdown.markdown(text, extensions=["pymdownx.details", "tables"])   # tabled


def test_choose_fails_the_build_when_the_page_has_no_option_for_the_run(hooks):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=r"demo\.md.*choose.*demo\.share.*'most'.*half, few"):
        rendered('{{ choose("demo.share", half="In half.", few="In few.") }}\n')


@pytest.mark.parametrize("marks", [1, 3])
def test_the_build_fails_when_jinja_renders_other_calls_than_the_page_was_read_with(hooks, marks):
    from mkdocs.exceptions import PluginError
    from tools.pages import macros

    env = types.SimpleNamespace(page=FakePage(), markdown='{{ value("demo.heads") }}, {{ value("demo.heads") }}\n')
    macros.on_pre_page_macros(env)
    env.markdown = page_macros.MARK * marks
    with pytest.raises(PluginError, match=rf"demo\.md: {marks} of the page's 2 macros rendered"):
        macros.on_post_page_macros(env)


def test_a_call_the_build_cannot_render_fails_it_naming_page_and_call(hooks):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=r'demo\.md: \{\{ value\("demo\.tails"\) \}\}: .*recorded no number \'tails\''):
        rendered('{{ value("demo.heads") }} and {{ value("demo.tails") }}\n')


# --- on the built site -------------------------------------------------------------------

def article_pages(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("index.html"))
            if not {"notebooks", "search", "print_page"} & set(p.parts)]


def test_no_built_file_holds_a_path_of_the_build_machine(built_site):
    private = [str(ROOT), tempfile.gettempdir() + "/", ".cache/snippets"]
    leaks = []
    for path in sorted(built_site.rglob("*")):
        if not path.is_file() or path.suffix in (".woff2", ".png", ".gz", ".ico"):
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        leaks += [f"{path.relative_to(built_site)}: {place}" for place in private if place in text]
    assert leaks == []


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_search_covers_the_articles_of_its_own_language_only(built_site, lang_root):
    index = json.loads((built_site / lang_root / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert not [loc for loc in locations if loc.startswith("notebooks/")], "notebook pages are indexed"
    assert not [d["location"] for d in index["docs"] if "Copied!" in d["text"] or "import torch" in d["text"]], \
        "code listings are indexed"
    assert {"", "four-steps/", "three-roles/scaling/"} <= locations
    titles = [doc["title"] for doc in index["docs"] if doc["location"] in ("", "four-steps/")]
    assert all(bool(CJK.search(title)) == (lang_root == "zh/") for title in titles), titles


def tex_in_search_index(index: dict) -> list[str]:
    """Each indexed section's title or text that carries TeX (what a search preview shows)."""
    from test_pdf import raw_tex

    return [f"{doc['location']}: {fragment!r}" for doc in index["docs"]
            for fragment in raw_tex(doc["title"] + " \n " + doc["text"])]


def test_the_search_index_check_finds_tex():
    index = {"docs": [{"location": "three-roles/scaling/", "title": "Why divide by √dₖ",
                       "text": "divided by 8\\sqrt 88, the scores"},
                      {"location": "three-roles/gradients/", "title": "e^{\\text{gap}}", "text": "plain"},
                      {"location": "four-steps/", "title": "Self-attention", "text": "softmax(QKᵀ/√dₖ)V"}]}
    assert [found.split(":")[0] for found in tex_in_search_index(index)] == \
        ["three-roles/scaling/", "three-roles/gradients/", "three-roles/gradients/"]


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_search_index_holds_formulas_as_text_not_tex(built_site, lang_root):
    """Search previews show the index's text: a formula there must read as text (issue 22)."""
    index = json.loads((built_site / lang_root / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert len(index["docs"]) > 100
    found = tex_in_search_index(index)
    assert found == [], f"{len(found)} TeX fragments in the search index: {found[:5]}"


class Titles(HTMLParser):
    """Text of headings, nav links and <title>, and every tooltip (title attribute)."""

    WATCHED = {"h1", "h2", "h3", "h4", "h5", "h6", "title"}

    def __init__(self):
        super().__init__()
        self.texts, self.stack, self.hidden = [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("title") and tag in ("abbr", "span", "a"):
            self.texts.append(("tooltip", attrs["title"]))
        if "katex-mathml" in (attrs.get("class") or ""):
            self.hidden += 1  # KaTeX's MathML copy holds the TeX source; readers see the HTML
        elif self.hidden:
            self.hidden += tag != "br"
        self.stack.append(tag if tag in self.WATCHED or "md-nav__link" in (attrs.get("class") or "")
                          else None)

    def handle_endtag(self, tag):
        if self.hidden:
            self.hidden -= 1
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not self.hidden and any(self.stack) and data.strip():
            self.texts.append(("text", data.strip()))


RAW_TEX = re.compile(r"\b[A-Za-z]_[A-Za-z{]|\\(?:sqrt|frac|text)\b|\$[^$]+\$")


def test_headings_nav_and_tooltips_show_no_raw_tex(built_site):
    raw = []
    for page in article_pages(built_site):
        parser = Titles()
        parser.feed(page.read_text(encoding="utf-8"))
        raw += [f"{page.relative_to(built_site)}: {kind} {text!r}" for kind, text in parser.texts
                if RAW_TEX.search(text)]
    assert sorted(set(raw)) == []


def test_the_output_matrix_is_written_one_way():
    """W^O, as in "Attention Is All You Need"; not W_O on one page and W^O on the next."""
    pages = [*(ROOT / "docs").rglob("*.md"), ROOT / "docs" / "glossary.yml"]
    # code is apart: an identifier cannot be written W^O (`cross.W_O.weight`)
    prose = {p: re.sub(r"```.*?```|`[^`\n]*`", "", p.read_text(encoding="utf-8"), flags=re.S) for p in pages}
    other = [f"{p.relative_to(ROOT)}" for p, text in prose.items() if re.search(r"W_\{?O\b", text)]
    assert other == []


def test_chinese_headings_have_readable_anchors_and_a_chinese_permalink_title(built_site):
    html = (built_site / "zh" / "three-roles" / "scaling" / "index.html").read_text(encoding="utf-8")
    anchors = re.findall(r'<h2 id="([^"]+)"', html)
    assert anchors and not [a for a in anchors if re.fullmatch(r"_\d*", a)], anchors
    assert any(CJK.search(a) for a in anchors)
    assert 'title="本节链接"' in html and "Permanent link" not in html


def test_no_table_on_an_article_has_a_blank_cell(built_site):
    blank = []
    for page in article_pages(built_site):
        if page.parent.name == "claims":
            continue  # the ledger's own layout
        html = page.read_text(encoding="utf-8")
        for table in re.findall(r"<table>.*?</table>", html, re.S):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)
            if any(not re.sub(r"<[^>]+>", "", c).strip() for c in cells):
                blank.append(str(page.relative_to(built_site)))
    assert sorted(set(blank)) == []


def pages_with_tooltip(site: Path, lang_root: str, definition: str) -> int:
    marker = f'<abbr title="{definition}">'
    pages = [p for p in article_pages(site / lang_root) if not (lang_root == "" and "zh" in p.parts)]
    return sum(marker in p.read_text(encoding="utf-8") for p in pages
               if p.parent.name not in ("glossary",))


@pytest.mark.parametrize("term", ["Key", "attention head", "Query"])
def test_chinese_pages_get_as_many_hover_definitions_as_english_ones(built_site, term):
    import html

    entry = next(t for t in glossary.terms() if t["en"] == term)
    en = pages_with_tooltip(built_site, "", html.escape(entry["define"]["en"], quote=True))
    zh = pages_with_tooltip(built_site, "zh/", html.escape(entry["define"]["zh"], quote=True))
    assert en >= 3 and zh >= 0.75 * en, f"{term}: {en} English pages, {zh} Chinese pages"


def test_glossary_exclusions_keep_short_chinese_terms_out_of_longer_words():
    key = next(t for t in glossary.terms() if t["en"] == "Key")
    find = glossary.matcher(key, "zh")
    assert find("这是关键的一步") is None
    assert find("关键在于键和查询").group(0) == "键"


def test_a_glossary_term_never_fires_inside_a_key_name_or_in_another_sense():
    key = next(t for t in glossary.terms() if t["en"] == "Key")
    find = glossary.matcher(key, "zh")
    assert find("先按 Tab 键移到词元上") is None and find("按Enter键") is None
    assert find("用方向键移动") is None
    assert find("按 Tab 键，再看它的键").start() == 12
    scaling = glossary.matcher(next(t for t in glossary.terms() if t["en"].startswith("scaling")), "zh")
    assert scaling("把向量缩放到单位长度") is None
    assert scaling("把每个词元的向量缩放到均值为 0") is None
    assert scaling("经过缩放和 softmax") and scaling("缩放后的分数在各个维度")
    head = glossary.matcher(next(t for t in glossary.terms() if t["en"] == "attention head"), "zh")
    assert head("结果两头都抓不住") is None  # 两头: both sides, not two heads
    assert head("两头都抓不住，换成两个头").start() == 11
