"""Live preview of both languages for contributors: build once, serve, show each change.

    python -m tools.pages.preview [--port 8000]   # make preview

English at http://127.0.0.1:8000/, Chinese at /zh/ (the language switch works), written to
.cache/preview/. One process builds both languages in turn and keeps each language's build
(its config, files, navigation and templates) to render single pages again. What a change does:

- a page of one language (docs/en/**.md or docs/zh/**.md, one that existed at the last full
  build): that page is marked stale;
- docs/glossary.yml or docs/claims.yml: the claims' state and the glossary and claims pages are
  refreshed, and every page of both languages is marked stale (any may show a term or a claim);
- anything else (a snippet, assets, mkdocs*.yml, tools/, a page added or deleted): both
  languages are built again in full, after the snippet runner re-runs the snippets whose
  cache key changed (only those).

Browsers reload when a change has been handled, and a stale page is rendered again when it is
asked for: the open page first, the others when they are visited. Until the next full build,
neighbours' titles in the navigation and the search index keep what that build saw. The print
page and the PDFs are left out (make build makes them); every page is otherwise what make
build writes.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from pathlib import Path

from mkdocs.commands.build import _build_page, _populate_page, build
from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin

from tools.pages import katex_math, macros

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PREVIEW = ROOT / ".cache" / "preview"
CONFIGS = {"en": ROOT / "mkdocs.yml", "zh": ROOT / "mkdocs.zh.yml"}
HOOKS = "tools/pages/mkdocs_hooks.py"  # as mkdocs.yml names it
WATCHED = [DOCS, ROOT / "snippets", ROOT / "tools", *CONFIGS.values()]
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", "notebooks"}  # notebooks: written by the build
SHOWN_ON_EVERY_PAGE = {DOCS / "glossary.yml", DOCS / "claims.yml"}
ALL = "*"  # every page of a language is stale

log = logging.getLogger("preview")


def site_dir(lang: str) -> Path:
    return PREVIEW if lang == "en" else PREVIEW / lang


def plan(changed: set[Path], pages: set[Path]) -> dict[str, set[str]] | None:
    """What a set of changed files asks for. ``pages``: the pages the last full build saw.
    None: build both languages again in full. Otherwise each language's stale pages (their
    path under docs/<lang>/), ALL for every page (the glossary or the registry changed)."""
    stale: dict[str, set[str]] = {lang: set() for lang in CONFIGS}
    for path in changed:
        if path in SHOWN_ON_EVERY_PAGE:
            for pages_of_lang in stale.values():
                pages_of_lang.add(ALL)
        elif path in pages and path.is_file():
            lang, *rest = path.relative_to(DOCS).parts
            stale[lang].add("/".join(rest))
        else:
            return None
    return stale


def snapshot() -> dict[Path, float]:
    """Every watched file and its modification time."""
    files = {}
    for place in WATCHED:
        paths = [place] if place.is_file() else place.rglob("*")
        for path in paths:
            if path.is_file() and not IGNORED_PARTS & set(path.parts):
                files[path] = path.stat().st_mtime
    return files


class _Keep(BasePlugin):
    """Keeps what a build gathered (files, navigation, templates) for rendering a page alone."""

    def __init__(self, language: Language) -> None:
        super().__init__()
        self.language = language

    def on_nav(self, nav, config, files):
        self.language.nav = nav

    def on_env(self, env, config, files):
        self.language.env, self.language.files = env, files


class Language:
    """One language's last full build, and which of its pages are stale since."""

    def __init__(self, lang: str) -> None:
        self.lang, self.stale = lang, set()

    def build(self) -> None:
        # A full English build empties its site dir, /zh/ included: English is built first.
        self.config = load_config(str(CONFIGS[self.lang]), site_dir=str(site_dir(self.lang)))
        self.config.plugins["preview-keep"] = _Keep(self)
        self.config.plugins.on_startup(command="serve", dirty=False)
        # mkdocs loads the hooks module once for both configs: each language keeps its own state.
        self.hooks = self.config.hooks[HOOKS]
        self.state = {}
        self.use_state()
        build(self.config)
        self.stale = set()
        self.by_url = {_url_key(f.url): f for f in self.files.documentation_pages()}

    def pages(self) -> set[Path]:
        return {Path(f.abs_src_path) for f in self.by_url.values()
                if f.abs_src_path and Path(f.abs_src_path).is_relative_to(DOCS / self.lang)}

    def use_state(self) -> None:
        """This language's state, for the hooks and the page macros (tools/pages/macros.py)."""
        self.hooks._state = macros.STATE = self.state

    def refresh_claims_and_glossary(self) -> None:
        self.use_state()
        self.hooks.refresh_claims_and_glossary(self.files, self.config)

    def render_if_stale(self, url: str) -> bool:
        """Render the page served at ``url`` (its path under this language's root) again if
        it is stale; True if it was."""
        file = self.by_url.get(_url_key(url))
        if file is None or not ({ALL, file.src_uri} & self.stale):
            return False
        self.use_state()
        _populate_page(file.page, self.config, self.files)
        _build_page(file.page, self.config, self.files.documentation_pages(), self.nav, self.env)
        if ALL in self.stale:
            self.stale |= {f.src_uri for f in self.by_url.values()} - {ALL}
            self.stale.discard(ALL)
        self.stale.discard(file.src_uri)
        return True


def language_of(path: str) -> tuple[str, str]:
    """A served path's language and its path under that language's root."""
    first, _, rest = path.lstrip("/").partition("/")
    return (first, rest) if first in CONFIGS and first != "en" else ("en", path.lstrip("/"))


def _url_key(url: str) -> str:
    """A page's URL as mkdocs names it or as a browser asks for it, one way."""
    url = url.removesuffix("index.html").strip("/")
    return "" if url == "." else url


class Preview:
    """Both languages, the watched files' state, and one lock: a rebuild and a page rendered
    for a request never run at once."""

    def __init__(self) -> None:
        self.languages = {lang: Language(lang) for lang in CONFIGS}
        self.lock = threading.Lock()
        self.files = snapshot()

    def build_all(self) -> None:
        for language in self.languages.values():
            language.build()

    def __call__(self) -> None:
        """The server's builder: called after watched files changed, browsers reload after it."""
        with self.lock:
            files = snapshot()
            changed = {p for p, mtime in files.items() if self.files.get(p) != mtime}
            changed |= set(self.files) - set(files)  # deleted
            self.files = files
            start = time.perf_counter()
            pages = set().union(*(language.pages() for language in self.languages.values()))
            stale = plan(changed, pages)
            if stale is None:
                self.build_all()
                what = "built both languages again"
            else:
                for lang, uris in stale.items():
                    language = self.languages[lang]
                    if ALL in uris:
                        language.refresh_claims_and_glossary()
                    language.stale |= uris
                what = "marked stale (rendered when asked for)"
            names = ", ".join(sorted(p.relative_to(ROOT).as_posix() for p in changed)[:3])
            print(f"{names}: {what} in {time.perf_counter() - start:.1f} s", flush=True)

    def render_if_stale(self, path: str) -> None:
        """Before a page is served: render it again if it is stale."""
        lang, rest = language_of(path)
        with self.lock:
            start = time.perf_counter()
            if self.languages[lang].render_if_stale(rest):
                print(f"rendered /{path.lstrip('/')} in {time.perf_counter() - start:.1f} s", flush=True)


class Server(LiveReloadServer):
    def __init__(self, preview: Preview, **kwargs) -> None:
        super().__init__(builder=preview, **kwargs)
        self.preview = preview

    def serve_request(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.endswith(("/", ".html")):
            self.preview.render_if_stale(path)
        return super().serve_request(environ, start_response)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8000)))
    port = parser.parse_args().port
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.environ["EXPLAINER_PRINT_PAGE"] = "false"  # mkdocs*.yml: print-site's enabled
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    start = time.perf_counter()
    preview = Preview()
    preview.build_all()
    print(f"built both languages in {time.perf_counter() - start:.1f} s", flush=True)
    # Files are polled 4 times a second (watchdog's polling observer: mkdocs' choice).
    server = Server(preview, host="127.0.0.1", port=port, root=str(PREVIEW), polling_interval=0.25)
    for place in WATCHED:
        server.watch(str(place))
    print(f"Preview with live reload: http://127.0.0.1:{port}/ (English) and "
          f"http://127.0.0.1:{port}/zh/ (中文) — edit a page and save; Ctrl+C to stop", flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        katex_math.stop()  # the KaTeX process the builds shared
    return 0


if __name__ == "__main__":
    sys.exit(main())
