"""Lighthouse (mobile preset) on the home page and the heaviest chapter page, in both
languages, against the locally served site in Debian's Chromium.

Only what does not depend on the machine's speed is checked here: the accessibility,
best-practices and SEO categories, and the performance audits that judge what the page
sends (bytes, compression, images, fonts, scripts). Lighthouse's performance *score* is a
timing: on this 2-core machine the same page scores 0.62 to 0.96 from one run to the next,
busy or not. `make bench` reports its median over five runs (tools/contributing/lighthouse_bench.py)."""

import pytest

import remembered
from tools.contributing import lighthouse_run
from tools.pages import static_host
from tools.pages.static_host import own_bytes

BUDGET = {"accessibility": 0.95, "best-practices": 0.95, "seo": 0.90}
# Performance audits decided by what the page sends, not by how fast this machine runs it.
# Left out: the metrics (timings), dom-size and mainthread-work-breakdown (timed), and what
# the theme or the host decides (unused-css-rules and legacy-javascript: Material's bundle;
# uses-long-cache-ttl: the static host's headers).
PAGE_AUDITS = ("uses-text-compression", "unminified-css", "unminified-javascript",
               "unused-javascript", "duplicated-javascript", "uses-responsive-images",
               "offscreen-images", "uses-optimized-images", "modern-image-formats",
               "unsized-images", "font-display", "redirects", "no-document-write",
               "uses-passive-event-listeners", "viewport", "bf-cache")


def heaviest_chapter_page(site) -> str:
    return lighthouse_run.heaviest_chapter_page(site, own_bytes)


@pytest.mark.parametrize("which", ["home", "heaviest chapter page"])
@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_page_meets_the_lighthouse_budget(site_url, built_site, which, lang_root):
    path = "" if which == "home" else heaviest_chapter_page(built_site)

    def measure():
        """The report's category scores and the page audits (remembered under all the page
        loads, the host's and the runner's code, Lighthouse's and Chromium's versions)."""
        report = lighthouse_run.run(f"{site_url}{lang_root}{path}")
        return {"scores": {name: category["score"] for name, category in report["categories"].items()},
                "audits": {name: {field: report["audits"][name].get(field) for field in ("score", "displayValue", "title")}
                           for name in PAGE_AUDITS}}
    report = remembered.remember("lighthouse", remembered.page_inputs(built_site, lang_root + path), measure,
                                 __file__, lighthouse_run.__file__, static_host.__file__)
    scores = report["scores"]
    print(f"lighthouse {lang_root}{path}: {scores}")
    failing = {name: scores[name] for name in BUDGET if scores[name] < BUDGET[name]}
    assert failing == {}, f"{lang_root}{path}: {scores}"
    audits = report["audits"]
    flagged = {name: audits[name].get("displayValue") or audits[name]["title"]
               for name in PAGE_AUDITS if audits[name]["score"] is not None and audits[name]["score"] < 1}
    assert flagged == {}, f"{lang_root}{path}: {flagged}"
