"""A broken internal link or anchor fails the strict build (mkdocs `validation:`)."""

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

from conftest import ROOT


def strict_build(tmp_path, page: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(page, encoding="utf-8")
    config = load_config(str(ROOT / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(tmp_path / "site"),
                         nav=[{"Home": "index.md"}, {"Claims": "claims.md"}, {"Glossary": "glossary.md"}],
                         strict=True)
    build(config)


@pytest.fixture(autouse=True)
def no_snippets(monkeypatch):
    monkeypatch.setenv("EXPLAINER_NO_EXEC", "1")


def test_a_sound_page_builds(tmp_path):
    strict_build(tmp_path, "# Home\n\n## Part\n\nSee [the part](#part) and [the ledger](claims.md).\n")


def test_a_link_to_a_missing_page_fails_the_build(tmp_path):
    with pytest.raises(Abort):
        strict_build(tmp_path, "# Home\n\nSee [this](no-such-page.md).\n")


def test_a_link_to_a_missing_anchor_fails_the_build(tmp_path):
    with pytest.raises(Abort):
        strict_build(tmp_path, "# Home\n\nSee [the ledger](claims.md#no-such-anchor).\n")
