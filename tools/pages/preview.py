"""Live preview of both languages for contributors: build once, serve, rebuild on change.

    python -m tools.pages.preview [--port 8000]   # make preview

English at http://127.0.0.1:8000/, Chinese at /zh/ (the language switch works), written to
.cache/preview/. One process builds both languages in turn and keeps its imports warm. What
a change rebuilds:

- a page of one language (docs/en/**.md or docs/zh/**.md): that page only (a dirty build of
  its language; neighbours' titles and the search index follow at the next full rebuild);
- anything else (a snippet, docs/claims.yml, the glossary, assets, mkdocs*.yml, tools/):
  both languages in full, after the snippet runner re-runs the snippets whose cache key
  changed (only those).

The print page and the PDFs are left out (make build makes them); every page is otherwise
what make build writes. Browsers reload when a rebuild ends.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer

from tools.pages import katex_math

ROOT = Path(__file__).resolve().parents[2]
PREVIEW = ROOT / ".cache" / "preview"
CONFIGS = {"en": ROOT / "mkdocs.yml", "zh": ROOT / "mkdocs.zh.yml"}
WATCHED = [ROOT / "docs", ROOT / "snippets", ROOT / "tools", *CONFIGS.values()]
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", "notebooks"}  # notebooks: written by the build

log = logging.getLogger("preview")


def site_dir(lang: str) -> Path:
    return PREVIEW if lang == "en" else PREVIEW / "zh"


def build_language(lang: str, dirty: bool) -> None:
    # A full English build cleans its site dir, /zh/ included: a full rebuild is always
    # English first, then Chinese.
    config = load_config(str(CONFIGS[lang]), site_dir=str(site_dir(lang)))
    config.plugins.on_startup(command="serve", dirty=dirty)
    build(config, dirty=dirty)


def snapshot() -> dict[Path, float]:
    """Every watched file and its modification time."""
    files = {}
    for place in WATCHED:
        paths = [place] if place.is_file() else place.rglob("*")
        for path in paths:
            if path.is_file() and not IGNORED_PARTS & set(path.parts):
                files[path] = path.stat().st_mtime
    return files


def plan(changed: set[Path]) -> list[tuple[str, bool]]:
    """(language, dirty) builds for a set of changed files, in order."""
    pages = {lang: {p for p in changed if p.is_relative_to(ROOT / "docs" / lang) and p.suffix == ".md"}
             for lang in CONFIGS}
    if changed == pages["en"] | pages["zh"]:
        return [(lang, True) for lang in CONFIGS if pages[lang]]
    return [(lang, False) for lang in CONFIGS]


class Builder:
    def __init__(self) -> None:
        self.files = snapshot()

    def __call__(self) -> None:
        files = snapshot()
        changed = {p for p, mtime in files.items() if self.files.get(p) != mtime}
        changed |= set(self.files) - set(files)  # deleted
        self.files = files
        start = time.perf_counter()
        for lang, dirty in plan(changed):
            build_language(lang, dirty)
        names = ", ".join(sorted(p.relative_to(ROOT).as_posix() for p in changed)[:3])
        print(f"rebuilt in {time.perf_counter() - start:.1f} s after a change to {names}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8000)))
    port = parser.parse_args().port
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.environ["EXPLAINER_PRINT_PAGE"] = "false"  # mkdocs*.yml: print-site's enabled
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    start = time.perf_counter()
    for lang in CONFIGS:
        build_language(lang, dirty=False)
    print(f"built both languages in {time.perf_counter() - start:.1f} s", flush=True)
    server = LiveReloadServer(builder=Builder(), host="127.0.0.1", port=port, root=str(PREVIEW))
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
