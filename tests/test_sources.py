"""The two source explanations are named as such on every page, and every reference to them lands
on a section of the Sources page.

On this site "seed" means a random seed and nothing else; the two Chinese texts are "the source
explanations" / 原文 (source A, source B), described on docs/<lang>/sources.md. Reads the Markdown
sources, so it runs without a build.
"""

import ast
import re
import tomllib
from pathlib import Path

import pytest
import yaml

from tools.pages import page_macros

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
LINK_TARGET = re.compile(r"\]\([^)]*\)")
ANCHOR = re.compile(r"\{:?\s*#([\w-]+)[^}]*\}")
SOURCES_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]*sources\.md)(?:#([^)\s]*))?\)")


def prose(text: str) -> str:
    """Running text: no code, no link targets, and a measured number wherever a macro is
    called ("{{ value("n_seeds") }} seeds" reads as "7 seeds")."""
    text = page_macros.render(text, lambda call: " 7 ")
    text = FENCED_CODE.sub(" ", text)
    text = INLINE_CODE.sub(" ", text)
    return LINK_TARGET.sub("]", text)


def pages(lang: str) -> list[Path]:
    return sorted((DOCS / lang).rglob("*.md"))


def line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else None].strip()[:160]


# --- English: "seed" is a random seed ----------------------------------------------------------
# The pages talk about random seeds all the time ("over 8 seeds", "the lowest seed", "a seed's
# removable heads", "a leading seed dimension", "seed 3"), so the check looks for the ways the
# site used to name the source texts, not for the word itself:
#   the bare "the seed" / "the seed's" / "the seeds'" (a run's seed is "the random seed",
#   "the same seed", "each seed", "seed 3"), "seed explanation", "seed sentence", … and
#   "Seed 000" / "Seed 004" (the source files' numbers).
SOURCE_NOUNS = (r"(?:explanations?|texts?|articles?|essays?|sentences?|pairs?|examples?|claims?|"
                r"stor(?:y|ies)|postscripts?|sources?|authors?|says|argues|describes)")
EN_SEED_FOR_A_SOURCE = re.compile(
    r"\bthe\s+seed\b(?!\s+(?:dimension|axis|value|number|index|batch)\b)"
    r"|\bthe\s+seeds[’']"
    rf"|\bseeds?\s+{SOURCE_NOUNS}\b"
    r"|\bseeds?\s+0\d\d\b", re.I)


def english_seed_positions(text: str) -> list[int]:
    """Where running English text uses "seed" for a source explanation."""
    return [m.start() for m in EN_SEED_FOR_A_SOURCE.finditer(text)]


# --- Chinese: 种子 is a 随机种子 -------------------------------------------------------------------
# As in English, random seeds are everywhere (各种子的平均, 最低的种子, 种子维度, 8 个种子); the
# check looks for the names the Chinese pages once gave the source texts.
ZH_SEED_FOR_A_SOURCE = re.compile(
    r"中文文章|种子(?:文章|句|例句|讲解|原文|文本|的说法|说|认为|提到|指出|描绘|里说)")


def chinese_seed_positions(text: str) -> list[int]:
    """Where running Chinese text calls a source explanation 种子 or 中文文章."""
    return [m.start() for m in ZH_SEED_FOR_A_SOURCE.finditer(text)]


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


def _strings(table, lang: str):
    """Every text of ``lang`` in a strings file's tables: ``[key] en = …`` and the figure words
    under ``[figure_text.<lang>]`` (strings, lists of strings, tables of them)."""
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _strings(value, lang) if name != lang else _texts(value)
        elif name == lang and isinstance(value, str):
            yield value


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def snippet_labels(lang: str):
    """Every ``en=`` / ``zh=`` string a snippet passes and every text of that language in its
    strings file (number descriptions in the numbers tables, figure texts): (file, text)."""
    for path in sorted((ROOT / "snippets").rglob("*.strings.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8"))
        for text in _strings(table, lang):
            yield path.relative_to(ROOT).as_posix(), text
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        if "build" in path.relative_to(ROOT / "snippets").parts[:1]:
            continue  # pip's build copy of the package, not the checkout's
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == lang and isinstance(keyword.value, ast.Constant) \
                            and isinstance(keyword.value.value, str):
                        yield path.relative_to(ROOT).as_posix(), keyword.value.value


@pytest.mark.parametrize("lang", LANGS)
def test_no_snippet_label_calls_the_source_explanations_seeds(lang):
    """The numbers table under each page shows these labels ("… (seed sentence)" once named
    the source's sentence)."""
    positions = english_seed_positions if lang == "en" else chinese_seed_positions
    labels = list(snippet_labels(lang))
    assert len(labels) > 100, "the snippets' labels were not found"
    problems = [f"{path}: {text[:120]}" for path, text in labels if positions(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("text", [
    "The seed explanation pictures heads", "The seed's postscript makes", "on the seed sentence",
    "Seed 000 §1", "the seeds' claims", "not for the reason the seed gives", "Seed 004 says",
    "the clean story of the seed.", "On this language the seed is wrong",
])
def test_the_english_check_flags_seed_for_a_source(text):
    assert english_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", [
    "over 8 random seeds", "two seeds each", '{{ value("many_heads.duplicate_heads.shared_heads.seeds") }} seeds', "seed 3",
    "in every seed", "from the same seed", "| seed | loss |", "a seed dimension", "with fixed seeds",
    "computed from both seeds", 'the word "seed" only ever means', "seed 0 and seed 1",
    "in at least 75 % of the seeds", "| mean over seeds | lowest seed | highest seed |",
    "a leading seed dimension, so the seeds share one forward pass", "Seed $s$ of every head count",
    "Scores are means over the seeds.", "The seeds range from", "now and then a seed that stays",
    "the removable heads of a seed", "a seed's removable heads", "depends more on the random seed",
])
def test_the_english_check_allows_random_seeds(text):
    assert not english_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", ["种子文章描绘的", "在种子句上", "两篇中文文章", "种子的说法"])
def test_the_chinese_check_flags_seed_for_a_source(text):
    assert chinese_seed_positions(prose(text)), text


@pytest.mark.parametrize("text", [
    "至少 8 个随机种子", "两个种子的结果", "有多少个种子里", "至少 75% 的种子出现", "| 种子 | 损失 |",
    "每个种子", "| 各种子的平均 | 最低的种子 | 最高的种子 |", "模型的每个参数前面多一个种子维度",
    "这样的种子有 7 个", "多数种子里没有", "一个头看近处、另一个头看远处的种子数", "所有种子合起来",
])
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
    from tools.verdicts import ledger

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
