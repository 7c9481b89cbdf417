"""Lighthouse's performance score of the built site (not a test: it is a timing).

    python -m tools.contributing.lighthouse_bench [--runs 5] [--site site]

The home page and the heaviest chapter page in both languages, each loaded --runs times
under Lighthouse's simulated throttling (mobile preset); prints each page's median score and
its range, as Lighthouse's documentation on variability recommends."""

import argparse
import functools
import statistics
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from tools.contributing import lighthouse_run
from tools.pages.static_host import StaticSite, own_bytes

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(StaticSite, directory=str(args.site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    chapter = lighthouse_run.heaviest_chapter_page(args.site, own_bytes)
    for path in ("", "zh/", chapter, "zh/" + chapter):
        url = f"http://127.0.0.1:{server.server_address[1]}/{path}"
        scores = [lighthouse_run.run(url, "--only-categories=performance")["categories"]["performance"]["score"]
                  for _ in range(args.runs)]
        print(f"performance /{path:<36} median {statistics.median(scores):.2f}  "
              f"range {min(scores):.2f}-{max(scores):.2f}  ({args.runs} runs)", flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
