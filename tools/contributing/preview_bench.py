"""Benchmark the live preview (not a test): from saving a file to the browser showing it.

    python -m tools.contributing.preview_bench [--runs 3]      # part of make bench

Starts `make preview`'s server on a free port, opens a page in Debian's Chromium and, for
each kind of edit, appends a marker to a file, times until the open page shows the marker
(the live reload), then restores the file and waits for that rebuild too. Prints the
median of --runs for each kind.
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tools.pages import print_pdf

ROOT = Path(__file__).resolve().parents[2]

def appended(line: str):
    return lambda text, mark: text + line.format(mark=mark)


def first_line_after(prefix: str):
    """The first line that starts with ``prefix`` (an English text in a YAML file), marked."""
    def edit(text: str, mark: str) -> str:
        head, sep, tail = text.partition(prefix)
        line, newline, rest = tail.partition("\n")
        return f"{head}{sep}{line.rstrip()} Preview mark {mark}.{newline}{rest}"
    return edit


# (what is edited, the file, the page that shows it, the edit; each mark is unique)
EDITS = [
    ("an English page", "docs/en/four-steps.md", "four-steps/", appended("\n\nPreview mark {mark}.\n")),
    ("a Chinese page", "docs/zh/four-steps.md", "zh/four-steps/", appended("\n\n预览标记 {mark}。\n")),
    ("the glossary", "docs/glossary.yml", "glossary/", first_line_after("\n    en: ")),
    ("the claims registry", "docs/claims.yml", "claims/", first_line_after("\n  en: ")),
    ("a snippet (it runs again)", "snippets/four_steps.py", "four-steps/", appended("\n# Preview mark {mark}.\n")),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tools.pages.preview", "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    start = time.perf_counter()
    for line in server.stdout:
        if "Preview with live reload" in line:
            break
    else:
        sys.exit("the preview did not start")
    print(f"first build of both languages and serving: {time.perf_counter() - start:.1f} s")
    times = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=print_pdf.CHROMIUM, args=print_pdf.CHROMIUM_ARGS)
            page = browser.new_page()
            for label, file, url, edit in EDITS:
                path = ROOT / file
                original = path.read_text(encoding="utf-8")
                page.goto(f"http://127.0.0.1:{port}/{url}")
                for run in range(runs):
                    mark = f"{os.getpid()}-{run}-{time.time_ns()}"
                    edited = edit(original, mark)
                    saved = time.perf_counter()
                    path.write_text(edited, encoding="utf-8")
                    try:
                        page.wait_for_function(f"() => document.documentElement.innerHTML.includes({mark!r})",
                                               timeout=600_000, polling=50)
                        times.setdefault(label, []).append(time.perf_counter() - saved)
                    finally:
                        path.write_text(original, encoding="utf-8")
                    page.wait_for_function(f"() => !document.documentElement.innerHTML.includes({mark!r})",
                                           timeout=600_000, polling=100)
            browser.close()
    finally:
        server.terminate()
        server.wait()
    for label, seconds in times.items():
        print(f"{label:28} saved → shown in the browser: median {statistics.median(seconds):5.1f} s "
              f"(min {min(seconds):.1f}, max {max(seconds):.1f}, {len(seconds)} runs)")


if __name__ == "__main__":
    main()
