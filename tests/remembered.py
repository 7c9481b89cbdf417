"""What a browser or a PDF reader measured, remembered under a key of exactly what it measured.

A page's measurement depends on the page's bytes, the files of the site it loads (its
figures, the theme's scripts, styles and fonts), the code that measures and the tools that
run it (Chromium, Playwright, axe-core, pypdf). The key is a hash of all of them, so a warm
`make test` reads back what nothing changed and measures again what did (an edited page,
a re-run snippet's figures, a new Chromium). The tests assert on the measurements every
time; only the measuring is skipped.

    EXPLAINER_MEASURE_AGAIN=1 python -m pytest   # measure everything again
"""

import functools
import hashlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / ".cache" / "measurements"
TESTS = Path(__file__).resolve().parent

# Site folders every page loads from (the theme's scripts, styles and fonts, the explorer's
# data). The search index is left out: it changes with every page's text, and the search
# tests, which read it, always run.
THEME_DIRS = ("assets", "css", "js", "data", "search")
NOT_LOADED = {"search_index.json"}
# Files a page loads itself: src="…", srcset="…" (a figure's narrow variant, one URL), and
# <link href="…"> (styles, preloads, icons).
LOADED = re.compile(r'''(?:\bsrc=|\bsrcset=|<link\b[^>]*?\bhref=)["']([^"'#?]+)''')


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


def _file_digest(path: Path) -> str:
    return _digest(path.read_bytes())


@functools.cache
def tool_versions() -> str:
    """Chromium's version and the Python and npm packages that measure (and Python's)."""
    from conftest import CHROMIUM

    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    packages = [f"{name} {importlib.metadata.version(name)}" for name in ("playwright", "pypdf", "pillow")]
    packages.append(f"python {sys.version.split()[0]}")
    npm = [f"{name} {json.loads((ROOT / 'node_modules' / name / 'package.json').read_text())['version']}"
           for name in ("axe-core", "lighthouse")]
    return "; ".join([chromium, *packages, *npm])


@functools.cache
def _code(*code_files: str) -> str:
    """The measuring code: the files named, this module and conftest."""
    files = sorted({Path(f).resolve() for f in code_files} | {TESTS / "remembered.py", TESTS / "conftest.py"})
    return _digest(*(f.name + _file_digest(f) for f in files))


@functools.cache
def _theme(site: Path) -> str:
    files = sorted(f for d in THEME_DIRS for root in (site, site / "zh") for f in (root / d).rglob("*")
                   if f.is_file() and f.name not in NOT_LOADED)
    return _digest(*(f.relative_to(site).as_posix() + _file_digest(f) for f in files))


def page_inputs(site: Path, path: str) -> str:
    """A hash of everything a page of the built site loads: its HTML, the files it names in
    src= and <link href=>, and the theme folders."""
    html_file = site / path / "index.html"
    html = html_file.read_text(encoding="utf-8")
    loaded = set()
    for name in LOADED.findall(html):
        if name.startswith(("http:", "https:", "data:", "//")):
            continue  # leaving the site: the tests that forbid it run on every page
        target = (html_file.parent / name).resolve()
        if target.is_file() and target.suffix != ".html":
            loaded.add(target)
    return _digest(html, _theme(site), *(f.relative_to(site.resolve()).as_posix() + _file_digest(f)
                                         for f in sorted(loaded)))


def key(what: str, inputs: str, *code_files: str) -> Path:
    """Where the measurement ``what`` of ``inputs`` by the code in ``code_files`` (with this
    module and conftest) in today's tools is kept."""
    return STORE / what / f"{_digest(what, inputs, _code(*code_files), tool_versions())}.json"


def recall(stored: Path) -> Any:
    """The measurement kept under ``stored``, or None (also when asked to measure again)."""
    if stored.is_file() and os.environ.get("EXPLAINER_MEASURE_AGAIN") != "1":
        return json.loads(stored.read_text(encoding="utf-8"))
    return None


def keep(stored: Path, value: Any) -> None:
    stored.parent.mkdir(parents=True, exist_ok=True)
    temporary = stored.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    temporary.replace(stored)


def remember(what: str, inputs: str, measure: Callable[[], Any], *code_files: str) -> Any:
    """``measure()`` (JSON), or what it returned before for the same inputs, code and tools."""
    stored = key(what, inputs, *code_files)
    value = recall(stored)
    if value is None:
        value = measure()
        keep(stored, value)
    return value


def per_page(site: Path, paths: list[str], what: str, measure: Callable[[str], Any], *code_files: str) -> dict[str, Any]:
    """``measure(path)`` for each page, remembered per page under ``page_inputs``."""
    return {path: remember(what, page_inputs(site, path), lambda: measure(path), *code_files) for path in paths}
