"""The live preview's plan: what a change rebuilds (tools/pages/preview.py)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import preview  # noqa: E402


def test_a_page_edit_rebuilds_its_language_only_and_dirty():
    assert preview.plan({ROOT / "docs/en/four-steps.md"}) == [("en", True)]
    assert preview.plan({ROOT / "docs/zh/many-heads/pruning.md"}) == [("zh", True)]
    assert preview.plan({ROOT / "docs/en/four-steps.md", ROOT / "docs/zh/four-steps.md"}) == [
        ("en", True), ("zh", True)]


def test_anything_else_rebuilds_both_languages_in_full_english_first():
    # English first: a full English build empties the preview's root, /zh/ included.
    for changed in ({ROOT / "snippets/four_steps.py"}, {ROOT / "docs/claims.yml"},
                    {ROOT / "docs/glossary.yml"}, {ROOT / "docs/assets/explainer.css"},
                    {ROOT / "docs/en/four-steps.md", ROOT / "snippets/four_steps.py"}):
        assert preview.plan(changed) == [("en", False), ("zh", False)], changed


def test_nothing_changed_builds_nothing_and_the_watched_files_exclude_generated_notebooks():
    assert preview.plan(set()) == []
    files = preview.snapshot()
    assert ROOT / "docs/en/four-steps.md" in files and ROOT / "snippets/four_steps.py" in files
    assert not any("notebooks" in path.parts for path in files)  # the build writes them
