"""A browser test marked ``@pytest.mark.remembered`` passes again on the same site.

Such a test opens one or a few views of the built site and checks what it sees there (the
explorer's links and keys, the language switch, the copy button). Its pass is kept under a
key of the test's id, every file of the built site but the print pages and the PDFs (which
name a commit, and which these tests never open), the recorded results of the snippets,
the test's module with the test modules it imports, conftest and tests/remembered.py, and
the tools' versions; ``@pytest.mark.remembered(code=[...])`` adds the sources of the tools
it exercises beyond the built site (paths from the checkout's root). A warm `make test`
reports it passed without opening the browser; any change to one of those runs it. Tests
that go through every page keep their measurements per page instead (tests/remembered.py).

    EXPLAINER_MEASURE_AGAIN=1 python -m pytest   # run them all
"""

import functools
import re
from pathlib import Path

import pytest

import remembered

NOT_SHOWN = re.compile(r"(^|/)print_page/|\.pdf$")
REMEMBERED_KEY = pytest.StashKey[Path]()
KEPT = pytest.StashKey[bool]()


@functools.cache
def _site(site: Path) -> str:
    files = sorted(f for f in site.rglob("*") if f.is_file() and not NOT_SHOWN.search(f.relative_to(site).as_posix()))
    return remembered._digest(*(f.relative_to(site).as_posix() + remembered._file_digest(f) for f in files))


@functools.cache
def _results() -> str:
    files = sorted((remembered.ROOT / ".cache" / "snippets").glob("*/results.json"))
    words = sorted((remembered.ROOT / "snippets").rglob("*.strings.toml"))  # read with the results
    return remembered._digest(*(f.parent.name + remembered._file_digest(f) for f in files),
                              *(f.name + remembered._file_digest(f) for f in words))


def _test_modules(module: Path) -> list[str]:
    """The test's module and the test modules it imports (helpers such as all_pages)."""
    names = re.findall(r"^(?:from|import) (test_\w+)", module.read_text(encoding="utf-8"), re.M)
    return [str(module), *(str(module.parent / f"{name}.py") for name in names
                           if (module.parent / f"{name}.py").is_file())]


def pass_key(nodeid: str, site: Path, module: Path, code=()) -> Path:
    """Where a pass of the test ``nodeid`` on these inputs is kept (``code``: more sources it
    exercises, as paths from the checkout's root)."""
    inputs = remembered._digest(nodeid, _site(site), _results(), remembered._file_digest(Path(__file__)))
    return remembered.key("test-pass", inputs, *_test_modules(module),
                          *(str(remembered.ROOT / path) for path in code))


def pytest_configure(config):
    config.addinivalue_line("markers", "remembered: a browser test whose pass is kept under a key of the "
                                       "built site, the results, its code and the tools (tests/remembered_passes.py)")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """After the fixtures are set up (the site built this session): a kept pass is not run again."""
    marker = pyfuncitem.get_closest_marker("remembered")
    if marker is None:
        return None
    stored = pass_key(pyfuncitem.nodeid, remembered.ROOT / ".cache" / "test-site", Path(pyfuncitem.path),
                      marker.kwargs.get("code", ()))
    pyfuncitem.stash[REMEMBERED_KEY] = stored
    if remembered.recall(stored) is not None:
        pyfuncitem.stash[KEPT] = True
        return True  # passed on exactly these inputs before
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    stored = item.stash.get(REMEMBERED_KEY, None)
    if report.when == "call" and stored is not None:
        if item.stash.get(KEPT, False):
            report.sections.append(("remembered", f"passed before on the same inputs ({stored.name[:12]})"))
        elif report.passed:
            remembered.keep(stored, {"nodeid": item.nodeid})
    return report


def pytest_terminal_summary(terminalreporter):
    kept = [r for r in terminalreporter.stats.get("passed", [])
            if any(name == "remembered" for name, _ in r.sections)]
    if kept:
        terminalreporter.write_line(
            f"{len(kept)} browser tests passed before on the same site, results, code and tools and were "
            f"not run again (tests/remembered_passes.py; EXPLAINER_MEASURE_AGAIN=1 runs them)")
