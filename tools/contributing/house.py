"""How a snippet file reads to a newcomer (issue 34): its length and its bookkeeping share.

    python -m tools.contributing.house            # every snippet file, worst first
    python -m tools.contributing.house --over     # only those over the bounds
    python -m tools.contributing.house --floor    # and the least share each file could reach

The floor is the share a file would have if every statement that records were one line and
every label and every styling line were gone, its science left as it is: the recording
statements over the science lines plus those statements. A file whose floor is above the bound
cannot meet it by moving words out or joining lines; it records too many numbers, one
statement each, for the science that computes them.

The bookkeeping share is the lines of the statements that record, label or style — what
``tools.pages.code_cells.bookkeeping`` keeps out of a page's cells: ``report`` calls, bilingual
label dictionaries and ``en=``/``zh=`` keywords, figure styling — over all code lines (no blank
lines, comments or docstrings). A statement counts whole: a recording call written over three
lines is three lines of bookkeeping. The shared package ``explainer`` is not counted.
"""

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

from tools.pages.code_cells import bookkeeping

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
MAX_LINES = 400
MAX_SHARE = 0.20
COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If,
            ast.With, ast.Try)


def code_lines(source: str) -> set[int]:
    """Line numbers that hold code: not blank, not only a comment, not a docstring."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                              tokenize.DEDENT, tokenize.ENDMARKER):
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and ast.get_docstring(node, clean=False) is not None:
            lines -= set(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return lines


def bookkeeping_lines(source: str) -> set[int]:
    """Code lines of the simple statements (at any depth) that record, label or style."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and not isinstance(node, COMPOUND) \
                and bookkeeping(ast.get_source_segment(source, node)):
            found.update(range(node.lineno, node.end_lineno + 1))
    return found & code_lines(source)


def recording_statements(source: str) -> int:
    """The simple statements (at any depth) that record through ``report``."""
    return sum(1 for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.stmt) and not isinstance(node, COMPOUND)
               and any("report" in p for p in bookkeeping(ast.get_source_segment(source, node))))


def floor(source: str) -> float:
    """The least bookkeeping share: one line per recording statement, no labels, no styling."""
    science = len(code_lines(source)) - len(bookkeeping_lines(source))
    records = recording_statements(source)
    return records / (science + records) if science + records else 0.0


def measure(path: Path) -> dict:
    source = path.read_text(encoding="utf-8")
    code, kept = len(code_lines(source)), len(bookkeeping_lines(source))
    return {"file": path.relative_to(ROOT).as_posix(), "lines": len(source.splitlines()),
            "code": code, "bookkeeping": kept, "share": kept / code if code else 0.0,
            "floor": floor(source)}


def snippet_files() -> list[Path]:
    return sorted(p for p in SNIPPETS.rglob("*.py")
                  if p.relative_to(SNIPPETS).parts[0] not in ("explainer", "build")
                  and p.name != "__init__.py")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--over", action="store_true", help="only files over a bound")
    parser.add_argument("--floor", action="store_true", help="the least share each file could reach")
    args = parser.parse_args()
    rows = sorted((measure(p) for p in snippet_files()), key=lambda r: -r["share"])
    for row in rows:
        if not args.over or row["share"] > MAX_SHARE or row["lines"] > MAX_LINES:
            least = f"floor {row['floor']:6.1%}  " if args.floor else ""
            print(f"{row['share']:6.1%}  {least}{row['bookkeeping']:4d}/{row['code']:4d} code lines  "
                  f"{row['lines']:4d} lines  {row['file']}")
    code, kept = sum(r["code"] for r in rows), sum(r["bookkeeping"] for r in rows)
    print(f"all snippet files: {kept}/{code} = {kept / code:.1%} bookkeeping; "
          f"{sum(r['share'] > MAX_SHARE for r in rows)} of {len(rows)} over {MAX_SHARE:.0%}, "
          f"{sum(r['lines'] > MAX_LINES for r in rows)} over {MAX_LINES} lines")
    if args.floor:
        print(f"{sum(r['floor'] > MAX_SHARE for r in rows)} of {len(rows)} files cannot reach "
              f"{MAX_SHARE:.0%} with one recording statement per line and no labels or styling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
