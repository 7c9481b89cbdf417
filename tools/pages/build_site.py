"""Build the whole site: run the snippets once, then the English build (site/)
and the Chinese build (site/zh/), both strict, then a PDF of each language (printed by
Chromium from the print page). Exit status 1 on any failure.

    python -m tools.pages.build_site
    python -m tools.pages.build_site --site-dir .cache/test-site  # elsewhere than site/
    EXPLAINER_NO_EXEC=1 python -m tools.pages.build_site          # pages only, snippets not run
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from tools.pages import print_pdf
from tools.running import snippet_runner

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("mkdocs.yml", "mkdocs.zh.yml")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, default=ROOT / "site")
    site_dir = parser.parse_args().site_dir.resolve()
    start = time.perf_counter()
    if os.environ.get("EXPLAINER_NO_EXEC") != "1":
        try:
            snippet_runner.run_all()
        except snippet_runner.SnippetError as error:
            print(f"ERROR: {error}", file=sys.stderr)
            return 1
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    # The two languages build side by side (one core each). The English build cleans its
    # site dir, so the Chinese one builds next to it and moves into site/zh/ afterwards.
    zh_dir = site_dir.with_name(f".{site_dir.name}-zh")
    builds = {config: subprocess.Popen(
                  [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", config,
                   "--site-dir", str(target)], cwd=ROOT, env=env)
              for config, target in zip(CONFIGS, (site_dir, zh_dir))}
    print(f"building {', '.join(CONFIGS)} ...", flush=True)
    failed = [config for config, build in builds.items() if build.wait() != 0]
    if failed:
        print(f"ERROR: mkdocs build -f {' -f '.join(failed)} failed", file=sys.stderr)
        return 1
    zh_dir.rename(site_dir / "zh")
    for path in print_pdf.print_site(site_dir):
        print(f"printed {path.relative_to(site_dir)}")
    print(f"site built in {time.perf_counter() - start:.1f} s: {site_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
