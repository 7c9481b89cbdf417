"""Lighthouse (mobile preset) on the home page and the heaviest chapter page, in both
languages, against the locally served site in Debian's Chromium."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from test_site import own_bytes

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
BUDGET = {"performance": 0.95, "accessibility": 0.95, "best-practices": 0.95, "seo": 0.90}
FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking --disable-component-update --disable-sync")


def heaviest_chapter_page(site: Path) -> str:
    chapters = [p for p in site.glob("*/**/index.html")
                if p.parts[len(site.parts)] not in ("zh", "notebooks", "claims", "assets", "print_page")]
    heaviest = max(chapters, key=own_bytes)
    return heaviest.parent.relative_to(site).as_posix() + "/"


def lighthouse(url: str) -> dict:
    done = subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--form-factor=mobile", "--output=json", "--output-path=stdout",
         f"--chrome-flags={FLAGS}"],
        env=dict(os.environ, CHROME_PATH="/usr/bin/chromium"), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("which", ["home", "heaviest chapter page"])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_page_meets_the_lighthouse_budget(site_url, built_site, which, lang_root):
    path = "" if which == "home" else heaviest_chapter_page(built_site)
    # Timing-based scores only get worse when the machine is busy: up to three runs,
    # each category's best score counts (Lighthouse documents run-to-run variance).
    best: dict[str, float] = {}
    for _ in range(3):
        report = lighthouse(f"{site_url}{lang_root}{path}")
        for name, category in report["categories"].items():
            best[name] = max(best.get(name, 0.0), category["score"])
        if all(best[name] >= BUDGET[name] for name in BUDGET):
            break
    print(f"lighthouse {lang_root}{path}: {best}")
    failing = {name: score for name, score in best.items() if score < BUDGET[name]}
    assert failing == {}, f"{lang_root}{path}: {best}"
