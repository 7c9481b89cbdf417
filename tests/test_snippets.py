"""Every snippet, discovered: it records numbers (never verdicts), draws bilingual figures, has a
test of its own and a page in both languages. A new snippet is picked up here
without touching this file."""

import re
from pathlib import Path

import pytest

import snippet_runner

ROOT = Path(__file__).resolve().parent.parent
NAMES = [path.stem for path in snippet_runner.discover()]
CJK = re.compile(r"[\u4e00-\u9fff]")


def pages_showing(name: str, lang: str) -> list[str]:
    pattern = re.compile(r"\{\{\s*code\s+" + re.escape(name) + r"\s*\}\}")
    docs = ROOT / "docs" / lang
    return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
                  if pattern.search(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", NAMES)
def test_snippet_records_numbers_and_picks_no_verdict(results, name):
    # Verdicts come from the rules in docs/claims.yml (tools/claims.py), never from the snippet.
    source = (ROOT / "snippets" / f"{name}.py").read_text(encoding="utf-8")
    assert "report.claim(" not in source, f"snippets/{name}.py picks a verdict itself"
    assert results(name).data.get("claims", []) == []
    assert results(name).data["numbers"] or results(name).data.get("data")


@pytest.mark.parametrize("name", NAMES)
def test_snippet_figures_exist_in_both_languages_with_alt_text(results, name):
    r = results(name)
    for key, by_lang in r.data["figures"].items():
        assert set(by_lang) == {"en", "zh"}, key
        assert CJK.search(by_lang["zh"]["alt"]), f"{key}: Chinese alt text expected"
        for lang in ("en", "zh"):
            svg = (r.dir / by_lang[lang]["file"]).read_text(encoding="utf-8")
            assert svg.startswith("<?xml") and "<svg" in svg


@pytest.mark.parametrize("name", NAMES)
def test_snippet_has_a_test_that_asserts_what_it_shows(name):
    test_file = ROOT / "tests" / "snippets" / f"test_{name}.py"
    assert test_file.is_file(), f"write {test_file.relative_to(ROOT)}"
    source = test_file.read_text(encoding="utf-8")
    assert re.search(r"def test_\w+\(", source) and f'results("{name}")' in source


@pytest.mark.parametrize("name", NAMES)
def test_snippet_is_shown_on_one_page_in_each_language(name):
    en, zh = pages_showing(name, "en"), pages_showing(name, "zh")
    assert len(en) == 1, f"{{{{ code {name} }}}} should appear on exactly one English page, found {en}"
    assert en == zh, f"English page {en} and Chinese page {zh} should be twins"
