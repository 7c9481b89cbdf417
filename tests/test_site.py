"""The built site: both languages complete, links intact, numbers filled in, ledger complete."""

import json
import re
import sys
from html import unescape as html_unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import page_macros  # noqa: E402
from tools.pages.static_host import own_bytes  # noqa: E402

CLAIMS = yaml.safe_load((ROOT / "docs" / "claims.yml").read_text(encoding="utf-8"))


class ConfigLoader(yaml.SafeLoader):
    pass


ConfigLoader.add_constructor("!ENV", lambda loader, node: None)


def nav_of(config: str) -> list:
    return yaml.load((ROOT / config).read_text(encoding="utf-8"), Loader=ConfigLoader)["nav"]


def flatten(nav) -> list[tuple[str, str]]:
    """(title, file) pairs; sections appear with file ''."""
    pairs = []
    for entry in nav:
        for title, target in entry.items():
            if isinstance(target, list):
                pairs.append((title, ""))
                pairs.extend(flatten(target))
            else:
                pairs.append((title, target))
    return pairs


def test_every_page_has_its_twin_in_the_other_language():
    en = {p.relative_to(ROOT / "docs" / "en") for p in (ROOT / "docs" / "en").rglob("*.md")}
    zh = {p.relative_to(ROOT / "docs" / "zh") for p in (ROOT / "docs" / "zh").rglob("*.md")}
    assert en - zh == set(), "English pages without a Chinese twin"
    assert zh - en == set(), "Chinese pages without an English twin"


def test_navigation_is_the_same_in_both_languages_and_translated():
    en, zh = flatten(nav_of("mkdocs.yml")), flatten(nav_of("mkdocs.zh.yml"))
    assert [file for _, file in en] == [file for _, file in zh]
    for (en_title, file), (zh_title, _) in zip(en, zh):
        assert en_title != zh_title, f"nav title of {file or 'a section'} is not translated"


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name) and not (tag == "link" and attrs.get("rel") == "alternate"):
                self.links.append(attrs[name])


def parse(html_file: Path) -> Links:
    parser = Links()
    parser.feed(html_file.read_text(encoding="utf-8"))
    return parser


def test_internal_links_and_anchors_resolve(built_site):
    # The print page (mkdocs-print-site) re-points every link of every page at its own
    # sections; links to pages it leaves out (notebook views) or with query strings (the
    # explorer) have no target there. The pages themselves, checked here, are the source.
    pages = sorted(p for p in built_site.rglob("*.html") if "print_page" not in p.parts)
    parsed = {page: parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:", "data:")):
                continue
            base = built_site if parts.path.startswith("/") else page.parent  # 404.html is absolute
            target = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(built_site)} -> {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(built_site)} -> {link} (no such anchor)")
    assert broken == []


def test_pages_load_nothing_from_other_origins(built_site):
    external = []
    for page in built_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html):
            if tag.startswith("<link") and re.search(r'rel="(alternate|canonical)"', tag):
                continue
            if re.search(r'(?:src|href)="(?:https?:)?//', tag):
                external.append(f"{page.relative_to(built_site)}: {tag}")
    assert external == []


def test_no_macro_is_left_unrendered(built_site):
    leftovers = [str(p.relative_to(built_site)) for p in built_site.rglob("*.html")
                 if any(f"{{{{ {name}(" in p.read_text(encoding="utf-8") for name in page_macros.MACROS)]
    assert leftovers == []


BADGE = re.compile(r'<div class="claim-badge">\s*<p><a href="([^"#]*)#(C\d\d)">C\d\d\b.*?</a>\s*'
                   r'<span class="verdict verdict--(\w+)">', re.S)


def index_rows(html: str) -> dict[str, dict[str, str]]:
    """The ledger's overview table: each claim's cells (HTML), by their column's name."""
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        cells = dict(re.findall(r'<td data-label="([^"]+)">(.*?)</td>', row, re.S))
        claim = re.match(r'\s*<a href="#(C\d\d)">', next(iter(cells.values()), ""))
        if claim:
            rows[claim.group(1)] = cells
    return rows


def ledger_verdicts(html: str) -> dict[str, str]:
    """The verdict of each ledger entry: the first verdict badge after the entry's heading."""
    verdicts = {}
    for claim_id, rest in re.findall(r'<h2 id="(C\d\d)">.*?</h2>(.*?)(?=<h2 id="C\d\d"|</article>)', html, re.S):
        verdicts[claim_id] = re.search(r'class="verdict verdict--(\w+)"', rest).group(1)
    return verdicts


def test_the_ledger_shows_what_the_rules_give_on_the_recorded_numbers(built_site, snippet_outcomes):
    # The verdict on the page is the rule's on this build's numbers (or nuanced where
    # resampling the seeds leaves it undecided), recomputed here from results.json.
    from tools.verdicts import claims as registry
    from tools.running import snippet_runner

    results = {name: snippet_runner.load_results(o) for name, o in snippet_outcomes.items()}
    expected = {claim_id: a.verdict for claim_id, a in registry.assess(results).items()}
    for lang_root in ("", "zh/"):
        html = (built_site / lang_root / "claims" / "index.html").read_text(encoding="utf-8")
        assert ledger_verdicts(html) == expected, lang_root


def test_every_claim_has_one_verdict_the_same_on_the_ledger_and_every_page(built_site):
    for lang_root in ("", "zh/"):
        html = (built_site / lang_root / "claims" / "index.html").read_text(encoding="utf-8")
        verdicts = ledger_verdicts(html)
        assert list(verdicts) == list(CLAIMS), f"{lang_root}claims: one entry per claim, in order"
        assert set(verdicts.values()) <= {"verified", "nuanced", "refuted", "open"}
        column = "Verdict" if lang_root == "" else "结论"
        index = {claim_id: re.search(r'class="verdict verdict--(\w+)"', cells[column]).group(1)
                 for claim_id, cells in index_rows(html).items()}
        assert index == verdicts, "the ledger's index disagrees with its entries"
        for claim_id in CLAIMS:  # each entry links its source sections
            entry = html.split(f'<h2 id="{claim_id}">', 1)[1].split("<h2", 1)[0]
            if (ROOT / "docs" / "en" / "sources.md").is_file():
                assert 'href="../sources/#' in entry, f"{lang_root}claims: {claim_id} has no source link"
        shown = 0
        for page in (built_site / lang_root).rglob("*.html"):
            if lang_root == "" and "zh" in page.relative_to(built_site).parts[:1]:
                continue
            for _, claim_id, verdict in BADGE.findall(page.read_text(encoding="utf-8")):
                shown += 1
                assert verdict == verdicts[claim_id], f"{page}: {claim_id} shown as {verdict}"
        assert shown >= 10, "content pages should show the verdicts of the claims they test"


WHY = {"": re.compile(r'<span class="claim-why">Why:</span>\s*(?:The|No|On)\b'),
       "zh/": re.compile(r'<span class="claim-why">为什么：</span>\s*(?:规则|还没有|按记录)')}


def test_the_ledger_and_every_verdict_badge_say_why_in_the_pages_language(built_site, snippet_outcomes):
    # The sentence itself is checked against the rules in tests/test_claims.py; here: it is
    # on every ledger card and on every badge of every content page, in that page's language,
    # and the ledger's overview gives each claim its because, its source sections, the pages
    # that test it (or the papers it is decided from) and its stability.
    from tools.verdicts import claims as registry
    from tools.verdicts import ledger
    from tools.running import snippet_runner

    results = {name: snippet_runner.load_results(o) for name, o in snippet_outcomes.items()}
    assessments = registry.assess(results)
    for lang_root, lang in (("", "en"), ("zh/", "zh")):
        reasons = ledger.reasons(lang, registry.load(), results, assessments)
        html = (built_site / lang_root / "claims" / "index.html").read_text(encoding="utf-8")
        for claim_id in CLAIMS:
            entry = html.split(f'<h2 id="{claim_id}">', 1)[1].split('<details', 1)[0]
            assert WHY[lang_root].search(entry), f"{lang_root}claims: {claim_id} does not say why"
            # The sentence shows as written (its *verdict* in italics), before the folded details.
            plain = html_unescape(re.sub(r"<[^>]+>", "", entry))
            assert re.sub(r"\*", "", reasons[claim_id])[:60] in plain, f"{lang_root}claims: {claim_id}"
        header = re.search(r'<div class="ledger-index">.*?<thead>(.*?)</thead>', html, re.S).group(1)
        columns = re.findall(r"<th>(.*?)</th>", header)
        assert columns == ([ledger.UI[lang][k] for k in ("index", "verdict", "because", "source", "tested_on", "stability")])
        rows = index_rows(html)
        assert list(rows) == list(CLAIMS)
        becauses = ledger.becauses(lang, registry.load(), results, assessments)
        for claim_id, entry in CLAIMS.items():
            cells = {columns.index(name): cell for name, cell in rows[claim_id].items()}
            assert list(cells) == list(range(6)), f"{lang_root}claims: {claim_id}'s row lacks a cell"
            because, source, tested = (html_unescape(re.sub(r"<[^>]+>", "", cells[i])) for i in (2, 3, 4))
            # The clause is the verdict's deciding comparison, as ledger.becauses builds it.
            assert re.sub(r"\*", "", becauses[claim_id])[:50] in because, f"{lang_root}claims: {claim_id}"
            assert 'href="../sources/#' in cells[3] and source[:1] in "AB", f"{lang_root}claims: {claim_id}"
            if any(e.get("snippet") for e in entry.get("experiments") or []):
                assert "<a href=" in cells[4], f"{lang_root}claims: {claim_id} names no page"
            if any(e.get("kind") == "literature" for e in entry.get("experiments") or []):
                # a claim decided from papers says so, with the papers
                assert ledger.UI[lang]["literature"].split("{")[0] in tested, f"{lang_root}claims: {claim_id}"
                assert 'href="../references/#' in cells[4], f"{lang_root}claims: {claim_id}"
            assert tested != "—" or not entry.get("experiments"), f"{lang_root}claims: {claim_id}"
        assert 'class="ledger-filter"' in html and html.count("data-verdict=") >= len(CLAIMS)
        badges = 0
        for page in (built_site / lang_root).rglob("*.html"):
            parts = page.relative_to(built_site / lang_root).parts
            if (lang_root == "" and parts[0] == "zh") or parts[0] in ("claims", "print_page"):
                continue
            text = page.read_text(encoding="utf-8")
            for badge in re.findall(r'<div class="claim-badge">(.*?)</div>', text, re.S):
                badges += 1
                assert WHY[lang_root].search(badge), f"{page}: a verdict badge without its why"
        assert badges >= 10


def test_a_card_quotes_no_number_its_page_does_not_show(built_site):
    # A claim whose rule reads experiments on two pages (C08: one-head-or-many and
    # a-head-for-it) gives its reasons, with their numbers, only where every experiment the
    # rule reads is cited; elsewhere its why points to the other page and to the ledger.
    from tools.verdicts import claims as registry
    from tools.verdicts import ledger

    claims = registry.load()
    pointed = 0
    for lang, lang_root in (("en", ""), ("zh", "zh/")):
        for source in sorted((ROOT / "docs" / lang).rglob("*.md")):
            text = source.read_text(encoding="utf-8")
            cited = {c.snippet for c in page_macros.calls(text) if c.snippet}
            rel = source.relative_to(ROOT / "docs" / lang).with_suffix("")
            html_file = built_site / lang_root / (rel.parent if rel.name == "index" else rel) / "index.html"
            if not cited or not html_file.is_file():
                continue
            html = html_file.read_text(encoding="utf-8")
            for claim_id, why in re.findall(r'<div class="claim-badge">\s*<p><a href="[^"#]*#(C\d\d)">'
                                            r'.*?<span class="claim-why">[^<]*</span>(.*?)</div>', html, re.S):
                reads = ledger.rule_snippets(claims[claim_id])
                points = (ledger.ALSO_READS[lang].split("{")[0].lower()
                          in html_unescape(re.sub(r"<[^>]+>", "", why)).lower())
                pointed += points
                assert points == bool(reads - cited), (f"{lang_root}{rel}: {claim_id}'s why reads "
                                                       f"{sorted(reads - cited)} the page does not cite")
    assert pointed >= 2, "C08 and C07 on a-head-for-it point to the other page in each language"


def test_chinese_search_index_is_segmented_and_searchable(built_site):
    index = json.loads((built_site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert "zh" in index["config"]["lang"]
    assert "\\u200b" in index["config"]["separator"]
    assert sum("\u200b注意力\u200b" in doc["text"] for doc in index["docs"]) >= 3


def cited(page: Path) -> set[tuple]:
    """What a page cites: whole scripts, figures, numbers, claims lists and data, by full name."""
    return {(c.kind, c.snippet, c.key) for c in page_macros.calls(page.read_text(encoding="utf-8"))
            if c.kind in ("code", "figure", "value", "choose", "claims", "data") and not (c.kind == "code" and c.key)}


def test_twins_cite_the_same_snippets_figures_and_numbers():
    drift = []
    for en_page in sorted((ROOT / "docs" / "en").rglob("*.md")):
        page = en_page.relative_to(ROOT / "docs" / "en")
        zh_page = ROOT / "docs" / "zh" / page
        if not zh_page.is_file():
            continue  # reported by the parity test
        en, zh = cited(en_page), cited(zh_page)
        if en != zh:
            drift.append(f"{page}: only in en {sorted(en - zh)}, only in zh {sorted(zh - en)}")
    assert drift == []


def test_translations_behind_their_twin_are_flagged_on_the_page(built_site):
    import warnings

    from tools.contributing import translation_status

    for item in translation_status.translations_behind():
        warnings.warn(f"translation behind: docs/{item.lang}/{item.page} "
                      f"({len(item.commits)} commit(s) on docs/{item.twin_lang}/{item.page})")
        html_dir = Path(item.page[:-3]) if not item.page.endswith("index.md") else Path(item.page).parent
        html = built_site / ("zh" if item.lang == "zh" else "") / html_dir / "index.html"
        notice = "本页可能落后于英文版" if item.lang == "zh" else "may be behind the Chinese version"
        assert notice in html.read_text(encoding="utf-8"), f"{html} carries no notice"


PAGE_BUDGET_BYTES = 300 * 1024


def test_every_page_stays_within_its_weight_budget(built_site):
    # The print page is the whole site on one page by design (for printing and the PDF).
    weights = {str(p.relative_to(built_site)): own_bytes(p) for p in built_site.rglob("*.html")
               if "print_page" not in p.parts}
    heavy = {page: size // 1024 for page, size in weights.items() if size > PAGE_BUDGET_BYTES}
    assert heavy == {}, f"pages over {PAGE_BUDGET_BYTES // 1024} KB (KB): {heavy}"


def test_whitespace_only_commits_do_not_put_a_translation_behind():
    from tools.contributing import translation_status

    if not translation_status._git("rev-parse", "--verify", "--quiet", "ce0b7bd^{commit}"):
        pytest.skip("history not available (shallow clone)")
    # ce0b7bd re-wrapped the Chinese lines of four-steps.md; ddaf874 wrote the gradients page.
    assert not translation_status._changes_text("ce0b7bd", "docs/zh/four-steps.md")
    assert translation_status._changes_text("ddaf874", "docs/zh/three-roles/gradients.md")


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_the_search_index_has_formulas_as_text_not_tex(built_site, lang_root):
    """Search previews show the index's text: a formula is there as √dₖ, not as KaTeX's
    glyphs followed by its TeX ("divided by 8\\sqrt 88")."""
    from test_pdf import raw_tex

    index = json.loads((built_site / lang_root / "search" / "search_index.json").read_text(encoding="utf-8"))
    found = [f"{doc['location']}: {fragment!r}" for doc in index["docs"]
             for fragment in raw_tex(doc["title"] + " " + doc["text"])]
    assert found == [], f"{len(found)} TeX fragments in the search index: {found[:5]}"
    assert any("√dₖ" in doc["text"] for doc in index["docs"]), "the formulas are missing from the index"
