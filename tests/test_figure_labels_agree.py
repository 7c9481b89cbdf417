"""A figure's labels, its caption and the page's prose agree (issue 37): a label formatted
from a recorded number shows that number's recorded text, so a reader who meets the same
key in the prose (``{{ value("key") }}``) and in the figure reads the same number.

A snippet names the keys a label shows in the label's gid, ``value:key1,key2``; Matplotlib
writes it as the id of the label's group in the SVG, and the label's text as comments in it
(``svg.fonttype: path`` draws the glyphs as paths)."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tools.pages import page_macros

ROOT = Path(__file__).resolve().parent.parent
LANG_DOCS = {"en": ROOT / "docs" / "en", "zh": ROOT / "docs" / "zh"}


def labels_with_keys(svg: str) -> list[tuple[list[str], str]]:
    """Each label that names its keys: (the keys, the label's text, its lines joined by a space)."""
    tree = ET.fromstring(svg, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    out = []
    for group in tree.iter():
        gid = group.get("id", "") if isinstance(group.tag, str) else ""
        if gid.startswith("value:"):
            text = " ".join(c.text.strip() for c in group.iter() if c.tag is ET.Comment)
            out.append((gid.removeprefix("value:").split(","), text))
    return out


def shows(text: str, number: str) -> bool:
    """``number`` (as recorded, e.g. 23, 0.67, 30%) stands whole in ``text``."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text) is not None


def disagreements(svg: str, numbers: dict, lang: str, where: str) -> list[str]:
    out = []
    for keys, text in labels_with_keys(svg):
        for key in keys:
            if key not in numbers:
                out.append(f"{where}: label {text!r} names {key}, which its snippet does not record")
            elif not shows(text, numbers[key]["texts"][lang]):
                out.append(f"{where}: label {text!r} should show {key} = {numbers[key]['texts'][lang]}")
    return out


def figures_on_pages(lang: str) -> list[tuple[str, str, str, set[str]]]:
    """(page, snippet, figure key, keys of that snippet the page cites) for every figure placed."""
    out = []
    for md in sorted(LANG_DOCS[lang].rglob("*.md")):
        calls = page_macros.calls(md.read_text(encoding="utf-8"))
        for figure in (c for c in calls if c.kind == "figure"):
            cited = {c.key for c in calls if c.kind == "value" and c.snippet == figure.snippet}
            out.append((md.relative_to(ROOT).as_posix(), figure.snippet, figure.key, cited))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_figure_label_shows_the_recorded_number_the_prose_cites(results, lang):
    failing, labelled, shared = [], 0, set()
    for page, snippet, figure, cited in figures_on_pages(lang):
        got = results(snippet)
        svg = (got.dir / got.data["figures"][figure][lang]["file"]).read_text(encoding="utf-8")
        labels = labels_with_keys(svg)
        labelled += len(labels)
        shared |= {(page, key) for keys, _ in labels for key in keys if key in cited}
        failing += disagreements(svg, got.data["numbers"], lang, f"{page} {snippet}.{figure}")
    print(f"{lang}: {labelled} labels name their keys; {len(shared)} keys shared with the prose")
    assert labelled >= 10
    assert any(page.endswith("head-roles.md") for page, _ in shared)
    assert failing == []


def test_a_label_that_disagrees_with_its_recorded_key_is_caught(results):
    """Planted: the control panel of head-roles' content figure reads one head more than
    the count it names (the prose's disambiguation_control_heads)."""
    got = results("real_model.head_roles.roles")
    numbers = got.data["numbers"]
    svg = (got.dir / got.data["figures"]["roles_content"]["en"]["file"]).read_text(encoding="utf-8")
    assert disagreements(svg, numbers, "en", "real") == []
    count = numbers["disambiguation_control_heads"]["texts"]["en"]
    start = svg.index('id="value:disambiguation_control_heads')
    planted = svg[:start] + svg[start:].replace(f"heads passing: {count}",
                                                f"heads passing: {int(count) + 1}", 1)
    found = disagreements(planted, numbers, "en", "planted")
    assert len(found) == 1 and "disambiguation_control_heads" in found[0], found


def test_a_number_stands_whole_in_a_label():
    assert shows("heads passing: 23, chance 30%", "23") and shows("chance 30%", "30%")
    assert not shows("heads passing: 123", "23") and not shows("chance 7.5%", "5%")
    assert not shows("weight 0.67", "0.6") and not shows("chance 17%", "7%")
