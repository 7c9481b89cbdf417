"""The macros a page calls, read by rendering the page with Jinja2, as the build does, with
stand-ins that record each call (the build renders them with mkdocs-macros-plugin;
tools/pages/macros.py defines them).

A page names its snippet once, in its front matter, and cites it by key:

    ---
    snippet: four_steps
    ---

    {{ value("weight_it_animal") }}            a number of the page's snippet
    {{ value("real_model.it_animal.n_seeds") }} a number of another snippet: its full name
    {{ figure("heatmap") }}  {{ text("outcome") }}  {{ data("attention") }}   likewise
    {{ choose("share", most="In most seeds, yes.", few="In most seeds, no.") }}
                                               the option named by the category the run
                                               recorded (report.category); an option may
                                               cite numbers: most="In {{ value('k') }} seeds."
    {{ code() }}                               the page's snippet, whole, with its downloads
    {{ code("real_model.head_roles.angles") }} another snippet, whole (a name with a dot)
    {{ code("scores") }}                       the page's snippet's cell tagged "scores"
    {{ code("three_roles.views", "scores") }}  another snippet's cell
    {{ claims() }}  {{ claims("three_roles.views") }}   the claims a snippet bears on
    {{ claim("C05") }}  {{ literature("C33") }}          one claim's card, its literature table

The rule: a name without a dot is the page's snippet's (a key or a cell); a name with a dot is
a full name, ``<snippet>.<key>`` (split at the last dot) or, for ``code`` and ``claims``, a
snippet. Everything here reads a page's text; nothing runs a snippet.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, replace
from functools import partial

import jinja2
from mkdocs.utils import meta

MACROS = ("value", "figure", "text", "choose", "data", "code", "claims", "claim", "literature")
# choose(key, word="…", …): its options, one per category the run may record, are written as
# keyword arguments (no other macro takes any); inside an option the nested macros use single
# quotes: most="In {{ value('n_most') }} seeds".
# Jinja's comments start with "{#", which Markdown's attribute lists use ({#anchor}): pages
# have no comments, so their markers are strings no page writes. mkdocs.yml says the same.
JINJA = {"comment_start_string": "{##", "comment_end_string": "##}"}
MARK = "\ue000"   # a call while a page is read (a private-use character); in a call's before: an earlier call


class PageMacroError(ValueError):
    """A page calls something that is not one of the macros, or calls one wrongly."""


@dataclass(frozen=True)
class Call:
    kind: str                 # one of MACROS
    args: tuple[str, ...]     # as the page writes them
    snippet: str | None       # the snippet it cites (None: claim, literature)
    key: str | None           # the number's/figure's/text's/data's key, the cell's tag, the claim
    before: str = ""          # the page's text on the same line before the call (MARK: a call)
    after: str = ""           # the page's text right after it, up to the next call
    line: int = 0             # its line in the text read (front matter included), from 1
    options: tuple[tuple[str, str], ...] = ()   # choose: (category, the page's words) in page order
    nested: tuple["Call", ...] = ()   # choose: the calls inside its options, in page order

    @property
    def target(self) -> str:
        """snippet.key, the snippet, or the claim: the name the numbers table and errors show."""
        return ".".join(part for part in (self.snippet, self.key) if part)

    def __str__(self) -> str:
        names = [repr(a).replace(chr(39), chr(34)) for a in self.args] + [f"{o}=…" for o, _ in self.options]
        return f"{{{{ {self.kind}({', '.join(names)}) }}}}"


front_matter = meta.get_data   # (the page without its front matter, the front matter), as MkDocs reads them


def resolve(kind: str, args: tuple, snippet: str | None) -> tuple[str | None, str | None]:
    """(snippet, key) that ``kind(*args)`` names on a page whose front matter names ``snippet``."""
    if not all(isinstance(a, str) and a for a in args):
        raise PageMacroError(f"{kind}(…): write names as quoted strings")
    least, most = (0, 2) if kind == "code" else (0, 1) if kind == "claims" else (1, 1)
    if not least <= len(args) <= most:
        raise PageMacroError(f"{kind}(…) takes {least}–{most} names, not {len(args)}")
    name = args[0] if args else None
    if kind in ("claim", "literature") or (kind == "code" and len(args) == 2):
        return (None, name) if len(args) == 1 else args
    if kind == "claims" and name or name and "." in name:  # a full name
        return (name, None) if kind in ("code", "claims") else tuple(name.rsplit(".", 1))
    if not snippet:
        raise PageMacroError(f"{kind}({name or ''!r}): the page's front matter names no snippet "
                             "(add 'snippet:' or write the full name)")
    return snippet, None if kind == "claims" else name


def _only_calls(output):
    """Jinja's finalize: what a page writes between {{ }} is one macro call (its MARK, not a copy
    a filter made)."""
    if output is not MARK:
        raise PageMacroError(f"a page only calls macros ({', '.join(MACROS)}), as {{{{ value(\"key\") }}}}")
    return output


def calls(text: str, snippet: str | None = None) -> list[Call]:
    """Every macro call of a page, in page order, recorded by stand-ins while Jinja renders the
    page (its front matter too: lines are the file's). ``text`` is the page's file (its front
    matter names the snippet) or its body with ``snippet`` given."""
    snippet = snippet or front_matter(text)[1].get("snippet")
    found: list[Call] = []

    def record(kind: str, *args, **options):   # the stand-in of each macro
        found.append(Call(kind, args, *resolve(kind, args, snippet), options=tuple(options.items()),
                          nested=_options(kind, options, snippet)))
        return MARK

    jinja = jinja2.Environment(**JINJA, keep_trailing_newline=True, finalize=_only_calls)
    try:
        pieces = jinja.from_string(text).render({kind: partial(record, kind) for kind in MACROS}).split(MARK)
    except (jinja2.TemplateError, PageMacroError, TypeError) as error:   # its line: Jinja's traceback's
        line = getattr(error, "lineno", None) or [n for frame, n in traceback.walk_tb(error.__traceback__)
                                                  if frame.f_code.co_filename == "<template>"][0]
        hint = f" (the page macros: {', '.join(MACROS)})" if isinstance(error, jinja2.UndefinedError) else ""
        raise PageMacroError(f"line {line}: {error}{hint}") from None
    for i, call in enumerate(found):   # the text around each call
        done = MARK.join(pieces[:i + 1])
        found[i] = replace(call, before=done.rpartition("\n")[2], after=pieces[i + 1], line=done.count("\n") + 1)
    return found


def _options(kind: str, options: dict[str, str], snippet: str | None) -> tuple[Call, ...]:
    """Each option's own calls (a ``choose``'s words may cite numbers); checks the options."""
    if kind != "choose" and options:
        raise PageMacroError(f"{kind}(…) takes quoted names only")
    if kind == "choose" and not options:
        raise PageMacroError('choose(…) words each outcome: choose("key", most="…", few="…")')
    for name, words in options.items():
        if not isinstance(words, str):
            raise PageMacroError(f"choose(…): option {name}= takes quoted words (\"\" for none)")
    nested = tuple(c for words in options.values() for c in calls(words, snippet))
    if any(c.kind not in ("value", "text") for c in nested):
        raise PageMacroError("choose(…): an option may cite numbers (value) only")
    return nested


def render(text: str, each, snippet: str | None = None) -> str:
    """The page without its front matter, every macro call replaced by ``each(call)`` (a
    stand-in for the prose readers of the tests: a marker, a number, nothing)."""
    found = iter(calls(text, snippet))
    standins = {kind: lambda *args, **options: each(next(found)) for kind in MACROS}
    return jinja2.Environment(**JINJA, keep_trailing_newline=True).from_string(front_matter(text)[0]).render(standins)


def values(text: str, snippet: str | None = None) -> list[tuple[str, str]]:
    """(snippet, key) of every number a page cites, in order of first use (a ``choose``'s
    options' numbers with it: the run may pick any of them)."""
    return list(dict.fromkeys((c.snippet, c.key) for c in with_options(calls(text, snippet))
                              if c.kind == "value"))


def with_options(found: list[Call]) -> list[Call]:
    """The calls, each ``choose`` followed by the calls inside its options."""
    return [inner for c in found for inner in (c, *c.nested)]


def listings(text: str, snippet: str | None = None) -> list[str]:
    """The snippets a page shows whole (``code()``), in page order."""
    return [c.snippet for c in calls(text, snippet) if c.kind == "code" and not c.key]

