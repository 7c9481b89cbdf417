"""A remembered browser measurement (or a browser test's pass) is reused only for exactly what it
measured."""

from pathlib import Path

import remembered
import remembered_passes


def small_site(root):
    """Two pages, a figure each, the theme's script, and the search index."""
    for page, figure in (("a", "fa.svg"), ("b", "fb.svg")):
        (root / page).mkdir(parents=True)
        (root / page / "index.html").write_text(
            f'<html><link rel="stylesheet" href="../css/site.css"><img src="../figures/{figure}">'
            f'<a href="../b/">b</a><img src="https://example.org/x.png"></html>')
    (root / "figures").mkdir()
    (root / "figures" / "fa.svg").write_text("<svg>a</svg>")
    (root / "figures" / "fb.svg").write_text("<svg>b</svg>")
    (root / "css").mkdir()
    (root / "css" / "site.css").write_text("body {}")
    (root / "assets" / "javascripts").mkdir(parents=True)
    (root / "assets" / "javascripts" / "bundle.js").write_text("1")
    (root / "search").mkdir()
    (root / "search" / "search_index.json").write_text("{}")
    return root


def test_a_page_key_changes_with_what_the_page_loads_and_only_with_that(tmp_path):
    def inputs(page):
        remembered._theme.cache_clear()
        return remembered.page_inputs(site, page)

    site = small_site(tmp_path / "site")
    a, b = inputs("a/"), inputs("b/")
    assert a != b
    (site / "figures" / "fb.svg").write_text("<svg>b2</svg>")  # page b's figure
    (site / "b" / "index.html").write_text("<html>b, edited</html>")
    (site / "search" / "search_index.json").write_text('{"docs": []}')
    assert inputs("a/") == a
    assert inputs("b/") != b
    (site / "figures" / "fa.svg").write_text("<svg>a2</svg>")  # a figure page a shows
    assert inputs("a/") != a
    a = inputs("a/")
    (site / "assets" / "javascripts" / "bundle.js").write_text("2")  # the theme
    assert inputs("a/") != a
    a = inputs("a/")
    (site / "a" / "index.html").write_text((site / "a" / "index.html").read_text() + " ")
    assert inputs("a/") != a


def test_a_measurement_is_taken_once_and_again_when_its_code_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(remembered, "STORE", tmp_path / "store")
    code = tmp_path / "test_measuring.py"
    code.write_text("MEASURE = 1")
    taken = []

    def measure():
        taken.append(1)
        return {"width": len(taken)}

    assert remembered.remember("w", "page-bytes", measure, str(code)) == {"width": 1}
    assert remembered.remember("w", "page-bytes", measure, str(code)) == {"width": 1}
    assert len(taken) == 1
    assert remembered.remember("w", "other-bytes", measure, str(code)) == {"width": 2}
    code.write_text("MEASURE = 2")
    remembered._code.cache_clear()
    assert remembered.remember("w", "page-bytes", measure, str(code)) == {"width": 3}
    monkeypatch.setenv("EXPLAINER_MEASURE_AGAIN", "1")
    assert remembered.remember("w", "page-bytes", measure, str(code)) == {"width": 4}
    assert len(taken) == 4


def test_a_kept_pass_depends_on_every_file_of_the_site_but_the_print_pages_and_pdfs(tmp_path):
    def site_key():
        remembered_passes._site.cache_clear()
        return remembered_passes._site(site)

    site = small_site(tmp_path / "site")
    (site / "print_page").mkdir()
    (site / "print_page" / "index.html").write_text("commit 1")
    (site / "attention-en.pdf").write_bytes(b"%PDF commit 1")
    key = site_key()
    (site / "print_page" / "index.html").write_text("commit 2")
    (site / "attention-en.pdf").write_bytes(b"%PDF commit 2")
    assert site_key() == key
    for changed in ("search/search_index.json", "figures/fb.svg", "b/index.html"):
        (site / changed).write_text((site / changed).read_text() + " ")
        assert site_key() != key, changed
        key = site_key()


def test_a_kept_pass_depends_on_the_sources_a_test_names_beyond_the_site(tmp_path, monkeypatch):
    monkeypatch.setattr(remembered, "ROOT", tmp_path)
    site = small_site(tmp_path / "site")
    (tmp_path / "tool.py").write_text("RENDER = 1")
    (tmp_path / "other.py").write_text("OTHER = 1")
    module = Path(remembered_passes.__file__)

    def pass_key(code):
        remembered._code.cache_clear()
        return remembered_passes.pass_key("tests/test_x.py::test", site, module, code)

    key = pass_key(["tool.py"])
    assert pass_key(["tool.py"]) == key and pass_key([]) != key
    (tmp_path / "other.py").write_text("OTHER = 2")   # not named: the pass stands
    assert pass_key(["tool.py"]) == key
    (tmp_path / "tool.py").write_text("RENDER = 2")
    assert pass_key(["tool.py"]) != key


def test_a_page_key_changes_with_a_figure_s_narrow_variant(tmp_path):
    """A <source srcset> (the narrow variant a phone is shown) is loaded as much as an <img src>."""
    site = small_site(tmp_path / "site")
    (site / "a" / "index.html").write_text(
        '<html><picture><source media="(max-width: 599px)" srcset="../figures/fa.narrow.svg">'
        '<img src="../figures/fa.svg"></picture></html>')
    (site / "figures" / "fa.narrow.svg").write_text("<svg>narrow</svg>")
    remembered._theme.cache_clear()
    before = remembered.page_inputs(site, "a/")
    (site / "figures" / "fa.narrow.svg").write_text("<svg>narrow, redrawn</svg>")
    assert remembered.page_inputs(site, "a/") != before
