"""Lighthouse (mobile preset, simulated throttling) in Debian's Chromium: one run's report.
Used by tests/test_lighthouse.py and tools/contributing/lighthouse_bench.py."""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking --disable-component-update --disable-sync")


def heaviest_chapter_page(site: Path, weight) -> str:
    """The chapter page (either language's path, without the zh/ prefix) whose ``weight`` is largest."""
    chapters = [p for p in site.glob("*/**/index.html")
                if p.parts[len(site.parts)] not in ("zh", "notebooks", "claims", "assets", "print_page")]
    heaviest = max(chapters, key=weight)
    return heaviest.parent.relative_to(site).as_posix() + "/"


def run(url: str, *extra: str) -> dict:
    done = subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--form-factor=mobile", "--output=json", "--output-path=stdout",
         f"--chrome-flags={FLAGS}", *extra],
        env=dict(os.environ, CHROME_PATH="/usr/bin/chromium"), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)
