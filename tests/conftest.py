"""Shared fixtures: snippet results (from the same cache the build uses) and the built site."""

import contextlib
import fcntl
import functools
import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.pages import print_pdf  # noqa: E402
from tools.running import snippet_runner  # noqa: E402
from tools.pages.static_host import StaticSite  # noqa: E402


class SnippetResults:
    """What one snippet recorded: numbers, figures and data."""

    def __init__(self, outcome: snippet_runner.Outcome):
        self.dir = outcome.output_dir
        self.data = snippet_runner.load_results(outcome)

    def number(self, key: str) -> float:
        return self.data["numbers"][key]["value"]

    def per_seed(self, key: str) -> list[float]:
        """The per-seed values behind a number over seeds (report_spread, report_seed_count)."""
        return self.data["numbers"][key]["per_seed"]


@contextlib.contextmanager
def one_worker_at_a_time():
    """Held while a test process brings the snippets or the test site up to date: under
    pytest-xdist every worker asks, and only the first may run or build; the others wait
    and then find the cache and the site current."""
    lock = ROOT / ".cache" / "tests.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def snippet_outcomes() -> dict[str, snippet_runner.Outcome]:
    """Run (or reuse from the build cache) every snippet once per test session."""
    with one_worker_at_a_time():
        return snippet_runner.run_all()


@pytest.fixture(scope="session")
def results():
    """``results("four_steps")`` -> that snippet's SnippetResults.

    The first call brings every snippet up to date at once (in parallel, cached); a
    snippet that fails fails only the tests that ask for it. With EXPLAINER_ONLY_ASKED=1 each
    call brings only the snippet it names up to date (its own run: not the runs with more
    seeds a build adds when a claim is undecided), so a contributor testing one snippet in a
    fresh checkout waits for that snippet, not for all of them."""
    failures: dict[str, str] = {}
    outcomes: dict[str, snippet_runner.Outcome] = {}
    only_asked = os.environ.get("EXPLAINER_ONLY_ASKED") == "1"

    def get(name: str) -> SnippetResults:
        if only_asked and name not in outcomes and name not in failures:
            with one_worker_at_a_time():
                outcomes.update(snippet_runner.run_all(only=[name], failures=failures))
        elif not outcomes and not failures:
            with one_worker_at_a_time():
                outcomes.update(snippet_runner.run_all(failures=failures))
        if name in failures:
            pytest.fail(failures[name], pytrace=False)
        return SnippetResults(outcomes[name])
    return get


@pytest.fixture(scope="session")
def built_site(snippet_outcomes) -> Path:
    """Both languages built strictly (a broken link fails here)."""
    site = ROOT / ".cache" / "test-site"  # not site/: a `make serve` may be using it
    with one_worker_at_a_time():
        completed = subprocess.run([sys.executable, "-m", "tools.pages.build_site",
                                    "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return site


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served on localhost, as a reader's browser would see it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(StaticSite, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


CHROMIUM, CHROMIUM_ARGS = print_pdf.CHROMIUM, print_pdf.CHROMIUM_ARGS


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, driven by Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is missing: run `make setup` (Debian package chromium)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site_url):
    """A fresh tab that records requests leaving localhost, failed responses and console errors.

    Requests to other origins are aborted, so a page that depends on a CDN fails visibly.
    """
    context = browser.new_context()
    tab = context.new_page()
    tab.outside_requests = []
    tab.console_errors = []
    tab.failed_responses = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(site_url) or url.startswith("data:") or url.startswith("blob:"):
            request_route.continue_()
        else:
            tab.outside_requests.append(url)
            request_route.abort()

    tab.route("**/*", route)
    tab.on("console", lambda message: message.type == "error" and tab.console_errors.append(message.text))
    tab.on("response", lambda response: response.status >= 400
           and tab.failed_responses.append(f"{response.status} {response.url}"))
    tab.on("pageerror", lambda error: tab.console_errors.append(str(error)))
    yield tab
    context.close()
