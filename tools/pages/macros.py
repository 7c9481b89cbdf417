"""The page macros, rendered by mkdocs-macros-plugin (mkdocs.yml: ``modules: [tools.pages.macros]``).

What a page writes is described in tools/pages/page_macros.py, which reads the calls; here each
macro puts a snippet's result into the page of one language build:

    value      a number the run computed            figure  a numbered, captioned figure
    text       a phrase the run built (an outcome)   data    URL of a JSON file it published
    choose     the page's words for the outcome the run found (the category it recorded)
    code       the whole script with its downloads, or one tagged cell with its printed output
               (the first cell on a page says what the page's cells need; tools/pages/code_cells.py)
    claims     the claims a snippet's experiment bears on, each with its verdict
    claim      one claim with its verdict            literature  a claim's table from the literature

Every page that cites numbers ends with their table (tools/pages/numbers_table.py). The
build's state (results, claims, language) is set by tools/pages/mkdocs_hooks.py in ``STATE``.
"""

from __future__ import annotations

import html
import posixpath
import re
from urllib.parse import urlsplit

import jinja2
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


def define_env(env):
    for kind in page_macros.MACROS:
        env.macro(_macro(kind), kind)


def _macro(kind: str):
    def call(*args, **options):
        page, calls = STATE["page"], STATE["calls"]
        found = calls[STATE["done"]] if STATE["done"] < len(calls) else None
        STATE["done"] += 1
        if found is None or (found.kind, found.args, dict(found.options)) != (kind, args, options):  # read as Jinja renders them
            STATE["error"] = STATE.get("error") or PluginError(
                f"{page.file.src_uri}: {kind}{args} rendered out of page order")
            return ""
        try:
            return RENDER[kind](found, page)
        except PluginError as error:
            STATE["error"] = STATE.get("error") or error
            return ""
    call.__name__ = kind
    return call


def on_pre_page_macros(env):
    """The page's calls, read before Jinja renders them; the cells it shows and what they need."""
    page = env.page
    where = page.file.src_uri
    STATE.update(page=page, calls=[], done=0, error=None, numbers=[])
    if not where.endswith(".md"):  # a notebook's page (mkdocs.yml renders *.md only)
        return
    try:
        calls = page_macros.calls(env.markdown, page.meta.get("snippet"))
    except page_macros.PageMacroError as error:
        raise PluginError(f"{where}: {error}") from None
    STATE.update(calls=calls, figure_count=0, needs=None, cells=[])
    try:
        STATE["cells"] = cells = [code_cells.cell_named(STATE["snippets"][c.snippet], c.snippet, c.key)
                                  for c in calls if c.kind == "code" and c.key]
        STATE["needs"] = code_cells.needs_line(cells, STATE["lang"], STATE["repo_url"]) if cells else None
    except (code_cells.CellError, KeyError) as error:
        raise PluginError(f"{where}: {error}") from None


def on_post_page_macros(env):
    """Any macro's error fails the build; the page ends with the table of its numbers."""
    if STATE["error"]:
        raise STATE["error"]
    if STATE["done"] != len(STATE["calls"]):
        raise PluginError(f"{env.page.file.src_uri}: {STATE['done']} of the page's "
                          f"{len(STATE['calls'])} macros rendered")
    numbers = list(dict.fromkeys(STATE["numbers"]))   # rendered, in page order (a chosen option's too)
    if numbers:
        env.markdown += numbers_table.table(numbers, STATE["results"], STATE["lang"],
                                            lambda target: relative(env.page, target))


def relative(page, target: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(page.file.src_uri) or ".")


def _results(call, page) -> dict | None:
    script = f"snippets/{snippet_runner.path_of(call.snippet)}.py"
    if call.snippet not in STATE["snippets"]:
        raise PluginError(f"{page.file.src_uri}: {call}: there is no {script}")
    return STATE["results"].get(call.snippet)  # None: EXPLAINER_NO_EXEC=1


def _recorded(call, page, field: str, verb: str) -> dict | None:
    results = _results(call, page)
    if results is not None and call.key not in results.get(field, {}):
        listed = f" (it has: {', '.join(sorted(results[field]))})" if field == "numbers" else ""
        raise PluginError(f"{page.file.src_uri}: {call}: snippets/{snippet_runner.path_of(call.snippet)}.py "
                          f"{verb} '{call.key}'{listed}")
    return results


def value(call, page) -> str:
    results = _recorded(call, page, "numbers", "recorded no number")
    STATE["numbers"].append((call.snippet, call.key))
    if results is None:
        return STATE["ui"]["not_run"]
    text = numbers_table.shown(results["numbers"][call.key], STATE["lang"]).strip()
    if not text:  # an empty value would leave a blank table cell or a gap in a sentence
        raise PluginError(f"{page.file.src_uri}: {call}: formats '{call.key}' as an empty string")
    text = text.replace("|", "\\|")  # a "|" would split a table cell
    if not call.before.strip() and LIST_MARKER_AFTER.match(text[-1:] + call.after[:2]):
        return text + "\\"
    return text


def text(call, page) -> str:
    results = _recorded(call, page, "texts", "recorded no text")
    return STATE["ui"]["not_run"] if results is None else results["texts"][call.key][STATE["lang"]]


def choose(call, page) -> str:
    """The option the page writes for the category the run recorded; its numbers filled in."""
    results = _recorded(call, page, "categories", "recorded no category")
    if results is None:
        return STATE["ui"]["not_run"]
    category = results["categories"][call.key]
    words = call.option(category)
    if words is None:
        raise PluginError(f"{page.file.src_uri}: {call}: the run recorded category '{category}' for "
                          f"'{call.target}', and the page words only {', '.join(o for o, _ in call.options)}: "
                          f"add {category}=\"…\"")
    inner = iter(call.option_calls(category))
    def each(*args):
        nested = next(inner)
        return RENDER[nested.kind](nested, page)
    standins = {name: each for name in page_macros.MACROS}
    return jinja2.Environment(**page_macros.JINJA).from_string(words).render(standins)


def figure(call, page) -> str:
    results = _recorded(call, page, "figures", "drew no figure")
    if results is None:
        return STATE["ui"]["not_run"]
    STATE["figure_count"] += 1
    return "\n\n" + figures.html_figure(
        STATE["figure_count"], call.snippet, call.key, results["figures"][call.key][STATE["lang"]],
        results["_dir"], page.url, STATE["lang"]) + "\n"


def data(call, page) -> str:
    results = _recorded(call, page, "data", "published no data")
    if results is None:
        return STATE["ui"]["not_run"]
    # Used inside HTML attributes, which MkDocs does not rewrite: relative to the page URL.
    place = snippet_runner.path_of(call.snippet)
    return posixpath.relpath(f"data/{place}/{call.key}.json", page.url.rstrip("/") or ".")


def code(call, page) -> str:
    _results(call, page)
    return _cell(call, page) if call.key else _script(call.snippet, page)


def _script(name: str, page) -> str:
    """The whole script, with its .py / .ipynb downloads, notebook and Colab links."""
    ui, place = STATE["ui"], snippet_runner.path_of(name)  # many_heads/pruning: in paths and URLs
    source = STATE["snippets"][name].read_text(encoding="utf-8")
    file = place.rpartition("/")[2]
    links = " · ".join([
        f"[{ui['download']} {file}.py]({relative(page, f'downloads/{place}.py')})"
        f'{{ download="{file}.py" }}',
        f"[{ui['download']} {file}.ipynb]({relative(page, f'downloads/{place}.ipynb')})"
        f'{{ download="{file}.ipynb" }}',
        f"[{ui['notebook']}]({relative(page, f'notebooks/{place}.ipynb')})",
        f"[{ui['colab']}]({_colab_url(name)})",
    ])
    title = ui["script"].format(name=place, lines=source.count("\n"))
    return (_listing(name, source, title) + f'\n<p class="snippet-links" markdown>{links}</p>\n'
            + _more_seeds_note(name))


def _cell(call, page) -> str:
    """The named cell where the prose explains it, its output under it; the first one on the
    page says what the page's cells need."""
    place = [c for c in STATE["calls"] if c.kind == "code" and c.key].index(call)
    shown, first = STATE["cells"][place], place == 0
    results = STATE["results"].get(call.snippet)
    output = code_cells.printed(results["_dir"] if results else None, shown)
    try:
        block = code_cells.render(shown, output, STATE["lang"], STATE["needs"] if first else None)
    except code_cells.CellError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
    return code_cells.indented(block, call.before if not call.before.strip() else "")


def claims(call, page) -> str:
    """The verdicts of the claims this snippet's experiment bears on."""
    if _results(call, page) is None:
        return STATE["ui"]["not_run"]
    return ledger.badges(call.snippet, STATE["lang"], STATE["claims"], STATE["verdicts"],
                         relative(page, "claims.md"), STATE["assessments"], STATE["reasons"],
                         _decided_elsewhere(call.snippet, page),
                         {claim_id: _other_pages(one, page) for claim_id, one in STATE["claims"].items()})


def _claim_of(call, page):
    if call.key not in STATE["claims"]:
        raise PluginError(f"{page.file.src_uri}: {call}: there is no claim {call.key} in docs/claims.yml")
    return STATE["claims"][call.key]


def claim(call, page) -> str:
    """One claim with its verdict; a page that cites none of the claim's experiments links to
    the page that decides it."""
    found = _claim_of(call, page)
    deciding = ledger.deciding_experiment(found)
    cited = {c.snippet for c in STATE["calls"] if c.snippet}
    if deciding and not cited & {e.snippet for e in found.experiments} \
            and deciding.snippet in STATE["deciding_page"]:
        target_page = STATE["deciding_page"][deciding.snippet]
        return ledger.decided_elsewhere(call.key, STATE["lang"], STATE["claims"], STATE["verdicts"],
                                        relative(page, "claims.md"), relative(page, target_page),
                                        STATE["nav_titles"].get(target_page, target_page))
    return ledger.claim_badge(call.key, STATE["lang"], STATE["claims"], STATE["verdicts"],
                              relative(page, "claims.md"), STATE["assessments"], STATE["reasons"],
                              _other_pages(found, page))


def literature(call, page) -> str:
    found = _claim_of(call, page)
    try:
        return "\n" + ledger.literature_table(found, STATE["lang"], relative(page, "references.md")) + "\n"
    except ValueError as error:
        raise PluginError(f"{page.file.src_uri}: {call}: {error}") from None


RENDER = {"value": value, "text": text, "choose": choose, "figure": figure, "data": data, "code": code,
          "claims": claims, "claim": claim, "literature": literature}


def _other_pages(claim, page) -> list[tuple[str, str]]:
    """The other pages whose experiments the claim's rule reads: (href, title) of each, in the
    order of the claim's experiments. A card quotes no number its page does not show."""
    cited = {c.snippet for c in STATE["calls"] if c.snippet}
    pages = []
    for name in [e.snippet for e in claim.experiments if e.snippet in ledger.rule_snippets(claim)]:
        target = STATE["deciding_page"].get(name) or STATE["snippet_page"].get(name)
        if name not in cited and target and target != page.file.src_uri and target not in pages:
            pages.append(target)
    return [(relative(page, target), STATE["nav_titles"].get(target, target)) for target in pages]


def _decided_elsewhere(name: str, page) -> dict[str, tuple[str, str]]:
    """Claims this snippet only illustrates (its experiment is a construction) while another
    page's experiment decides them: claim -> (link to that page, its title)."""
    found = {}
    for claim_id, one in STATE["claims"].items():
        mine = [e for e in one.experiments if e.snippet == name]
        deciding = ledger.deciding_experiment(one)
        if (mine and all(e.kind == "construction" for e in mine) and deciding
                and STATE["deciding_page"].get(deciding.snippet, page.file.src_uri) != page.file.src_uri):
            target = STATE["deciding_page"][deciding.snippet]
            found[claim_id] = (relative(page, target), STATE["nav_titles"].get(target, target))
    return found


def _colab_url(name: str) -> str:
    repository = urlsplit(STATE["repo_url"]).path.strip("/")
    notebook = notebooks.committed_path(name, STATE["lang"]).relative_to(snippet_runner.ROOT).as_posix()
    return f"https://colab.research.google.com/github/{repository}/blob/main/{notebook}"


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


def _listing(name: str, source: str, title: str) -> str:
    """The whole script, highlighted, in a closed <details>. It sits in a <template>
    (inert: no layout, no theme script) until the reader opens it; snippet-listing.js
    then inserts it and adds a copy button. Without JavaScript the downloads remain."""
    code = highlight(source, PythonLexer(), HtmlFormatter(wrapcode=True, cssclass="highlight"))
    return (f'<details class="snippet-listing" data-snippet="{name}" data-search-exclude>\n'
            f"<summary>{html.escape(title)}</summary>\n"
            f'<template><div class="language-python highlight">'
            f'<span class="filename">snippets/{snippet_runner.path_of(name)}.py</span>{code}</div></template>\n'
            f"</details>\n")
