"""The page macros, rendered by mkdocs-macros-plugin (mkdocs.yml: ``modules: [tools.pages.macros]``).

What a page writes is described in tools/pages/page_macros.py, which reads the calls before the
plugin renders the page; Jinja marks where each call is, and here each call puts a snippet's
result (a number, a figure, a cell, a claim's verdict, ...) there, in the page of one language
build, and every page that cites numbers ends with their table
(tools/pages/numbers_table.py). The build's state (results, claims, language) is set by
tools/pages/mkdocs_hooks.py in ``STATE``.
"""

from __future__ import annotations

import html
import posixpath
import re
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from tools.pages import code_cells, figures, numbers_table, page_macros
from tools.running import notebooks, snippet_runner
from tools.verdicts import ledger

STATE: dict = {}   # the build's (mkdocs_hooks.on_config) and the current page's

# A value such as "16" at the start of a line, followed by "." or ")", would turn the
# line into an ordered-list item: escape that character.
LIST_MARKER_AFTER = re.compile(r"\d[.)](?=\s|$)")


class MacroError(ValueError):
    """A call the build cannot render: the build fails, naming the page and the call."""


def define_env(env):
    """Each macro renders as page_macros.MARK; on_post_page_macros puts each call page_macros read
    in its place (an error fails the build there, naming the page and the call)."""
    for kind in page_macros.MACROS:
        env.macro(lambda *args, **options: page_macros.MARK, kind)


def on_pre_page_macros(env):
    """The page's calls, read before Jinja renders them; the cells it shows and what they need."""
    page = env.page
    STATE.update(page=page, calls=[], numbers=[], figure_count=0, cells={}, needs=None)
    if not page.file.src_uri.endswith(".md"):  # a notebook's page (mkdocs.yml renders *.md only)
        return
    try:
        STATE["calls"] = calls = page_macros.calls(env.markdown, page.meta.get("snippet"))
        STATE["cells"] = cells = {(c.snippet, c.name): c for c in code_cells.shown_cells(calls, STATE["snippets"])}
        if cells:
            STATE["needs"] = code_cells.needs_line(list(cells.values()), STATE["lang"], STATE["repo_url"])
    except (page_macros.PageMacroError, code_cells.CellError, KeyError) as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None


def on_post_page_macros(env):
    """Each call rendered where Jinja put its mark; the page ends with the table of its numbers."""
    pieces, found = env.markdown.split(page_macros.MARK), STATE["calls"]
    if len(pieces) != len(found) + 1:
        raise PluginError(f"{env.page.file.src_uri}: {len(pieces) - 1} of the page's {len(found)} macros rendered")
    env.markdown = pieces[0] + "".join(_rendered(call) + piece for call, piece in zip(found, pieces[1:]))
    numbers = list(dict.fromkeys(STATE["numbers"]))   # rendered, in page order (a chosen option's too)
    if numbers:
        env.markdown += numbers_table.table(numbers, STATE["results"], STATE["lang"], _relative)


def _rendered(call) -> str:
    try:
        return RENDER[call.kind](call)
    except MacroError as error:
        raise PluginError(f"{STATE['page'].file.src_uri}: {call}: {error}") from None


def _relative(target: str) -> str:
    """A site path as a Markdown link of the current page (MkDocs rewrites it for its URL)."""
    return posixpath.relpath(target, posixpath.dirname(STATE["page"].file.src_uri) or ".")


def _from_url(target: str) -> str:
    """A site path as an HTML link of the current page, which MkDocs does not rewrite: relative
    to the page's URL."""
    url = STATE["page"].url
    return posixpath.relpath(target, (url.rstrip("/") if url.endswith("/") else posixpath.dirname(url)) or ".")


def _link(target: str) -> tuple[str, str]:
    """(link, title in the nav) of another page, by its source file."""
    return _relative(target), STATE["nav_titles"].get(target, target)


def _results(call, field: str = "", verb: str = "") -> dict | None:
    """The run's results of the snippet the call cites (None: EXPLAINER_NO_EXEC=1); with
    ``field``, the key the call names must be recorded there."""
    script = f"snippets/{snippet_runner.path_of(call.snippet)}.py"
    if call.snippet not in STATE["snippets"]:
        raise MacroError(f"there is no {script}")
    results = STATE["results"].get(call.snippet)
    if field and results is not None and call.key not in results.get(field, {}):
        listed = f" (it has: {', '.join(sorted(results[field]))})" if field == "numbers" else ""
        raise MacroError(f"{script} {verb} '{call.key}'{listed}")
    return results


def value(call) -> str:
    results = _results(call, "numbers", "recorded no number")
    STATE["numbers"].append((call.snippet, call.key))
    if results is None:
        return STATE["ui"]["not_run"]
    text = numbers_table.shown(results["numbers"][call.key], STATE["lang"]).strip()
    if not text:  # an empty value would leave a blank table cell or a gap in a sentence
        raise MacroError(f"formats '{call.key}' as an empty string")
    text = text.replace("|", "\\|")  # a "|" would split a table cell
    if not call.before.strip() and LIST_MARKER_AFTER.match(text[-1:] + call.after[:2]):
        return text + "\\"
    return text


def text(call) -> str:
    results = _results(call, "texts", "recorded no text")
    return STATE["ui"]["not_run"] if results is None else results["texts"][call.key][STATE["lang"]]


def choose(call) -> str:
    """The option the page writes for the category the run recorded; its numbers filled in."""
    results = _results(call, "categories", "recorded no category")
    if results is None:
        return STATE["ui"]["not_run"]
    category = results["categories"][call.key]
    words = dict(call.options).get(category)
    if words is None:
        raise MacroError(f"the run recorded category '{category}' for '{call.target}', and the page "
                         f"words only {', '.join(o for o, _ in call.options)}: add {category}=\"…\"")
    return page_macros.render(words, lambda inner: RENDER[inner.kind](inner), STATE["page"].meta.get("snippet"))


def figure(call) -> str:
    results = _results(call, "figures", "drew no figure")
    if results is None:
        return STATE["ui"]["not_run"]
    STATE["figure_count"] += 1
    return "\n\n" + figures.html_figure(
        STATE["figure_count"], call.snippet, call.key, results["figures"][call.key][STATE["lang"]],
        results["_dir"], _from_url, STATE["lang"]) + "\n"


def data(call) -> str:
    """The URL of a JSON file the snippet published, for the page's own script."""
    if _results(call, "data", "published no data") is None:
        return STATE["ui"]["not_run"]
    return _from_url(f"data/{snippet_runner.path_of(call.snippet)}/{call.key}.json")


def code(call) -> str:
    _results(call)
    return _cell(call) if call.key else _script(call.snippet)


def _script(name: str) -> str:
    """The whole script, highlighted, in a closed <details>, with its .py / .ipynb downloads,
    notebook and Colab links. It sits in a <template> (inert: no layout, no theme script) until
    the reader opens it; snippet-listing.js then inserts it and adds a copy button. Without
    JavaScript the downloads remain."""
    ui, place = STATE["ui"], snippet_runner.path_of(name)  # many_heads/pruning: in paths and URLs
    source = STATE["snippets"][name].read_text(encoding="utf-8")
    file = place.rpartition("/")[2]
    repository = urlsplit(STATE["repo_url"]).path.strip("/")
    notebook = notebooks.committed_path(name, STATE["lang"]).relative_to(snippet_runner.ROOT).as_posix()
    links = " · ".join([
        f"[{ui['download']} {file}.py]({_relative(f'downloads/{place}.py')})"
        f'{{ download="{file}.py" }}',
        f"[{ui['download']} {file}.ipynb]({_relative(f'downloads/{place}.ipynb')})"
        f'{{ download="{file}.ipynb" }}',
        f"[{ui['notebook']}]({_relative(f'notebooks/{place}.ipynb')})",
        f"[{ui['colab']}](https://colab.research.google.com/github/{repository}/blob/main/{notebook})",
    ])
    title = ui["script"].format(name=place, lines=source.count("\n"))
    code = highlight(source, PythonLexer(), HtmlFormatter(wrapcode=True, cssclass="highlight"))
    return (f'<details class="snippet-listing" data-snippet="{name}" data-search-exclude>\n'
            f"<summary>{html.escape(title)}</summary>\n"
            f'<template><div class="language-python highlight">'
            f'<span class="filename">snippets/{place}.py</span>{code}</div></template>\n'
            f"</details>\n"
            f'\n<p class="snippet-links" markdown>{links}</p>\n' + _more_seeds_note(name))


def _cell(call) -> str:
    """The named cell where the prose explains it, its output under it; the first one on the
    page says what the page's cells need."""
    shown = STATE["cells"][call.snippet, call.key]
    needs, STATE["needs"] = STATE["needs"], None
    results = STATE["results"].get(call.snippet)
    output = code_cells.printed(results["_dir"] if results else None, shown)
    try:
        block = code_cells.render(shown, output, STATE["lang"], needs)
    except code_cells.CellError as error:
        raise MacroError(str(error)) from None
    return code_cells.indented(block, call.before if not call.before.strip() else "")


def claims(call) -> str:
    """The verdicts of the claims this snippet's experiment bears on."""
    if _results(call) is None:
        return STATE["ui"]["not_run"]
    return ledger.badges(call.snippet, STATE["lang"], STATE["claims"], STATE["verdicts"],
                         _relative("claims.md"), STATE["assessments"], STATE["reasons"],
                         _decided_elsewhere(call.snippet),
                         {claim_id: _other_pages(one) for claim_id, one in STATE["claims"].items()})


def _claim_of(call):
    if call.key not in STATE["claims"]:
        raise MacroError(f"there is no claim {call.key} in docs/claims.yml")
    return STATE["claims"][call.key]


def claim(call) -> str:
    """One claim with its verdict; a page that cites none of the claim's experiments links to
    the page that decides it."""
    found = _claim_of(call)
    deciding = ledger.deciding_experiment(found)
    if deciding and deciding.snippet in STATE["deciding_page"] \
            and not _cited() & {e.snippet for e in found.experiments}:
        return ledger.decided_elsewhere(call.key, STATE["lang"], STATE["claims"], STATE["verdicts"],
                                        _relative("claims.md"), *_link(STATE["deciding_page"][deciding.snippet]))
    return ledger.claim_badge(call.key, STATE["lang"], STATE["claims"], STATE["verdicts"],
                              _relative("claims.md"), STATE["assessments"], STATE["reasons"],
                              _other_pages(found))


def literature(call) -> str:
    found = _claim_of(call)
    try:
        return "\n" + ledger.literature_table(found, STATE["lang"], _relative("references.md")) + "\n"
    except ValueError as error:
        raise MacroError(str(error)) from None


RENDER = {"value": value, "text": text, "choose": choose, "figure": figure, "data": data, "code": code,
          "claims": claims, "claim": claim, "literature": literature}


def _cited() -> set[str]:
    """The snippets the page cites."""
    return {c.snippet for c in STATE["calls"] if c.snippet}


def _other_pages(claim) -> list[tuple[str, str]]:
    """The other pages whose experiments the claim's rule reads: (href, title) of each, in the
    order of the claim's experiments. A card quotes no number its page does not show."""
    here, cited, pages = STATE["page"].file.src_uri, _cited(), []
    for name in [e.snippet for e in claim.experiments if e.snippet in ledger.rule_snippets(claim)]:
        target = STATE["deciding_page"].get(name) or STATE["snippet_page"].get(name)
        if name not in cited and target and target != here and target not in pages:
            pages.append(target)
    return [_link(target) for target in pages]


def _decided_elsewhere(name: str) -> dict[str, tuple[str, str]]:
    """Claims this snippet only illustrates (its experiment is a construction) while another
    page's experiment decides them: claim -> (link to that page, its title)."""
    found = {}
    for claim_id, one in STATE["claims"].items():
        mine = [e for e in one.experiments if e.snippet == name]
        deciding = ledger.deciding_experiment(one)
        target = STATE["deciding_page"].get(deciding.snippet) if deciding else None
        if mine and all(e.kind == "construction" for e in mine) and target \
                and target != STATE["page"].file.src_uri:
            found[claim_id] = _link(target)
    return found


def _more_seeds_note(name: str) -> str:
    """When the build trained this snippet with more seeds than its default (a verdict was
    undecided; tools/verdicts/claims.py), the setting that reproduces the page's numbers."""
    results = STATE["results"].get(name)
    if not results or "@" not in results["_dir"].name:
        return ""
    more = results["_dir"].name.rpartition("@")[2]
    items = more.endswith("items")
    n = more.removesuffix("items")
    command = (f"`EXPLAINER_{'ITEMS' if items else 'SEEDS'}={n} "
               f"python snippets/{snippet_runner.path_of(name)}.py`")
    note = STATE["ui"]["more_items" if items else "more_seeds"].format(n=n, command=command)
    return f'\n<p class="snippet-seeds" markdown>{note}</p>\n'

