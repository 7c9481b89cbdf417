"""The bilingual glossary (docs/glossary.yml): its page, and hover definitions
on the first use of each term in a page's running text."""

import html
import re
from pathlib import Path

import yaml

# libyaml's loader (in the PyYAML wheel) reads the registry 40x faster than the pure-Python one
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.yml"


def terms() -> list[dict]:
    return yaml.load(GLOSSARY.read_text(encoding="utf-8"), Loader=YAML_LOADER)


def page(lang: str, ui: dict) -> str:
    """The glossary page of one language, as Markdown."""
    other = "zh" if lang == "en" else "en"
    lines = [f"# {ui['glossary_title']}", "", ui["glossary_intro"], "",
             f"| {ui['term']} | {ui['chinese']} | {ui['meaning']} |", "|---|---|---|"]
    lines += [f"| **{t[lang]}** | {t[other]} | {t['define'][lang]} |" for t in terms()]
    return "\n".join(lines) + "\n"


def matcher(term: dict, lang: str):
    """``find(text)``: the first use of ``term`` in ``text`` (a re.Match) or None.

    Chinese has no spaces between words, so a short spelling such as 键 would also be
    found inside 关键 ("crucial"); ``exclude`` lists such words, which never count. A
    one-character Chinese spelling right after a Latin word belongs to that word (Tab 键 is
    the Tab key), never to the term. A term with other senses lists in ``match`` only the
    phrases that carry its sense (缩放后的分数, not 缩放 alone, which also names scaling a
    vector to unit length)."""
    spellings = sorted(term["match"][lang], key=len, reverse=True)
    words = "|".join(re.escape(s) for s in spellings)
    pattern = re.compile(rf"(?<![\w-])({words})(?![\w-])" if lang == "en" else f"({words})")
    masks = [re.escape(w) for w in sorted(term.get("exclude", {}).get(lang, []), key=len, reverse=True)]
    single = [re.escape(s) for s in spellings if len(s) == 1]
    if lang == "zh" and single:
        masks.append(rf"(?<=[A-Za-z]) ?(?:{'|'.join(single)})")
    mask = re.compile("|".join(masks)) if masks else None

    def find(text: str):
        if mask:  # same length, so positions still match the original text
            text = mask.sub(lambda m: "\0" * len(m.group(0)), text)
        return pattern.search(text)
    return find


# Text inside these elements gets no glossary tooltip.
NO_TOOLTIP = {"a", "abbr", "button", "code", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
              "script", "select", "style", "summary", "svg", "template", "textarea"}
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def add_tooltips(content: str, lang: str) -> str:
    """Wrap the first use of each glossary term in running text in <abbr title=...>,
    which Material shows as a tooltip (feature content.tooltips)."""
    pending = []
    for term in terms():
        if not term.get("match"):
            continue  # listed on the glossary page only (and for its rejected variants)
        pending.append((matcher(term, lang), html.escape(term["define"][lang], quote=True)))
    parts = re.split(r"(<[^>]*>)", content)
    open_tags: list[tuple[str, bool]] = []  # (tag, no tooltip inside)
    for i, part in enumerate(parts):
        if part.startswith("<"):
            match = re.match(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)", part)
            if not match or part.startswith("<!") or match.group(2).lower() in VOID or part.endswith("/>"):
                continue
            tag = match.group(2).lower()
            if match.group(1):
                while open_tags and open_tags.pop()[0] != tag:
                    pass
            else:
                skip = tag in NO_TOOLTIP or bool(re.search(r'class="[^"]*(arithmatex|katex|attention-explorer)', part))
                open_tags.append((tag, skip or (open_tags[-1][1] if open_tags else False)))
        elif part.strip() and not (open_tags and open_tags[-1][1]) and pending:
            # Find every term in the original text first: a definition inserted for one term
            # must never be searched for the next (the definition of Query mentions 键).
            found = sorted(((m.start(), m.end(), j) for j, (find, _) in enumerate(pending)
                            for m in [find(part)] if m), key=lambda hit: hit[0])
            pieces, cursor, used = [], 0, set()
            for start, end, j in found:
                if start < cursor:
                    continue  # overlaps a term already marked; this one waits for later text
                pieces += [part[cursor:start], f'<abbr title="{pending[j][1]}">{part[start:end]}</abbr>']
                cursor = end
                used.add(j)
            parts[i] = "".join(pieces) + part[cursor:]
            pending = [p for j, p in enumerate(pending) if j not in used]
    return "".join(parts)
