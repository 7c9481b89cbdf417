"""page_macros reads a page's macro calls by rendering it with Jinja2: known answers for what
it reads (names, the text around each call, its line, a choose's options) and for every error a
page author can make."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.pages import page_macros  # noqa: E402
from tools.pages.page_macros import PageMacroError, calls  # noqa: E402

PAGE = ('---\nsnippet: demo\n---\n\n# Demo\n\nAll but {{ value("heads") }}. Then {{ text("other.page.outcome") }}\n'
        '{{ figure("heatmap") }}\n    {{ code("scores") }} {{ code("three_roles.views", "scores") }}\n'
        '{{ code() }}{{ code("real_model.angles") }}\n{{ claims() }} {{ claim("C05") }} {{ literature("C33") }}\n'
        'Do they? {{ choose("share", most="Yes: {{ value(\'n_most\') }} of {{ value(\'x.y.n\') }}.", few="No.") }}\n')


def test_each_call_is_read_with_its_snippet_key_and_place():
    found = calls(PAGE)
    assert [(c.kind, c.snippet, c.key, c.line) for c in found] == [
        ("value", "demo", "heads", 7), ("text", "other.page", "outcome", 7), ("figure", "demo", "heatmap", 8),
        ("code", "demo", "scores", 9), ("code", "three_roles.views", "scores", 9), ("code", "demo", None, 10),
        ("code", "real_model.angles", None, 10), ("claims", "demo", None, 11), ("claim", None, "C05", 11),
        ("literature", None, "C33", 11), ("choose", "demo", "share", 12)]
    value, _, figure, cell, other_cell = found[:5]
    assert (value.before, value.after) == ("All but ", ". Then ")
    assert (figure.before, figure.after) == ("", "\n    ")
    assert (cell.before, other_cell.before) == ("    ", "    " + page_macros.MARK + " ")
    assert found[-1].after == "\n" and str(found[-1]) == '{{ choose("share", most=…, few=…) }}'
    assert found[-1].options == (("most", "Yes: {{ value('n_most') }} of {{ value('x.y.n') }}."), ("few", "No."))
    assert [(c.snippet, c.key, c.before) for c in found[-1].nested] == [
        ("demo", "n_most", "Yes: "), ("x.y", "n", "Yes: " + page_macros.MARK + " of ")]


def test_the_body_alone_reads_the_same_with_the_snippet_given():
    body = page_macros.front_matter(PAGE)[0]
    assert [(c.kind, c.snippet, c.key, c.line + 4) for c in calls(body, "demo")] == \
        [(c.kind, c.snippet, c.key, c.line) for c in calls(PAGE)]


def test_the_helpers_read_numbers_listings_and_render():
    assert page_macros.values(PAGE) == [("demo", "heads"), ("demo", "n_most"), ("x.y", "n")]
    assert page_macros.listings(PAGE) == ["demo", "real_model.angles"]
    assert [c.kind for c in page_macros.with_options(calls(PAGE))][-3:] == ["choose", "value", "value"]
    assert page_macros.render('---\nsnippet: demo\n---\nA {{ value("k") }}, {{ claim("C01") }}.\n',
                              lambda c: f"<{c.target}>") == "A <demo.k>, <C01>.\n"
    assert page_macros.render("No call.\n", lambda c: "?") == "No call.\n"


@pytest.mark.parametrize("page, error", [
    ('a\n{{ foo("x") }}', "line 2: 'foo' is undefined (the page macros: value, figure, text, choose"),
    ('a\n{{ x.value("k") }}', "line 2: 'x' is undefined (the page macros: value,"),
    ("a\n\n{{ heads }}", "line 3: a page only calls macros (value, figure,"),
    ("{{ value }}", "line 1: a page only calls macros"),
    ('{{ "words" }}', "line 1: a page only calls macros"),
    ('{{ value("a.b") ~ value("a.c") }}', "line 1: a page only calls macros"),
    ('{{ value("a.b") | upper }}', "line 1: a page only calls macros"),
    ('{{ value("a.b") + 1 }}', "line 1: can only concatenate str"),
    ('a\n{{ value("a.b"', "line 2: unexpected end of template"),
    ('{{ value("a.b", "a.c") }}', "line 1: value(…) takes 1–1 names, not 2"),
    ("{{ figure() }}", "line 1: figure(…) takes 1–1 names, not 0"),
    ('{{ code("a", "b", "c") }}', "line 1: code(…) takes 0–2 names, not 3"),
    ('{{ claims("a", "b") }}', "line 1: claims(…) takes 0–1 names, not 2"),
    ("{{ value(heads) }}", "line 1: value(…): write names as quoted strings"),
    ("{{ value(3) }}", "line 1: value(…): write names as quoted strings"),
    ('{{ value("") }}', "line 1: value(…): write names as quoted strings"),
    ('{{ value("a.b", x="y") }}', "line 1: value(…) takes quoted names only"),
    ('x\n{{ value("heads") }}', "line 2: value('heads'): the page's front matter names no snippet"),
    ("{{ code() }}", "line 1: code(''): the page's front matter names no snippet"),
    ('---\ntitle: T\n---\n\n{{ claims() }}', "line 5: claims(''): the page's front matter names no snippet"),
    ('{{ choose("a.b") }}', 'line 1: choose(…) words each outcome: choose("key", most="…", few="…")'),
    ('{{ choose("a.b", most=3) }}', 'line 1: choose(…): option most= takes quoted words ("" for none)'),
    ("{{ choose(\"a.b\", most=\"{{ figure('a.f') }}\") }}", "line 1: choose(…): an option may cite numbers"),
    ("\n{{ choose(\"a.b\", most=\"{{ nope('a.f') }}\") }}", "line 2: line 1: 'nope' is undefined"),
    ("{{ choose(\"a.b\", most=\"{{ value('k') }}\") }}", "line 1: line 1: value('k'): the page's front matter"),
])
def test_a_page_that_calls_wrongly_fails_naming_the_line_and_the_mistake(page, error):
    with pytest.raises(PageMacroError) as raised:
        calls(page)
    assert str(raised.value).startswith(error)
