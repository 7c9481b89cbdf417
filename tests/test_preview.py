"""The live preview (tools/pages/preview.py): what a change marks stale, and a page rendered
again alone is the page a full build writes. The built site (``built_site``) is asked for so
that a remembered pass is keyed on this session's pages (tests/remembered_passes.py)."""

import functools
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import preview  # noqa: E402

PAGES = {ROOT / "docs/en/four-steps.md", ROOT / "docs/zh/four-steps.md",
         ROOT / "docs/zh/many-heads/pruning.md"}


def test_a_page_edit_marks_that_page_of_its_language_stale():
    assert preview.plan({ROOT / "docs/en/four-steps.md"}, PAGES) == {"en": {"four-steps.md"}, "zh": set()}
    assert preview.plan({ROOT / "docs/zh/many-heads/pruning.md"}, PAGES) == {
        "en": set(), "zh": {"many-heads/pruning.md"}}
    assert preview.plan({ROOT / "docs/en/four-steps.md", ROOT / "docs/zh/four-steps.md"}, PAGES) == {
        "en": {"four-steps.md"}, "zh": {"four-steps.md"}}


def test_the_glossary_or_the_registry_marks_every_page_of_both_languages_stale():
    for changed in ({ROOT / "docs/glossary.yml"}, {ROOT / "docs/claims.yml"},
                    {ROOT / "docs/claims.yml", ROOT / "docs/en/four-steps.md"}):
        stale = preview.plan(changed, PAGES)
        assert stale is not None and all(preview.ALL in pages for pages in stale.values()), changed


def test_anything_else_builds_both_languages_again():
    for changed in ({ROOT / "snippets/four_steps.py"}, {ROOT / "docs/assets/explainer.css"},
                    {ROOT / "mkdocs.yml"}, {ROOT / "tools/pages/figures.py"},
                    {ROOT / "docs/en/four-steps.md", ROOT / "snippets/four_steps.py"},
                    {ROOT / "docs/en/a-page-added-since.md"},       # not seen by the last build
                    {ROOT / "docs/en/many-heads/pruning.md"}):      # not in PAGES: as if deleted
        assert preview.plan(changed, PAGES) is None, changed


def test_nothing_changed_marks_nothing_and_the_watched_files_exclude_generated_notebooks():
    assert preview.plan(set(), PAGES) == {"en": set(), "zh": set()}
    files = preview.snapshot()
    assert ROOT / "docs/en/four-steps.md" in files and ROOT / "snippets/four_steps.py" in files
    assert not any("notebooks" in path.parts for path in files)  # the build writes them


def test_a_served_path_and_a_page_url_name_the_same_page():
    for asked, url in [("/", ""), ("index.html", ""), ("/many-heads/pruning/", "many-heads/pruning/"),
                       ("many-heads/pruning/index.html", "many-heads/pruning/")]:
        assert preview._url_key(asked) == preview._url_key(url) == url.strip("/")


def test_a_served_path_is_read_as_its_language_and_its_path_there():
    assert preview.language_of("/") == ("en", "")
    assert preview.language_of("/four-steps/") == ("en", "four-steps/")
    assert preview.language_of("/zh/") == ("zh", "")
    assert preview.language_of("/zh/many-heads/pruning/index.html") == ("zh", "many-heads/pruning/index.html")
    assert preview.language_of("/zhang/") == ("en", "zhang/")


# What the two tests below exercise beyond the built site: their pass is kept under these
# sources too (tests/remembered_passes.py), so a warm make test builds nothing for them.
PREVIEW_CODE = ("tools/pages/preview.py", "tools/pages/mkdocs_hooks.py", "tools/pages/macros.py")


@pytest.fixture(scope="module")
def chinese(tmp_path_factory):
    """The Chinese pages built as make preview builds them (no snippet run: nothing recorded),
    on first use: a test whose pass is remembered does not build them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLAINER_NO_EXEC", "1")
        patch.setenv("EXPLAINER_PRINT_PAGE", "false")
        patch.setattr(preview, "PREVIEW", tmp_path_factory.mktemp("preview"))
        language = preview.Language("zh")

        @functools.cache
        def built() -> preview.Language:
            language.build()
            return language
        yield built


@pytest.mark.remembered(code=PREVIEW_CODE)
@pytest.mark.parametrize("url, source", [
    ("four-steps/", "four-steps.md"),
    ("many-heads/pruning/", "many-heads/pruning.md"),
    ("claims/", "claims.md"),      # made from docs/claims.yml
    ("glossary/", "glossary.md"),  # made from docs/glossary.yml
])
def test_a_stale_page_is_rendered_again_as_the_full_build_wrote_it(built_site, chinese, url, source):
    chinese = chinese()
    page = preview.site_dir("zh") / url / "index.html"
    full_build = page.read_bytes()
    page.unlink()
    # mkdocs loads the hooks module once for both languages: the other language's build
    # leaves its own state there. Rendering must use this language's.
    chinese.hooks._state = preview.macros.STATE = {}
    chinese.refresh_claims_and_glossary()
    chinese.stale.add(preview.ALL)
    assert chinese.render_if_stale(url)
    assert page.read_bytes() == full_build
    assert preview.ALL not in chinese.stale and source not in chinese.stale
    assert "four-steps.md" in chinese.stale or source == "four-steps.md"  # the others wait for a visit


@pytest.mark.remembered(code=PREVIEW_CODE)
def test_a_page_that_is_not_stale_is_not_rendered_again(built_site, chinese):
    chinese = chinese()
    page = preview.site_dir("zh") / "four-steps" / "index.html"
    chinese.stale.clear()
    page.write_text("kept", encoding="utf-8")
    assert not chinese.render_if_stale("four-steps/")
    assert page.read_text(encoding="utf-8") == "kept"
    chinese.stale.add("four-steps.md")
    assert chinese.render_if_stale("four-steps/index.html")
    assert page.read_text(encoding="utf-8") != "kept" and not chinese.stale
