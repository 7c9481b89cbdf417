"""Typeset math at build time with KaTeX (node tools/render_math.js), so the
pages carry finished math and readers download no math script."""

import html
import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# pymdownx.arithmatex (generic) wraps math as \\( ... \\) in a span, \\[ ... \\] in a div.
MATH = re.compile(r'<(span|div) class="arithmatex">\\[(\[](.*?)\\[)\]]</\1>', re.S)
_renderer: list[subprocess.Popen] = []


class MathError(ValueError):
    """KaTeX could not typeset a formula."""


def _render(items: list[dict]) -> list[dict]:
    if not _renderer:
        _renderer.append(subprocess.Popen(
            ["node", str(ROOT / "tools" / "render_math.js")], cwd=ROOT, text=True,
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
        return f'<{tag} class="arithmatex"{focusable}>{result["html"]}</{tag}>'
    return MATH.sub(replace, content)


def stop() -> None:
    for renderer in _renderer:
        renderer.stdin.close()
        renderer.wait(timeout=10)
    _renderer.clear()
