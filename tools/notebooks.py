"""Each snippet as a Jupyter notebook (snippets/notebooks/<name>.ipynb).

    python tools/notebooks.py        # (re)write the notebooks of all snippets

The notebooks are committed so that "Open in Colab" can point at them on GitHub;
tests/test_site.py fails when one is out of date with its snippet.
"""

import sys
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "snippets" / "notebooks"

SETUP_CELL = '''# %%
# Setup for running outside a checkout of the project (e.g. in Colab):
# fetch the small shared modules in snippets/explainer/ and a CJK font.
import os, subprocess, sys
if os.path.isdir("../explainer"):
    os.chdir("..")
elif not os.path.isdir("explainer"):
    subprocess.run(["git", "clone", "--depth", "1", "{repo_url}", "attention-explainer"], check=True)
    os.chdir("attention-explainer/snippets")
if "google.colab" in sys.modules:
    subprocess.run("apt-get -qq install -y fonts-noto-cjk > /dev/null && "
                   "rm -rf ~/.cache/matplotlib", shell=True, check=True)
sys.path.insert(0, os.getcwd())
'''


def notebook_json(snippet: Path, repo_url: str) -> str:
    """The snippet's percent cells, with a set-up cell after its title."""
    notebook = jupytext.read(snippet, fmt="py:percent")
    setup = jupytext.reads(SETUP_CELL.format(repo_url=repo_url), fmt="py:percent")
    notebook.cells[1:1] = setup.cells
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number}"  # nbformat would pick random ids: same snippet, same bytes
    return jupytext.writes(notebook, fmt="ipynb")


def repo_url() -> str:
    for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("repo_url:"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError("mkdocs.yml sets no repo_url")


def main() -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    import snippet_runner

    NOTEBOOKS.mkdir(exist_ok=True)
    url = repo_url()
    for snippet in snippet_runner.discover():
        target = NOTEBOOKS / f"{snippet.stem}.ipynb"
        text = notebook_json(snippet, url)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
