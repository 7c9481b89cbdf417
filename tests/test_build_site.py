"""tools/pages/build_site.py leaves a site dir alone when it was built from the same inputs:
the key of those inputs changes with each thing a build reads, and only with those."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import build_site  # noqa: E402


def test_the_inputs_key_changes_with_what_a_build_reads_and_only_with_that(tmp_path, monkeypatch):
    monkeypatch.delenv("EXPLAINER_NO_EXEC", raising=False)
    files = {"docs/en/page.md": "a page", "docs/glossary.yml": "terms: []", "snippets/step.py": "x = 1",
             "snippets/notebooks/step.ipynb": "{}", "tools/pages/hooks.py": "", "mkdocs.yml": "site_name: x",
             "requirements.txt": "torch==2.13.0", "tests/test_step.py": "def test(): pass",
             "README.md": "read me", "tools/running/durations.json": '{"step": 1.0}'}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    site = tmp_path / "site"
    key = build_site.inputs_key(site, tmp_path)
    assert build_site.inputs_key(site, tmp_path) == key

    # not read by a build: tests, notes, Python's bytecode, how long the snippets took
    (tmp_path / "tests" / "test_step.py").write_text("def test(): assert True")
    (tmp_path / "tools" / "running" / "durations.json").write_text('{"step": 2.0}')
    (tmp_path / "README.md").write_text("read me again")
    (tmp_path / "tools" / "pages" / "__pycache__").mkdir()
    (tmp_path / "tools" / "pages" / "__pycache__" / "hooks.cpython-311.pyc").write_bytes(b"\0")
    assert build_site.inputs_key(site, tmp_path) == key

    def changed(name: str) -> bool:
        original = (tmp_path / name).read_text()
        (tmp_path / name).write_text(original + " changed")
        try:
            return build_site.inputs_key(site, tmp_path) != key
        finally:
            (tmp_path / name).write_text(original)

    for name in ("docs/en/page.md", "docs/glossary.yml", "snippets/step.py", "snippets/notebooks/step.ipynb",
                 "tools/pages/hooks.py", "mkdocs.yml", "requirements.txt"):
        assert changed(name), name
    assert build_site.inputs_key(site, tmp_path) == key
    (tmp_path / "docs" / "en" / "new.md").write_text("a new page")
    assert build_site.inputs_key(site, tmp_path) != key
    (tmp_path / "docs" / "en" / "new.md").unlink()
    assert build_site.inputs_key(tmp_path / "elsewhere", tmp_path) != key
    monkeypatch.setenv("EXPLAINER_NO_EXEC", "1")
    assert build_site.inputs_key(site, tmp_path) != key


def test_a_site_dir_becomes_a_copy_of_the_other_only_when_that_one_is_current(tmp_path, monkeypatch):
    """make test after make build: the tests' site dir is copied from site/ when site/ was built
    from the inputs there are now, and built anew when it was not (or was never finished)."""
    monkeypatch.setattr(build_site, "BUILT", tmp_path / "built")
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "page.md").write_text("a page")
    site, tests_site = root / "site", root / "test-site"
    for d in (site, site / "zh"):
        d.mkdir(parents=True)
        (d / "index.html").write_text(f"<p>{d.name}</p>")

    def copied() -> bool:
        return build_site.copy_of_current(tests_site, (site,), root) == site

    assert not copied()                                   # site/ carries no stamp: never finished
    build_site.BUILT.mkdir()
    build_site._stamp(site).write_text(build_site.inputs_key(site, root))
    (root / "docs" / "page.md").write_text("a page, edited after the build")
    assert not copied() and not tests_site.exists()       # built from other inputs
    (root / "docs" / "page.md").write_text("a page")
    assert copied()
    assert (tests_site / "zh" / "index.html").read_text() == "<p>zh</p>"
    assert build_site.is_current(tests_site, root)
    (site / "zh" / "index.html").unlink()
    tests_site_again = root / "test-site-2"
    assert build_site.copy_of_current(tests_site_again, (site,), root) is None   # half a site
