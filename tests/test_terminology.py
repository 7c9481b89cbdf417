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
    texts["tools/verdicts/ledger.py (zh)"] = (repr(ledger.UI["zh"]) + repr(ledger.WHY["zh"])
                                              + repr([zh for _, zh in ledger.SECTIONS.values()]))
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


def test_one_name_per_concept_the_review_found_named_twice():
    """参与率 is 参与比; a drop in accuracy is not a 损失 (the training loss); 最大差 and
    打破对称 each have one spelling (Chinese review of 2 December 2026)."""
    rejected = rejected_variants()
    assert rejected_in("键的参与率是 3.1，准确率损失 0.3，最大差异为 0，打破平局的是噪声。", rejected) == \
        ["参与率 (→ 参与比)", "准确率损失 (→ 准确率下降)", "最大差异 (→ 最大差)", "打破平局 (→ 打破对称)"]
    assert rejected_in("键的参与比是 3.1，准确率下降 0.3，最大差为 0，打破对称的是噪声。", rejected) == []


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


def why_texts(lang: str, results: dict) -> dict[str, str]:
    """Each claim's "why" (its card) and "because" (the table's clause) on this build's numbers."""
    from tools.verdicts import claims as registry

    claims = registry.load()
    assessments = registry.assess(results, claims)
    texts = {f"{c} why": why for c, why in ledger.reasons(lang, claims, results, assessments).items()}
    texts.update({f"{c} because": text for c, text in ledger.becauses(lang, claims, results, assessments).items()})
    return texts


def test_the_chinese_ledger_names_every_number_of_a_rule_in_words(all_results):
    found = {where: hits for where, why in why_texts("zh", all_results).items() if (hits := raw_keys(why))}
    assert found == {}


def test_the_chinese_ledgers_why_sentences_use_full_width_punctuation(all_results):
    found = {where: hits for where, why in why_texts("zh", all_results).items()
             if (hits := half_width_punctuation(why))}
    assert found == {}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_ledgers_why_names_each_case_once_and_puts_no_brackets_in_brackets(all_results, lang):
    """On this build's numbers, with the names the snippets recorded (the checks themselves are
    tested on the old sentences in tests/test_claims.py)."""
    from test_claims import nested_brackets, repeated_cases

    found = {where: repeated_cases(text, lang) + nested_brackets(text)
             for where, text in why_texts(lang, all_results).items()}
    assert {where: hits for where, hits in found.items() if hits} == {}
