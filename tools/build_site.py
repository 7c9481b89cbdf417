"""Build the whole site: run the snippets once, then the English build (site/)
and the Chinese build (site/zh/), both strict. Exit status 1 on any failure.

    python tools/build_site.py
    EXPLAINER_NO_EXEC=1 python tools/build_site.py   # pages only, snippets not run
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import snippet_runner

ROOT = Path(__file__).resolve().parent.parent
# English first: it cleans site/, which holds site/zh/.
CONFIGS = ("mkdocs.yml", "mkdocs.zh.yml")


def main() -> int:
    start = time.perf_counter()
    if os.environ.get("EXPLAINER_NO_EXEC") != "1":
        try:
            snippet_runner.run_all()
        except snippet_runner.SnippetError as error:
            print(f"ERROR: {error}", file=sys.stderr)
            return 1
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    for config in CONFIGS:
        print(f"building {config} ...", flush=True)
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                               "-f", config], cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"ERROR: mkdocs build -f {config} failed", file=sys.stderr)
            return 1
    print(f"site built in {time.perf_counter() - start:.1f} s: {ROOT / 'site'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
