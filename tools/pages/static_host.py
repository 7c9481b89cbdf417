"""The built site as a static host serves it (gzip for text, long cache for assets), and
what a page weighs to a reader. Used by the browser tests (tests/conftest.py), the page
weight test and tools/contributing/lighthouse_bench.py."""

import functools
import gzip
import io
import re
from http.server import SimpleHTTPRequestHandler
from pathlib import Path


@functools.lru_cache(maxsize=None)
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    """Compressed once per file version: the browser tests load every page, often twice."""
    return gzip.compress(path.read_bytes(), mtime=0)


class StaticSite(SimpleHTTPRequestHandler):
    """Serves site/ like a static host does: gzip for text, cache headers for assets."""

    COMPRESSIBLE = (".html", ".css", ".js", ".json", ".svg", ".xml", ".py", ".ipynb", ".txt")

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the redirect to the slash URL
            path = path / "index.html"
        if not path.is_file() or "gzip" not in self.headers.get("Accept-Encoding", "") \
                or path.suffix not in self.COMPRESSIBLE:
            return super().send_head()
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        if "/assets/" in self.path:
            self.send_header("Cache-Control", "public, max-age=31536000")
        self.end_headers()
        return io.BytesIO(body)


def own_bytes(page: Path) -> int:
    """Bytes a reader downloads for a page itself: its HTML plus the figures and data it shows
    (theme assets excluded), gzip-compressed as static hosts such as GitHub Pages serve them.
    Each figure has a twin for the dark scheme; a reader loads one of the two (the other is
    hidden and lazy), so the light one counts."""
    html = page.read_text(encoding="utf-8")
    figures = {(page.parent / src).resolve() for src in re.findall(r'<img[^>]*src="([^"]+)"', html)
               if "figures/" in src and not src.endswith(".dark.svg")}
    figures |= {(page.parent / src).resolve() for src in re.findall(r'data-src="([^"]+)"', html)}
    return sum(len(gzip.compress(path.read_bytes())) for path in [page, *figures] if path.is_file())
