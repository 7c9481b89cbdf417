"""A path for learners: every chapter opens with a map, every content page ends with a
summary and exercises whose answers the build computes, and the pages that use the parts of
a Transformer block link to the page that introduces them.

These read the page sources and the nav; no snippet runs here.
"""

import re
import unicodedata
from pathlib import Path

import pytest
import yaml

from tools.pages import page_macros
from tools.pages import page_meta  # the checkout (conftest puts it on the path): the pages the build makes

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TESTS = ROOT / "tests" / "snippets"
LANGS = {"en": "mkdocs.yml", "zh": "mkdocs.zh.yml"}
HEADINGS = {
    "en": {"map": "The pages", "summary": "Summary", "exercises": "Exercises",
           "answer": "Answer (from the run)"},
    "zh": {"map": "本章各页", "summary": "小结", "exercises": "练习",
           "answer": "答案（由运行结果给出）"},
}
SNIPPETS = ROOT / "snippets"
LINK = re.compile(r"\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)")


class ConfigLoader(yaml.SafeLoader):
    pass


ConfigLoader.add_constructor("!ENV", lambda loader, node: None)


def chapters(config: str) -> dict[str, list[str]]:
    """Each nav section -> the files of its pages, in nav order."""
    nav = yaml.load((ROOT / config).read_text(encoding="utf-8"), Loader=ConfigLoader)["nav"]
    sections = {}
    for entry in nav:
        for title, target in (entry.items() if isinstance(entry, dict) else [(None, entry)]):
            if isinstance(target, list):
                sections[title] = [next(iter(e.values())) if isinstance(e, dict) else e for e in target]
    return sections


def section(text: str, heading: str) -> str:
    """The body of the level-2 section ``## heading`` (up to the next level-2 heading)."""
    match = re.search(rf"^## {re.escape(heading)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def content_pages(lang: str) -> list[Path]:
    """Pages that run a snippet: they call ``{{ code(…) }}``. The home page is
    not one: its snippet only draws the site's overview picture, there is nothing to practise."""
    home = DOCS / lang / "index.md"
    return sorted(p for p in (DOCS / lang).rglob("*.md")
                  if p != home and any(c.kind == "code" for c in page_macros.calls(p.read_text(encoding="utf-8"))))


def page_id(path: Path) -> str:
    return "/".join(path.parts[-3:])


# --- chapter openings -----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_chapter_opens_with_a_page_that_maps_its_pages_in_nav_order(lang):
    sections = chapters(LANGS[lang])
    assert sections, "the nav has no chapters"
    for title, files in sections.items():
        folder = files[0].split("/")[0]
        assert files[0] == f"{folder}/index.md", \
            f"{lang}: chapter '{title}' should open with {folder}/index.md, not {files[0]}"
        opening = DOCS / lang / folder / "index.md"
        assert opening.is_file(), f"{lang}: {folder}/index.md is missing"
        pages = [f.split("/", 1)[1] for f in files[1:]]
        on_disk = sorted(p.name for p in (DOCS / lang / folder).glob("*.md") if p.name != "index.md")
        assert sorted(pages) == on_disk, f"{lang}: pages of {folder}/ and its nav section differ"
        text = opening.read_text(encoding="utf-8")
        page_map = section(text, HEADINGS[lang]["map"])
        assert page_map, f"{lang}: {folder}/index.md has no '## {HEADINGS[lang]['map']}' section"
        listed = [link for link in LINK.findall(page_map) if "/" not in link]
        assert listed == pages, f"{lang}: the map of {folder}/index.md lists {listed}, the nav {pages}"
        items = re.findall(r"^\d+\. \[[^\]]+\]\([^)]+\)[:：] ?\S", page_map, re.M)
        assert len(items) == len(pages), f"{lang}: {folder}/index.md: one numbered line per page"


@pytest.mark.parametrize("lang", LANGS)
def test_every_chapter_opening_says_what_it_assumes_with_links(lang):
    for files in chapters(LANGS[lang]).values():
        text = (DOCS / lang / files[0]).read_text(encoding="utf-8")
        before_map = text.split(f"## {HEADINGS[lang]['map']}")[0]
        assumed = [link for link in LINK.findall(before_map) if link.startswith("../")]
        assert assumed, f"{lang}: {files[0]} links no page it builds on before its map"
        for link in assumed:  # a page of docs/, or one the build makes (the ledger, the glossary)
            target = (DOCS / lang / files[0]).parent.joinpath(link).resolve()
            made = target.relative_to((DOCS / lang).resolve()).as_posix() in page_meta.MADE_FROM
            assert target.is_file() or made, link


# --- one reading order: the menu, Next/Previous and the home page's "Start here" -----------

START_HERE = {"en": "Start here", "zh": "从这里开始"}
START_BUTTON = re.compile(r"^\[[^\]]+\]\(([^)\s]+\.md)\)\{[^}]*\bmd-button--primary\b[^}]*\}", re.M)


def nav_pages(config: str) -> list[str]:
    """Every page of the nav, in order: the order of the menu and of Next/Previous."""
    def walk(entries):
        for entry in entries:
            for target in (entry.values() if isinstance(entry, dict) else [entry]):
                yield from (walk(target) if isinstance(target, list) else [target])
    nav = yaml.load((ROOT / config).read_text(encoding="utf-8"), Loader=ConfigLoader)["nav"]
    return list(walk(nav))


def reading_order_problems(nav: list[str], start_here: list[str], button: str | None) -> list[str]:
    """Where the home page's list and start button disagree with the nav's order: the list's
    first page must be the home page's Next, its pages must come in nav order, and every page
    from the first to the end of the last listed chapter must be listed or inside a listed
    chapter (else Next leads to a page the list skips)."""
    problems = []
    if not start_here:
        return ["the home page has no 'Start here' list"]
    missing = [page for page in start_here if page not in nav]
    if missing:
        return [f"listed but not in the nav: {missing}"]
    if nav.index(start_here[0]) != nav.index("index.md") + 1:
        problems.append(f"the home page's Next is {nav[nav.index('index.md') + 1]}, "
                        f"the list starts with {start_here[0]}")
    if button != start_here[0]:
        problems.append(f"the start button goes to {button}, the list starts with {start_here[0]}")
    positions = [nav.index(page) for page in start_here]
    if positions != sorted(positions):
        problems.append(f"the list's order {start_here} is not the nav's")
    chapters = {page.rsplit("/", 1)[0] + "/" for page in start_here if page.endswith("/index.md")}
    last = max(i for i, page in enumerate(nav)
               if page in start_here or any(page.startswith(c) for c in chapters))
    skipped = [page for page in nav[positions[0]:last + 1]
               if page not in start_here and not any(page.startswith(c) for c in chapters)]
    if skipped:
        problems.append(f"Next leads through pages the list skips: {skipped}")
    return problems


def home_reading_list(lang: str) -> tuple[list[str], str | None]:
    text = (DOCS / lang / "index.md").read_text(encoding="utf-8")
    items = re.findall(r"^\d+\. \*\*\[[^\]]+\]\(([^)\s#]+\.md)\)", section(text, START_HERE[lang]), re.M)
    button = START_BUTTON.search(text.split(f"## {START_HERE[lang]}")[0])
    return items, button.group(1) if button else None


@pytest.mark.parametrize("lang", LANGS)
def test_the_menu_next_and_start_here_give_one_reading_order(lang):
    start_here, button = home_reading_list(lang)
    assert reading_order_problems(nav_pages(LANGS[lang]), start_here, button) == []


NAV = ["index.md", "a.md", "b.md", "ch/index.md", "ch/x.md", "ch/y.md", "sources.md", "claims.md"]


@pytest.mark.parametrize("start_here, button", [
    (["a.md", "b.md", "ch/index.md"], "a.md"),
])
def test_the_reading_order_check_accepts_a_list_that_follows_the_nav(start_here, button):
    assert reading_order_problems(NAV, start_here, button) == []


@pytest.mark.parametrize("start_here, button", [
    (["a.md", "ch/index.md"], "a.md"),                   # Next from a.md goes to b.md, not listed
    (["b.md", "ch/index.md"], "b.md"),                   # Home's Next is a.md
    (["a.md", "ch/index.md", "b.md"], "a.md"),           # out of nav order
    (["a.md", "b.md", "ch/x.md"], "a.md"),               # ch/y.md follows and is not listed
    (["a.md", "b.md", "ch/index.md"], "b.md"),           # the button goes elsewhere
    (["a.md", "b.md", "ch/index.md"], None),             # no start button
])
def test_the_reading_order_check_flags_a_list_the_nav_does_not_follow(start_here, button):
    assert reading_order_problems(NAV, start_here, button)


# --- summary and exercises on every content page --------------------------------------

def exercises(text: str, lang: str) -> list[tuple[str, str]]:
    """(question, folded answer) for each numbered exercise of the Exercises section."""
    body = section(text, HEADINGS[lang]["exercises"])
    items = re.split(r"^\d+\. ", body, flags=re.M)[1:]
    pairs = []
    for item in items:
        question, _, answer = item.partition(f'??? note "{HEADINGS[lang]["answer"]}"')
        pairs.append((question, answer if answer.startswith("\n") else ""))
    return pairs


def summary_problems(page: Path, lang: str) -> list[str]:
    text = page.read_text(encoding="utf-8")
    snippet = page_macros.front_matter(text)[1].get("snippet")
    summary = section(text, HEADINGS[lang]["summary"])
    if not summary.strip():
        return [f"{page_id(page)}: no '## {HEADINGS[lang]['summary']}' section"]
    problems = []
    if not page_macros.values(summary, snippet):
        problems.append(f"{page_id(page)}: its summary cites no measured number")
    exercises_at = text.find(f"## {HEADINGS[lang]['exercises']}")
    if 0 <= exercises_at < text.index(f"## {HEADINGS[lang]['summary']}"):
        problems.append(f"{page_id(page)}: the summary comes after the exercises")
    return problems


def exercise_problems(page: Path, lang: str) -> list[str]:
    text = page.read_text(encoding="utf-8")
    snippet = page_macros.front_matter(text)[1].get("snippet")
    found = exercises(text, lang)
    if len(found) < 2:
        return [f"{page_id(page)}: {len(found)} exercises, at least 2 expected"]
    problems = []
    for n, (question, answer) in enumerate(found, 1):
        folded = [line for line in answer.splitlines() if line.strip()]
        keys = [key for _, key in page_macros.values(answer, snippet)]
        if not question.strip():
            problems.append(f"{page_id(page)}: exercise {n} has no question")
        elif not folded:
            problems.append(f"{page_id(page)}: exercise {n} has no folded answer")
        elif not all(line.startswith("        ") for line in folded):
            problems.append(f"{page_id(page)}: exercise {n}: the answer must be indented inside its fold")
        elif not any(key.startswith("exercise_") for key in keys):
            problems.append(f"{page_id(page)}: exercise {n}'s answer shows no exercise_* number from the run")
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_every_content_page_has_a_summary_with_measured_numbers(lang):
    problems = [p for page in content_pages(lang) for p in summary_problems(page, lang)]
    assert not problems, "\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_content_page_has_two_exercises_answered_by_the_run(lang):
    problems = [p for page in content_pages(lang) for p in exercise_problems(page, lang)]
    assert not problems, "\n" + "\n".join(problems)


def test_a_page_and_its_snippets_share_a_place_and_so_do_their_tests():
    """docs/en/many-heads/a-head-for-it.md shows snippets/many_heads/a_head_for_it.py (or the
    snippets in snippets/many_heads/a_head_for_it/), tested by tests/snippets/many_heads/..."""
    shown = {}
    for page in sorted((DOCS / "en").rglob("*.md")):
        for name in page_macros.listings(page.read_text(encoding="utf-8")):
            shown[name] = page.relative_to(DOCS / "en").with_suffix("").as_posix()
    assert shown
    misplaced = []
    for name, page in shown.items():
        place = name.replace(".", "/")
        own = place.replace("_", "-") == page or place.rpartition("/")[0].replace("_", "-") == page
        script = SNIPPETS / f"{place}.py"
        test = TESTS / place.rpartition("/")[0] / f"test_{place.rpartition('/')[2]}.py"
        if not (own and script.is_file() and test.is_file()):
            misplaced.append(f"docs/en/{page}.md shows {name}: expected at snippets/"
                             f"{page.replace('-', '_')}.py (or in snippets/{page.replace('-', '_')}/), "
                             f"tested by {test.relative_to(ROOT)}")
    assert misplaced == []


def test_every_exercise_number_a_page_shows_is_asserted_by_a_snippet_test():
    tests = {path: path.read_text(encoding="utf-8") for path in TESTS.rglob("test_*.py")}
    shown = {(snippet, key) for lang in LANGS for page in content_pages(lang)
             for snippet, key in page_macros.values(page.read_text(encoding="utf-8"))
             if key.startswith("exercise_")}
    assert shown
    unasserted = sorted(f"{snippet}.{key}" for snippet, key in shown
                        if not any(re.search(rf"""number\(\s*["']{key}["']\s*\)""", text)
                                   for text in tests.values()))
    assert unasserted == [], f"exercise answers no test asserts: {unasserted}"


# --- the pages that use the block's parts link to it ------------------------------------

BLOCK = "transformer-block.md"
PARTS = {  # part of the block -> (how a page names it, per language), section of the block page
    "positions": ({"en": r"position(al)? (embedding|encoding)|learned positions",
                   "zh": r"位置(嵌入|编码|信息)"}, "attention-alone-ignores-order"),
    "mask": ({"en": r"\bmask(ed|ing)?\b", "zh": r"掩码"}, "the-causal-mask-no-looking-ahead"),
    "residual": ({"en": r"\bresidual", "zh": r"残差"}, "residual-path-and-layer-norm"),
    "layer norm": ({"en": r"layer[ -]?norm", "zh": r"层归一化|LayerNorm"}, "residual-path-and-layer-norm"),
    "MLP": ({"en": r"\bMLP\b|feed-forward", "zh": r"MLP|前馈"}, "the-mlp-works-on-each-position-alone"),
}
USERS = ["three-roles/translation.md", "many-heads/division-of-labour.md"]


def prose(text: str) -> str:
    """The page without code blocks, macro calls and link targets (where a word is not prose)."""
    text = page_macros.render(text, lambda call: "")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"\]\([^)]*\)", "]", text)


def anchors_of(text: str) -> set[str]:
    """Ids of a page's headings: explicit ``{ #id }`` or Python-Markdown's slug of the text."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        explicit = re.search(r"\{ ?#([\w-]+) ?\}", heading)
        if explicit:
            anchors.add(explicit.group(1))
            continue
        ascii_text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
        anchors.add(re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()))
    return anchors


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", USERS)
def test_pages_that_use_the_parts_of_a_block_link_to_where_they_are_introduced(lang, page):
    text = (DOCS / lang / page).read_text(encoding="utf-8")
    links = set(re.findall(rf"\]\(\.\./{re.escape(BLOCK)}#([\w-]+)\)", text))
    block_page = (DOCS / lang / BLOCK).read_text(encoding="utf-8")
    used = [part for part, (names, _) in PARTS.items() if re.search(names[lang], prose(text), re.I)]
    assert used, f"{lang}/{page} names none of the block's parts"
    for part in used:
        anchor = PARTS[part][1]
        assert anchor in links, f"{lang}/{page} uses the {part} but does not link to {BLOCK}#{anchor}"
        assert anchor in anchors_of(block_page), f"{lang}/{BLOCK} has no section #{anchor}"
