"""Numbers that read as Chinese once filled in: a share of heads, seeds or sentences is a
percent (平均能剪掉 36% 的头, not 0.36 的头), a count is a whole number (1 个字段, not 1.00 个;
从 0 到 6 个, not 从 0.0 到 6.0 个), zero is 0 (not 0.0e+00) and never negative.

Each ``{{ value(…) }}`` of every Chinese page is filled with the text the build shows
(snippets/explainer/report.py formats every number once per language, by its kind)."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "snippets"))
from tools.pages import numbers_table, page_macros  # noqa: E402
from explainer.report import formatted  # noqa: E402

DECIMAL = re.compile(r"^[-−]?\d[\d,]*\.\d+$")
# A measure word after a number makes it a count of things.
COUNTED = re.compile(r"^\s*(个|层|组|次|句|窝|步|维|对|种|份)")
# Where the prose takes a part of a whole: 剪掉 X 的头, 仍有 X 说对, X 的种子 …
SHARE_BEFORE = re.compile(r"(剪掉|去掉|剪去|用掉|仍有|仍然有)\s*$")
SHARE_AFTER = re.compile(r"^\s*的(头|种子|句子|训练|层|词)")
SCIENTIFIC_ZERO = re.compile(r"^-?0(\.0*)?e[+-]?0+$")
NEGATIVE_ZERO = re.compile(r"^[-−]0(\.0*)?(e[+-]?\d+)?%?$")


def is_average(key: str, number: dict, before: str) -> bool:
    """A mean or median count may have decimals (平均 2.6 个)."""
    return (number.get("of") in ("mean", "std") or re.search(r"mean|median", key) is not None
            or re.search(r"平均|中位数", before) is not None)


def badly_written_numbers(markdown: str, results: dict) -> list[str]:
    """'snippet.key: "text" in …context…' for every filled number a Chinese reader would
    stumble on."""
    found = []
    for call in page_macros.with_options(page_macros.calls(markdown)):   # a choose's options' numbers too
        if call.kind != "value":
            continue
        name, key = call.snippet, call.key
        number = results.get(name, {}).get("numbers", {}).get(key)
        if number is None:
            continue  # the build reports a missing number itself
        text = numbers_table.shown(number, "zh")
        before = call.before.replace(page_macros.MARK, "X")[-20:]  # another call: X
        after = call.after[:12].split("\n")[0]
        where = f"{name}.{key}: {text!r} in …{before}[{text}]{after}…"
        # The lowest or highest of per-seed counts (whole numbers, not all 0 or 1 like accuracies)
        per_seed = number.get("per_seed") or []
        counted_spread = (number.get("of") in ("min", "max") and any(v > 1 for v in per_seed)
                          and all(float(v).is_integer() for v in per_seed))
        if DECIMAL.match(text) and ((COUNTED.match(after) and not is_average(key, number, before))
                                    or counted_spread):
            found.append("a count with decimals: " + where)
        elif DECIMAL.match(text) and 0 <= number["value"] <= 1 and (SHARE_BEFORE.search(before)
                                                                    or SHARE_AFTER.match(after)):
            found.append("a share as a bare decimal: " + where)
        elif SCIENTIFIC_ZERO.match(text) or NEGATIVE_ZERO.match(text):
            found.append("a zero written as " + where)
    return found


def test_the_check_finds_planted_numbers_that_read_badly():
    def number(value, text, **more):
        return {"value": value, "text": text, **more}
    results = {"demo": {"numbers": {
        "share": number(0.36, "0.36"), "fields": number(1.0, "1.00"), "fields_per_view": number(1.0, "1.00"),
        "low": number(0.0, "0.0", of="min", per_seed=[3.0, 0.0, 6.0]),
        "zero": number(0.0, "0.0e+00"), "tiny": number(-1e-6, "-0.0000"),
        "fields_mean": number(1.83, "1.83", of="mean", per_seed=[1.5, 2.16]),
        "weight": number(0.88, "0.88"), "accuracy_min": number(1.0, "1.000", of="min", per_seed=[1.0, 1.0])}}}
    page = ('---\nsnippet: demo\n---\n\n平均能剪掉 {{ value("share") }} 的头。仍然有 {{ value("share") }} 说对了动物。'
            '每个问题只涉及 {{ value("fields_per_view") }} 个字段，从 {{ value("low") }} 到 6 个。'
            '最大差 {{ value("zero") }}，只变动 {{ value("tiny") }}。')
    found = badly_written_numbers(page, results)
    assert [f.split(":")[0] for f in found] == ["a share as a bare decimal"] * 2 + ["a count with decimals"] * 2 \
        + ["a zero written as demo.zero", "a zero written as demo.tiny"]
    # most snippets live in a chapter: their names have dots (many_heads.pruning)
    assert [f.split(":")[0] for f in badly_written_numbers(
        '平均能剪掉 {{ value("chapter.page.share") }} 的头。', {"chapter.page": results["demo"]})] == ["a share as a bare decimal"]
    fine = ('平均填了 {{ value("demo.fields") }} 个字段，中位数 {{ value("demo.fields_mean") }} 个；'
            '*it* 把 {{ value("demo.weight") }} 的注意力给了 *animal*。最低的种子 {{ value("demo.accuracy_min") }}。')
    assert badly_written_numbers(fine, results) == []


def test_the_formatter_writes_each_kind_as_its_readers_expect():
    assert formatted(0.36, "{:.2f}", "share") == {"en": "36%", "zh": "36%"}
    assert formatted(6.0, "{:.1f}", "count")["zh"] == "6"
    assert formatted(1000.0, "{:.0f}", "count") == {"en": "1,000", "zh": "1000"}
    assert formatted(12345.0, "{:,.0f}", "count") == {"en": "12,345", "zh": "12,345"}
    assert formatted(22_713_216, kind="params") == {"en": "22.7 million", "zh": "约 2271 万"}
    assert formatted(0.0, "{:.1e}")["zh"] == "0"
    assert formatted(-3e-6, "{:.4f}")["zh"] == "0.0000"
    assert formatted(-2.0, "{:.1f}")["zh"] == "-2.0"
    with pytest.raises(ValueError):
        formatted(2.5, kind="count")


@pytest.fixture(scope="module")
def all_results(snippet_outcomes):
    from tools.running import snippet_runner

    return {name: snippet_runner.load_results(outcome) for name, outcome in snippet_outcomes.items()}


def test_every_number_on_a_chinese_page_reads_as_chinese(all_results):
    found = {str(p.relative_to(ROOT)): hits for p in sorted((ROOT / "docs" / "zh").rglob("*.md"))
             if (hits := badly_written_numbers(p.read_text(encoding="utf-8"), all_results))}
    assert found == {}
