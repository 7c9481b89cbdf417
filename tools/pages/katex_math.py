"""Typeset math at build time with KaTeX (node tools/pages/render_math.js), so the
pages carry finished math and readers download no math script."""

import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# pymdownx.arithmatex (generic) wraps math as \\( ... \\) in a span, \\[ ... \\] in a div.
MATH = re.compile(r'<(span|div) class="arithmatex">\\[(\[](.*?)\\[)\]]</\1>', re.S)
_renderer: list[subprocess.Popen] = []


class MathError(ValueError):
    """KaTeX could not typeset a formula."""


def _render(items: list[dict]) -> list[dict]:
    if not _renderer:
        _renderer.append(subprocess.Popen(
            ["node", str(ROOT / "tools" / "pages" / "render_math.js")], cwd=ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, encoding="utf-8"))
    renderer = _renderer[0]
    renderer.stdin.write(json.dumps(items) + "\n")
    renderer.stdin.flush()
    return json.loads(renderer.stdout.readline())


def typeset(content: str) -> str:
    """Replace every arithmatex formula in ``content`` (HTML) by KaTeX's HTML."""
    found = MATH.findall(content)
    if not found:
        return content
    rendered = iter(_render([{"tex": html.unescape(tex), "display": tag == "div"}
                             for tag, tex in found]))

    def replace(match):
        result = next(rendered)
        if "error" in result:
            raise MathError(f"cannot typeset {match.group(2)!r}: {result['error']}")
        tag = match.group(1)
        focusable = ' tabindex="0"' if tag == "div" else ""  # wide formulas scroll: keyboard too
        # The search index reads the formula as plain text, not as KaTeX's glyphs and TeX: the
        # search plugin skips an element marked data-search-exclude (a tag of its own, since the
        # plugin stops skipping at the first closing tag of the same name) and reads the hidden
        # twin instead. search_only_parts() removes both once the index is written.
        text = html.escape(plain_text(result["html"]), quote=False)
        return (f'<{tag} class="arithmatex"{focusable}><{SKIPPED} data-search-exclude="tex">'
                f'{result["html"]}</{SKIPPED}></{tag}><span class="math-search-text" hidden>{text}</span>')
    return MATH.sub(replace, content)


SKIPPED = "tex-math"
SEARCH_ONLY = re.compile(rf'<span class="math-search-text" hidden>[^<]*</span>|</?{SKIPPED}\b[^>]*>')


def search_only_parts(page: str) -> str:
    """``page`` without what only the search index needs (the plain text, the skip marks)."""
    return SEARCH_ONLY.sub("", page)
MATHML = re.compile(r"<math\b.*?</math>", re.S)
SUBSCRIPT = dict(zip("0123456789+-=()aehijklmnoprstuvx",
                     "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
SUPERSCRIPT = dict(zip("0123456789+-=()abcdefghijklmnoprstuvwxyzT⊤′",
                       "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀᵀ′"))
SPACED = set("=≈≠≤≥<>→←↦∈+−±×⋅·∝≪≫⇒")
INVISIBLE = "\u2061\u2062\u2063\u2064\u200b"


def plain_text(katex_html: str) -> str:
    """A formula as a reader would type it (√dₖ, q⋅k/√d, softmax(z)), from the MathML
    KaTeX writes beside its HTML: what the search index shows instead of TeX."""
    found = MATHML.search(katex_html)
    if not found:
        return ""
    node = ET.fromstring(re.sub(r'\sxmlns="[^"]*"', "", found.group(0)))
    text = _linear(node).translate(dict.fromkeys(map(ord, INVISIBLE)))
    return re.sub(r"\s+", " ", text).strip()


def _script(text: str, table: dict, mark: str) -> str:
    text = re.sub(r"\s+", "", text)
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return f"{mark}{text}" if re.fullmatch(r"\w+", text) else f"{mark}({text})"


def _grouped(text: str) -> str:
    return text if re.fullmatch(r"√?\w*|\(.*\)", text) else f"({text})"


def _linear(node: ET.Element) -> str:
    tag, kids = node.tag, list(node)
    if tag in ("annotation", "annotation-xml", "mspace", "mphantom"):
        return ""
    if tag == "semantics":
        return _linear(kids[0]) if kids else ""
    if tag in ("mi", "mn", "mtext", "ms"):
        return "".join(node.itertext())
    if tag == "mo":
        text = "".join(node.itertext()).strip(INVISIBLE)
        return f" {text} " if text in SPACED else text
    parts = [_linear(kid) for kid in kids]
    if tag == "msqrt":
        return "√" + _grouped("".join(parts).strip())
    if tag == "mroot" and len(parts) == 2:
        return _script(parts[1].strip(), SUPERSCRIPT, "^") + "√" + _grouped(parts[0].strip())
    if tag == "mfrac" and len(parts) == 2:
        return f"{_grouped(parts[0].strip())}/{_grouped(parts[1].strip())}"
    if tag in ("msub", "munder") and len(parts) == 2:
        return parts[0] + _script(parts[1].strip(), SUBSCRIPT, "_")
    if tag == "msup" and len(parts) == 2:
        return parts[0] + _script(parts[1].strip(), SUPERSCRIPT, "^")
    if tag in ("msubsup", "munderover") and len(parts) == 3:
        return (parts[0] + _script(parts[1].strip(), SUBSCRIPT, "_")
                + _script(parts[2].strip(), SUPERSCRIPT, "^"))
    if tag == "mover" and len(parts) == 2:
        accent = parts[1].strip()
        combining = {"^": "\u0302", "ˆ": "\u0302", "~": "\u0303", "˜": "\u0303", "¯": "\u0304",
                     "‾": "\u0305", "→": "\u20d7", "˙": "\u0307", ".": "\u0307"}
        if accent in combining and len(parts[0].strip()) == 1:
            return parts[0].strip() + combining[accent]
        return parts[0] + _script(accent, SUPERSCRIPT, "^")
    if tag == "mtr":
        return " ".join(parts) + "; "
    return "".join(parts)


def stop() -> None:
    for renderer in _renderer:
        renderer.stdin.close()
        renderer.wait(timeout=10)
    _renderer.clear()
