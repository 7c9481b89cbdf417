"""Build the whole site: run the snippets once, then the English build (site/)
and the Chinese build (site/zh/), both strict, then a PDF of each language (printed by
Chromium from the print page). Exit status 1 on any failure.

    python -m tools.pages.build_site
    python -m tools.pages.build_site --site-dir .cache/test-site  # elsewhere than site/
    EXPLAINER_NO_EXEC=1 python -m tools.pages.build_site          # pages only, snippets not run
    python -m tools.pages.build_site --again                      # even if nothing changed

A site dir built from the same inputs (``inputs_key``) is left as it is; one that is not, while
the other site dir (site/ or .cache/test-site/, the tests' copy) is, becomes a copy of that one:
``make test`` after ``make build`` builds nothing again.
"""

import argparse
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

from tools.pages import print_page, print_pdf
from tools.running import fingerprints, snippet_runner

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("mkdocs.yml", "mkdocs.zh.yml")
READ = ("docs", "snippets", "tools", *CONFIGS, "requirements.txt", "package-lock.json")
SKIPPED_PARTS = {"__pycache__", ".ipynb_checkpoints",
                 "build", "explainer.egg-info"}   # what pip leaves in snippets/ when it installs it
NOT_READ = {"tools/running/durations.json",      # how long snippets take: the order they start in,
            "tools/running/fingerprints.json"}   # what their numbers hash to: not the site
BUILT = ROOT / ".cache" / "built"  # the inputs each site dir was last built from
SITE_DIRS = (ROOT / "site", ROOT / ".cache" / "test-site")   # the build's and the tests'


def inputs_key(site_dir: Path, root: Path = ROOT) -> str:
    """Everything a build reads: the files of docs/, snippets/ (the committed notebooks as the
    build leaves them) and tools/, the configs and pins; the newest commit that changed the
    site (the pages' dates, the translation notices and the PDFs' cover come from git); the
    installed packages, the CPU kernels, Chromium and the EXPLAINER_ / SNIPPET_ settings."""
    digest = hashlib.sha256(f"{site_dir}\n{print_page.site_commit(root)}\n{_installed()}\n".encode())
    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith(("EXPLAINER_", "SNIPPET_")))
    digest.update(f"{settings}\n".encode())
    for name in READ:
        place = root / name
        for path in sorted([place] if place.is_file() else place.rglob("*")):
            if path.is_file() and not SKIPPED_PARTS & set(path.parts) \
                    and path.relative_to(root).as_posix() not in NOT_READ:
                digest.update(f"{path.relative_to(root)}\n".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def _installed() -> str:
    """The installed packages, the CPU kernels and Chromium: the same for a whole process."""
    chromium = subprocess.run([print_pdf.CHROMIUM, "--version"], capture_output=True, text=True).stdout
    # every installed distribution (the site's tools too), not only what snippets import
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                   if d.metadata["Name"] != snippet_runner.SHARED_PACKAGE)
    return f"{sys.version}\n{dists}\n{snippet_runner.KERNELS}\n{chromium}"


def _stamp(site_dir: Path) -> Path:
    return BUILT / hashlib.sha256(str(site_dir).encode()).hexdigest()[:16]


def is_current(site_dir: Path, root: Path = ROOT) -> bool:
    """Whether ``site_dir`` holds both languages, built from the inputs there are now."""
    stamp = _stamp(site_dir)
    return (all((d / "index.html").is_file() for d in (site_dir, site_dir / "zh"))
            and stamp.is_file() and stamp.read_text() == inputs_key(site_dir, root))


def copy_of_current(site_dir: Path, others=SITE_DIRS, root: Path = ROOT) -> Path | None:
    """Make ``site_dir`` a copy of another site dir built from the inputs there are now (the
    build's output does not depend on where it is written); that dir, or None."""
    for other in others:
        if other.resolve() != site_dir and is_current(other.resolve(), root):
            shutil.rmtree(site_dir, ignore_errors=True)
            shutil.copytree(other, site_dir, symlinks=True)
            BUILT.mkdir(parents=True, exist_ok=True)
            _stamp(site_dir).write_text(inputs_key(site_dir, root))
            return other
    return None


def _pages_and_pdfs(site_dir: Path) -> bool:
    """The two languages' builds side by side (one core each), each language's PDF printed as
    soon as its pages are built: the English PDF while the Chinese build may still run.
    The English build cleans its site dir, so the Chinese one builds next to it and moves
    into site/zh/ once the English build is done."""
    start = time.perf_counter()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    zh_dir = site_dir.with_name(f".{site_dir.name}-zh")
    builds = {config: subprocess.Popen(
                  [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", config,
                   "--site-dir", str(target)], cwd=ROOT, env=env)
              for config, target in zip(CONFIGS, (site_dir, zh_dir))}
    print(f"building {', '.join(CONFIGS)} ...", flush=True)

    def built(config: str) -> bool:
        ok = builds[config].wait() == 0
        print(f"{'built' if ok else 'FAILED'} {config} ({time.perf_counter() - start:.1f} s)", flush=True)
        return ok

    def printed(lang: str) -> None:
        for path in print_pdf.print_site(site_dir, [lang]):
            print(f"printed {path.relative_to(site_dir)} ({time.perf_counter() - start:.1f} s)", flush=True)

    with ThreadPoolExecutor(max_workers=1) as printing:
        english = built(CONFIGS[0])
        en_pdf = printing.submit(printed, "en") if english else None
        chinese = built(CONFIGS[1])
        if english and chinese:
            zh_dir.rename(site_dir / "zh")
            printed("zh")
        if en_pdf is not None:
            en_pdf.result()
    failed = [config for config, ok in zip(CONFIGS, (english, chinese)) if not ok]
    if failed:
        print(f"ERROR: mkdocs build -f {' -f '.join(failed)} failed", file=sys.stderr)
    return not failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, default=ROOT / "site")
    parser.add_argument("--again", action="store_true", help="build even if nothing changed")
    args = parser.parse_args()
    site_dir = args.site_dir.resolve()
    start = time.perf_counter()
    stamp = _stamp(site_dir)
    if not args.again and is_current(site_dir):
        print(f"{site_dir}: built from these same inputs before, left as it is "
              f"({time.perf_counter() - start:.1f} s; --again builds it anyway)")
        return 0
    if not args.again and (other := copy_of_current(site_dir)) is not None:
        print(f"{site_dir}: copied from {other}, built from these same inputs "
              f"({time.perf_counter() - start:.1f} s; --again builds it anyway)")
        return 0
    stamp.unlink(missing_ok=True)
    if os.environ.get("EXPLAINER_NO_EXEC") != "1":
        try:
            snippet_runner.run_all(live=sys.stdout.isatty())
        except snippet_runner.SnippetError as error:
            print(f"ERROR: {error}", file=sys.stderr)
            return 1
        for line in fingerprints.compare(fingerprints.load(), fingerprints.of_cache()).lines():
            print(f"WARNING: {line}", flush=True)
    if not _pages_and_pdfs(site_dir):
        return 1
    BUILT.mkdir(parents=True, exist_ok=True)
    stamp.write_text(inputs_key(site_dir))  # after the build: the notebooks as it wrote them
    print(f"site built in {time.perf_counter() - start:.1f} s: {site_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
