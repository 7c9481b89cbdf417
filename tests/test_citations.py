"""Every author–year citation on a page links to its entry on the references page, and every
entry on the references page is cited somewhere.

Reads the Markdown sources (docs/en, docs/zh), so it runs without a build. A citation counts as
linked when it is the text of a Markdown link to `references.md#<anchor>` (path relative to the
page) and that anchor exists; the anchor must name the cited first author and year
(`Michel et al. (2019)` → `#michel2019`).
"""

import re
import unicodedata
from pathlib import Path

import pytest

from tools.pages import page_macros

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGS = ("en", "zh")

# --- what the pages contain -------------------------------------------------------------------

FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# A heading may name a paper ("## Beside Clark et al. (2019)"); links do not belong in headings,
# and the paragraphs under it carry the linked citation.
HEADING = re.compile(r"^#{1,6}\s.*$", re.M)
# attr_list ids, as in `## Michel, Levy and Neubig (2019) {#michel2019}` or `{: #michel2019 }`
ANCHOR = re.compile(r"\{:?\s*#([\w-]+)[^}]*\}")
# a Markdown link whose target is the references page, with or without an anchor
REFERENCE_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*references\.md)(?:#([^)\s]*))?\)")

# --- what an author–year citation looks like --------------------------------------------------

NAME = r"[A-ZÀ-ÖØ-ÞŁ][\w'’-]+"          # a capitalised surname: Michel, Hatfield-Dodds, Łukasz
YEAR = r"(?:19|20)\d\d[a-z]?"
OPEN, CLOSE, COMMA = r"[(（]", r"[)）]", r"[,，]"
DATE = rf"(?:{OPEN}\s*{YEAR}\s*{CLOSE}|{YEAR})"   # "(2019)" whole, or a bare 2019
CITATION = re.compile("|".join([
    # English: "Michel et al. (2019)", "Michel et al., 2019", "Michel et al. 2019"
    rf"{NAME}\s+et\s+al\.?{COMMA}?\s*{DATE}",
    # "Koehn and Knowles, 2017", "Levy and Neubig (2019)", "Clark, Khandelwal, Levy and Manning (2019)"
    rf"{NAME}(?:{COMMA}\s*{NAME})*{COMMA}?\s+(?:and|&)\s+{NAME}{COMMA}?\s*{DATE}",
    # Chinese: "Michel 等（2019）", "Michel 等，2019", "Clark 等人 2019", "Kornblith 等人（2019）"
    rf"{NAME}\s*等人?\s*{COMMA}?\s*{DATE}",
    # "Koehn 和 Knowles，2017", "Clark、Khandelwal、Levy 和 Manning（2019）"
    rf"{NAME}(?:\s*[、,，]\s*{NAME})*\s*和\s*{NAME}\s*{COMMA}?\s*{DATE}",
    # one author, either language: "Shazeer (2019)", "Shazeer（2019）"
    rf"{NAME}\s*{OPEN}\s*{YEAR}\s*{CLOSE}",
    # in parentheses: "(Shazeer, 2019)", "（multi-query attention，Shazeer，2019）", "; Shazeer, 2019",
    # "（Michel、Levy、Neubig，2019）"
    rf"(?<=[(（;；,，])\s*{NAME}(?:\s*[、,，]\s*{NAME})*\s*{COMMA}\s*{YEAR}",
]))


def prose(text: str) -> str:
    """The page's text without macro calls, code, comments and headings."""
    text = page_macros.render(text, lambda call: " ")
    for pattern in (FENCED_CODE, HTML_COMMENT, INLINE_CODE, HEADING):
        text = pattern.sub(" ", text)
    return text


def ascii_lower(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()


def references_page(lang: str) -> Path:
    return DOCS / lang / "references.md"


def reference_anchors(lang: str) -> set[str]:
    return set(ANCHOR.findall(references_page(lang).read_text(encoding="utf-8")))


def pages(lang: str) -> list[Path]:
    return sorted(p for p in (DOCS / lang).rglob("*.md") if p != references_page(lang))


def citation_problems(page: Path, lang: str, anchors: set[str]) -> tuple[list[str], set[str]]:
    """(problems, anchors cited) for one page."""
    where = page.relative_to(DOCS)
    text = prose(page.read_text(encoding="utf-8"))
    problems, cited = [], set()

    def check_link(match: re.Match) -> str:
        label, target, anchor = match.group(1), match.group(2), match.group(3) or ""
        shown = " ".join(match.group(0).split())
        if (page.parent / target).resolve() != references_page(lang).resolve():
            problems.append(f"{where}: {shown} does not point at docs/{lang}/references.md")
        elif not anchor and not CITATION.search(label):
            pass  # a link to the references page as a whole, not a citation
        elif anchor not in anchors:
            problems.append(f"{where}: {shown} points at #{anchor or '(no anchor)'}, "
                            f"which is not an entry of the references page")
        else:
            cited.add(anchor)
            author = re.search(NAME, label)
            year = re.search(YEAR, label)
            if author and not anchor.startswith(ascii_lower(author.group(0))):
                problems.append(f"{where}: {shown} names {author.group(0)} but links #{anchor}")
            if year and not anchor.endswith(year.group(0)):
                problems.append(f"{where}: {shown} gives {year.group(0)} but links #{anchor}")
        return " "  # a linked citation is done; what is left must not look like one

    rest = REFERENCE_LINK.sub(check_link, text)
    for match in CITATION.finditer(rest):
        shown = " ".join(match.group(0).split())
        problems.append(f"{where}: '{shown}' is an author–year citation without a link "
                        f"to its entry on the references page")
    return problems, cited


@pytest.mark.parametrize("lang", LANGS)
def test_every_author_year_citation_links_to_its_reference_entry(lang):
    anchors = reference_anchors(lang)
    problems = []
    for page in pages(lang):
        problems += citation_problems(page, lang, anchors)[0]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_reference_entry_is_cited_on_some_page(lang):
    anchors = reference_anchors(lang)
    cited = set()
    for page in pages(lang):
        cited |= citation_problems(page, lang, anchors)[1]
    uncited = sorted(anchors - cited)
    assert not uncited, f"docs/{lang}/references.md lists {uncited}, which no page cites"


def test_both_languages_list_the_same_references():
    assert reference_anchors("en") == reference_anchors("zh")


@pytest.mark.parametrize("text", [
    "Michel et al. (2019) removed heads", "as (Koehn and Knowles, 2017) found",
    "Clark, Khandelwal, Levy and Manning (2019) measured", "(Vaswani et al.,\n2017, footnote 4)",
    "Michel 等（2019）把", "（Koehn 和 Knowles，2017）", "Clark 等人 2019", "（Shazeer，2019）",
    "Clark、Khandelwal、Levy 和 Manning（2019）", "Shazeer (2019) proposed",
    "（Michel、Levy、Neubig，2019）", "（multi-query attention，Shazeer，2019）",
])
def test_the_citation_pattern_recognises_the_forms_the_pages_use(text):
    assert CITATION.search(text), text


@pytest.mark.parametrize("text", [
    "newstest2013", "WMT 2014 English–French", "layer 6 (2019 rows)", "NeurIPS 2019",
    "heads 5-4", "Table 3 (A)",
])
def test_the_citation_pattern_leaves_other_years_alone(text):
    assert not CITATION.search(text), text


def test_every_paper_the_ledger_cites_has_a_reference_entry():
    """Literature evidence in docs/claims.yml names its paper by a references-page anchor."""
    import yaml

    registry = yaml.safe_load((DOCS / "claims.yml").read_text(encoding="utf-8"))
    cited = {(claim_id, experiment["reference"])
             for claim_id, claim in registry.items()
             for experiment in claim.get("experiments") or [] if "reference" in experiment}
    for lang in LANGS:
        anchors = reference_anchors(lang)
        missing = sorted(f"{claim_id}: #{key}" for claim_id, key in cited if key not in anchors)
        assert not missing, f"docs/{lang}/references.md lacks {missing}"
