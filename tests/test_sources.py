"""The two source explanations are named as such on every page, and every reference to them lands
on a section of the Sources page.

On this site "seed" means a random seed and nothing else; the two Chinese texts are "the source
explanations" / 原文 (source A, source B), described on docs/<lang>/sources.md. Reads the Markdown
sources, so it runs without a build.
"""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGS = ("en", "zh")

# The sections the claims registry and the pages refer to (issue 9); each is a heading anchor.
SECTIONS = {
    "a", "a-1", "a-2", "a-3", "a-4",
    "a-heads-1", "a-heads-2", "a-heads-3", "a-heads-4", "a-summary",
    "a-why-1", "a-why-2", "a-why-3", "a-why-4",
    "b", "b-intro", "b-1", "b-2", "b-3-1", "b-3-2", "b-4", "b-conclusion",
    "b-extra-qk", "b-extra-example", "b-extra-kv", "b-extra-v", "b-extra-abstract",
}

FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
PLACEHOLDER = re.compile(r"\{\{.*?\}\}", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
ANCHOR = re.compile(r"\{:?\s*#([\w-]+)[^}]*\}")
SOURCES_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]*sources\.md)(?:#([^)\s]*))?\)")


def prose(text: str) -> str:
    """Running text: no code, no link targets, and a measured number wherever a placeholder
    stood ("{{ value head_symmetry.n_seeds }} seeds" reads as "7 seeds")."""
    text = FENCED_CODE.sub(" ", text)
    text = PLACEHOLDER.sub(" 7 ", text)
    text = INLINE_CODE.sub(" ", text)
    return LINK_TARGET.sub("]", text)


def pages(lang: str) -> list[Path]:
    return sorted((DOCS / lang).rglob("*.md"))


def line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else None].strip()[:160]


# --- English: "seed" is a random seed ----------------------------------------------------------

NUMBER = (r"(?:[1-9]\d*|0(?!\d)|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen|"
          r"twenty|thirty|hundred)")
# Words that, right before "seed(s)", make it a random seed: a count, a quantifier, or a word
# that only makes sense of a run's seed ("the same seed", "a fixed seed", "which seeds").
BEFORE = (rf"(?:random|{NUMBER}|many|several|all|both|each|every|per|other|another|more|fewer|"
          r"most|few|different|same|fixed|which|whose|single|individual|across|over|of)")
AFTER = rf"(?:{NUMBER}|dimension|axis|axes|batch|index|value|values|each)"
EN_SEED = re.compile(r"\bseeds?\b", re.I)
# ...plus a table column of seeds ("| seed |"), the word mentioned in quotes ('the word "seed"'),
# and a share of them ("75 % of the seeds").
EN_RANDOM_SEED = re.compile(
    rf"\b{BEFORE}\s+seeds?\b|\bseeds?\s+{AFTER}\b|^\|\s*seeds?\s*\||[\"“]seeds?[\"”]"
    rf"|\d\s*[%％]\s+of\s+(?:the\s+)?seeds\b", re.I | re.M)


def english_seed_positions(text: str) -> list[int]:
    """Where running English text says "seed" other than for a random seed."""
    allowed = {m.start() + s.start() for m in EN_RANDOM_SEED.finditer(text)
               for s in EN_SEED.finditer(m.group(0))}
    return [m.start() for m in EN_SEED.finditer(text) if m.start() not in allowed]


# --- Chinese: 种子 is a 随机种子 -------------------------------------------------------------------

ZH_SEED = re.compile(r"种子")
# 随机种子; a count of seeds (8 个种子, 两个种子, 每个种子, 各个种子, 多个种子, 几个种子);
# a table column of seeds (| 种子 |); the word mentioned in quotes (“种子”一词); a share (75% 的种子)
ZH_RANDOM_SEED = re.compile(
    r"随机种子|(?:\d+|[一二两三四五六七八九十百几每各多少某同])\s*个(?:随机)?种子|^\|\s*种子\s*\||“种子”"
    r"|\d\s*[%％]\s*的种子", re.M)
# Other names the Chinese pages once used for the source explanations.
ZH_OLD_NAMES = re.compile(r"中文文章|种子文章|种子句")


def chinese_seed_positions(text: str) -> list[int]:
    """Where running Chinese text says 种子 other than for a random seed, or an old name."""
    allowed = {m.start() + s.start() for m in ZH_RANDOM_SEED.finditer(text)
               for s in ZH_SEED.finditer(m.group(0))}
    found = {m.start() for m in ZH_SEED.finditer(text) if m.start() not in allowed}
    found |= {m.start() for m in ZH_OLD_NAMES.finditer(text)}
    return sorted(found)


def seed_problems(lang: str) -> list[str]:
    positions = english_seed_positions if lang == "en" else chinese_seed_positions
    problems = []
    for page in pages(lang):
        text = prose(page.read_text(encoding="utf-8"))
        problems += [f"{page.relative_to(DOCS)}: \"{line_of(text, pos)}\"" for pos in positions(text)]
    return problems


def test_no_english_page_calls_the_source_explanations_seeds():
    problems = seed_problems("en")
    assert not problems, ("'seed' means a random seed on this site; call the texts "
                          "'the source explanations' / 'source A §…' and link sources.md:\n"
                          + "\n".join(problems))


def test_no_chinese_page_calls_the_source_explanations_seeds():
    problems = seed_problems("zh")
    assert not problems, ("种子只指随机种子；那两篇文章叫“原文”“原文 A 第…节”，并链接 sources.md：\n"
                          + "\n".join(problems))


def registry_texts(lang: str):
    """Every string the ledger shows in one language: claims, rules, notes (docs/claims.yml)."""
    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == lang and isinstance(value, str):
                    yield path, value
                else:
                    yield from walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, f"{path}[{i}]")
    yield from walk(yaml.safe_load((DOCS / "claims.yml").read_text(encoding="utf-8")), "")


@pytest.mark.parametrize("lang", LANGS)
def test_the_claims_ledger_calls_the_source_explanations_by_name(lang):
    positions = english_seed_positions if lang == "en" else chinese_seed_positions
    problems = [f"docs/claims.yml {path}.{lang}: {text[:120]}"
                for path, text in registry_texts(lang) if positions(prose(text))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("text", [
    "The seed explanation pictures heads", "The seed's postscript makes", "on the seed sentence",
    "Seed 000 §1", "the seeds' claims", "not for the reason the seed gives", "Seed 004 says",
])
def test_the_english_check_flags_seed_for_a_source(text):
    assert english_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", [
    "over 8 random seeds", "two seeds each", "{{ value shared_heads.seeds }} seeds", "seed 3",
    "in every seed", "from the same seed", "| seed | loss |", "a seed dimension", "with fixed seeds",
    "computed from both seeds", 'the word "seed" only ever means', "seed 0 and seed 1",
    "in at least 75 % of the seeds",
])
def test_the_english_check_allows_random_seeds(text):
    assert not english_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", ["种子文章描绘的", "在种子句上", "两篇中文文章", "种子的说法"])
def test_the_chinese_check_flags_seed_for_a_source(text):
    assert chinese_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", ["至少 8 个随机种子", "两个种子的结果", "有多少个种子里", "至少 75% 的种子出现", "在 {{ value a.n }} 个种子里",
                                  "| 种子 | 损失 |", "每个种子"])
def test_the_chinese_check_allows_random_seeds(text):
    assert not chinese_seed_positions(prose(text)), text


# --- the Sources page and the links into it ---------------------------------------------------

def sources_page(lang: str) -> Path:
    return DOCS / lang / "sources.md"


def section_anchors(lang: str) -> set[str]:
    return set(ANCHOR.findall(sources_page(lang).read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", LANGS)
def test_the_sources_page_has_every_section_anchor(lang):
    assert sorted(SECTIONS - section_anchors(lang)) == []


def test_both_languages_have_the_same_source_sections():
    assert section_anchors("en") == section_anchors("zh")


@pytest.mark.parametrize("lang", LANGS)
def test_every_link_to_the_sources_page_lands_on_a_section(lang):
    anchors = section_anchors(lang)
    broken = []
    for page in pages(lang):
        text = page.read_text(encoding="utf-8")
        for match in SOURCES_LINK.finditer(text):
            label, target, anchor = match.groups()
            shown = " ".join(match.group(0).split())
            if (page.parent / target).resolve() != sources_page(lang).resolve():
                broken.append(f"{page.relative_to(DOCS)}: {shown} is not docs/{lang}/sources.md")
            elif anchor is not None and anchor not in anchors:
                broken.append(f"{page.relative_to(DOCS)}: {shown}: no section #{anchor}")
    assert not broken, "\n".join(broken)


CLAIM_LINK = re.compile(r"\[(C\d\d)\]\(claims\.md#(C\d\d)\)")
HEADING_ANCHOR = re.compile(r"^#{2,6}\s.*\{:?\s*#([\w-]+)[^}]*\}\s*$", re.M)


def claims_listed_per_section(lang: str) -> dict[str, set[str]]:
    """{section anchor: claim ids linked in that section's text} from the Sources page."""
    text = sources_page(lang).read_text(encoding="utf-8")
    headings = list(HEADING_ANCHOR.finditer(text))
    listed = {}
    for here, after in zip(headings, headings[1:] + [None]):
        body = text[here.end():after.start() if after else None]
        links = CLAIM_LINK.findall(body)
        assert all(shown == target for shown, target in links), f"{lang}: {here.group(0)}: {links}"
        listed[here.group(1)] = {claim for claim, _ in links}
    return listed


@pytest.mark.parametrize("lang", LANGS)
def test_each_section_lists_exactly_the_claims_the_registry_draws_from_it(lang):
    registry = yaml.safe_load((DOCS / "claims.yml").read_text(encoding="utf-8"))
    expected: dict[str, set[str]] = {}
    for claim_id, claim in registry.items():
        for section in claim.get("source", []):
            expected.setdefault(section, set()).add(claim_id)
    assert set(expected) <= SECTIONS, f"claims.yml names sections the page lacks: {set(expected) - SECTIONS}"
    listed = claims_listed_per_section(lang)
    differences = {section: {"page": sorted(listed.get(section, set())),
                             "claims.yml": sorted(expected.get(section, set()))}
                   for section in SECTIONS
                   if listed.get(section, set()) != expected.get(section, set())}
    assert differences == {}


@pytest.mark.parametrize("lang", LANGS)
def test_each_section_heading_carries_the_label_the_ledger_links_with(lang):
    """The ledger names a section "source A multi-head §1" / "原文 A 多头部分第 1 节"; the reader who
    follows that link lands on a heading that starts with the same words."""
    import ledger

    text = sources_page(lang).read_text(encoding="utf-8")
    headings = {m.group(1): m.group(0) for m in HEADING_ANCHOR.finditer(text)}
    prefix = "source " if lang == "en" else "原文 "
    wrong = []
    for anchor in ledger.SECTIONS:
        label = ledger.source_link(anchor, lang, None).removeprefix(prefix)
        heading = headings.get(anchor, "(no heading)")
        if not heading.lstrip("# ").startswith(label + " · "):
            wrong.append(f"#{anchor}: ledger says '{label}', heading is '{heading}'")
    assert not wrong, "\n".join(wrong)
