"""One terminology and Chinese punctuation in everything a Chinese reader sees.

The glossary (docs/glossary.yml) holds each chosen term with the variants rejected for it
(`reject`); no Chinese text may use a rejected variant: the pages, the snippets' Chinese
strings, the Chinese narrative of their notebooks, the claims registry, the ledger's labels
and the Chinese navigation. The Chinese strings the build makes pages from (figure captions
and alt text, the numbers tables' descriptions, the outcome sentences, the ledger) use
full-width punctuation: 结论：, not 结论: ; （…）, not (…)."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import glossary  # noqa: E402
from tools.verdicts import ledger  # noqa: E402
from tools.running import snippet_runner  # noqa: E402

HAN = r"[\u4e00-\u9fff]"


def rejected_variants() -> dict[str, str]:
    """Each rejected variant -> the chosen term."""
    return {variant: term["zh"] for term in glossary.terms()
            for variant in term.get("reject", {}).get("zh", [])}


def rejected_in(text: str, rejected: dict[str, str]) -> list[str]:
    """'variant (→ chosen)' for every rejected variant found in ``text``."""
    return [f"{variant} (→ {chosen})" for variant, chosen in rejected.items() if variant in text]


def chinese_texts() -> dict[str, str]:
    """Every Chinese text a reader sees, by where it comes from (ledger: its zh labels)."""
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in [*sorted((ROOT / "docs" / "zh").rglob("*.md")),
                       *snippet_runner.discover(),
                       *sorted((ROOT / "snippets" / "zh").rglob("*.md")),
                       ROOT / "docs" / "claims.yml", ROOT / "mkdocs.zh.yml"]}
    texts["tools/verdicts/ledger.py (zh)"] = repr(ledger.UI["zh"]) + repr([zh for _, zh in ledger.SECTIONS.values()])
    return texts


def test_no_chinese_text_uses_a_rejected_variant_of_a_term():
    rejected = rejected_variants()
    found = {where: hits for where, text in chinese_texts().items() if (hits := rejected_in(text, rejected))}
    assert found == {}


def test_the_terminology_check_finds_a_planted_variant():
    rejected = rejected_variants()
    assert rejected_in("我们在论断总表里记下了它，前一个词得分是 0.9。", rejected) == \
        ["前一个词得分 (→ 前一个词元得分)", "论断总表 (→ 论断账本)"]
    assert rejected_in("在论断账本里，前一个词元得分是 0.9。", rejected) == []


def test_every_rejected_variant_names_a_term_and_differs_from_it():
    for term in glossary.terms():
        for variant in term.get("reject", {}).get("zh", []):
            assert variant and variant != term["zh"], term["en"]


# --- full-width punctuation --------------------------------------------------------------

# A half-width comma, semicolon or colon touching Chinese, a half-width bracket opened right
# after Chinese or enclosing it (not a function's argument: v(动物), cos(头 0, 头 1)), ASCII
# quotes around Chinese, a space between Chinese and a full-width quote.
HALF_WIDTH = re.compile(
    rf"{HAN}[,;:](?!\d)|(?<![\w.])[,;:] ?{HAN}|{HAN} ?\((?![\w.,]*\))|(?<![A-Za-z])\((?=[^()]*{HAN})[^()]*\)"
    rf"|\"{HAN}[^\"]*\"|{HAN} “|” {HAN}")


def half_width_punctuation(text: str) -> list[str]:
    """The places in a Chinese string that use half-width punctuation (with some context).
    Math ($…$), inline code, HTML tags and an admonition's Markdown quotes (??? note "…")
    are left alone."""
    text = re.sub(r'^(\s*)(?:\?\?\?\+?|!!!) [\w-]+ "([^"\n]*)"', r"\1\2", text, flags=re.M)
    text = re.sub(r"\$[^$]*\$|`[^`]*`|<[^>]*>", " ", text)
    return [text[max(0, m.start() - 6):m.end() + 6] for m in HALF_WIDTH.finditer(text)]


def test_the_punctuation_check_sees_half_width_marks_in_chinese():
    assert half_width_punctuation("4 个通过, 偶然水平 12%") == ["4 个通过, 偶然水平 "]
    assert half_width_punctuation("结论: 证实") != []
    assert half_width_punctuation("独立的头 (8 个种子的平均)") != []
    assert half_width_punctuation('另加一项"拉近项"损失') != []
    assert half_width_punctuation("在 “tired” 句里") != [] and half_width_punctuation("在“tired”句里") == []
    assert half_width_punctuation("4 个通过，偶然水平 12%；独立的头（平均）；q(it)·k(动物)") == []
    assert half_width_punctuation("d_k = 1, 2, 4 时；v(动物) 与 cos(头 0, 头 1)") == []
    assert half_width_punctuation('??? note "论断原文、判定规则与实验"') == []
    assert half_width_punctuation('答案见"论断原文"') != []


def recorded_chinese_strings(results: dict) -> dict[str, str]:
    """Every Chinese string a snippet recorded for the pages: captions, alt text, number
    descriptions, outcome sentences."""
    found = {}
    for name, data in results.items():
        for key, by_lang in data.get("figures", {}).items():
            found[f"{name} figure {key} caption"] = by_lang["zh"].get("caption", "")
            found[f"{name} figure {key} alt"] = by_lang["zh"]["alt"]
        for key, number in data.get("numbers", {}).items():
            found[f"{name} number {key}"] = number.get("about", {}).get("zh", "")
        for key, text in data.get("texts", {}).items():
            found[f"{name} text {key}"] = text["zh"]
    return found


@pytest.fixture(scope="module")
def all_results(snippet_outcomes):
    from tools.running import snippet_runner

    return {name: snippet_runner.load_results(outcome) for name, outcome in snippet_outcomes.items()}


def test_chinese_captions_numbers_and_outcomes_use_full_width_punctuation(all_results):
    found = {where: hits for where, text in recorded_chinese_strings(all_results).items()
             if (hits := half_width_punctuation(text))}
    assert found == {}


def test_the_chinese_ledger_uses_full_width_punctuation(all_results):
    from tools.verdicts import claims as registry

    claims = registry.load()
    verdicts = dict.fromkeys(claims)
    where = {}
    text = ledger.page("zh", claims, verdicts, all_results, where, "sources.md", "references.md")
    prose = [line for line in text.splitlines() if re.search(HAN, line) and not line.startswith("|")]
    found = [hit for line in prose for hit in half_width_punctuation(line)]
    assert found == []


# --- the ledger's "why" names every number in words -----------------------------------

# A reference key in brackets ("(michel2019)") or a run of lower-case English words
# ("prunable share wmt"): a number of a rule the ledger had no words for.
RAW_KEY = re.compile(r"[（(][a-z]+\d{4}[a-z]?[)）]|(?<![\w.])[a-z]{3,}(?: [a-z]{3,}){2,}(?![\w.])")


def raw_keys(text: str) -> list[str]:
    return [match.group(0) for match in RAW_KEY.finditer(text)]


def test_the_raw_key_check_sees_a_number_named_by_its_key():
    assert raw_keys("max(prunable share wmt (michel2019), prunable share bert (michel2019)) 为 0.4") == \
        ["prunable share wmt", "(michel2019)", "prunable share bert", "(michel2019)"]
    assert raw_keys("max(Michel 等（2019）报告的 WMT 模型可剪比例, …) 为 0.4；"
                    "与 F.scaled_dot_product_attention 的最大差为 0") == []


def test_the_chinese_ledger_names_every_number_of_a_rule_in_words(all_results):
    from tools.verdicts import claims as registry

    claims = registry.load()
    found = {claim_id: hits for claim_id, why in ledger.reasons("zh", claims, all_results).items()
             if (hits := raw_keys(why))}
    assert found == {}


def test_the_chinese_ledgers_why_sentences_use_full_width_punctuation(all_results):
    from tools.verdicts import claims as registry

    claims = registry.load()
    found = {claim_id: hits for claim_id, why in ledger.reasons("zh", claims, all_results).items()
             if (hits := half_width_punctuation(why))}
    assert found == {}
