"""Code where the idea is: a named cell of a snippet, shown in a page's prose.

A snippet names the cells a reader copies with a jupytext tag:

    # %% tags=["scores"]
    scores = Q @ K.T                      # (T, T)
    print(scores[IT].round(1))

and a page shows that cell, with what it printed in the build's run right under it, by

    {{ code("scores") }}                  (a cell of the page's snippet; page_macros.py)

The first cell a page shows carries one line on what the cells need (numpy, torch and
matplotlib only, or the project's ``explainer`` package) with the ``pip install`` command that
installs it at the pins of requirements.txt, the versions that computed the page's numbers.
Cells that record numbers (``report.``), hold bilingual labels or style figures stay
unnamed: a page cannot show them (``bookkeeping`` says why, and the build refuses).
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.running import notebooks

PLAIN_PACKAGES = ("numpy", "torch", "matplotlib")  # what a copied cell may need without explainer
SHARED_PACKAGE = "explainer"
# Modules of explainer that need one of its optional extras (snippets/pyproject.toml).
EXTRAS = {"explainer.minilm": "minilm"}   # the real all-MiniLM-L6-v2 weights and their readers
# Figure styling: the calls and keywords that dress a figure rather than compute it.
STYLING_CALLS = {"set_title", "set_xlabel", "set_ylabel", "set_xticks", "set_yticks",
                 "set_xticklabels", "set_yticklabels", "tick_params", "legend", "colorbar",
                 "suptitle", "subplots_adjust", "tight_layout", "set_facecolor", "grid",
                 "column_figure", "plain_log_ticks", "rc", "use"}
PRINTING = {"set_printoptions", "printoptions"}  # numpy's linewidth= is not a line style
STYLING_NAMES = {"rcParams", "SEQUENTIAL_CMAP", "DIVERGING_CMAP", "MATH_FONT_PT"}
STYLING_KEYWORDS = {"color", "colors", "cmap", "fontsize", "linewidth", "lw", "alpha",
                    "marker", "linestyle", "ls", "rotation", "ha", "rotation_mode"}

UI = {
    "en": {"plain": "Runs with {packages} only, at the versions that computed this page's numbers: "
                    "`{install}`; then copy the cells of this page in order.",
           "shared": "Needs the project's `explainer` package (and {packages}), at the versions that "
                     "computed this page's numbers: `{install}`; then copy the cells of this page in order.",
           "output": "Output"},
    "zh": {"plain": "只需 {packages}，装上算出本页数字的版本：`{install}`；然后按顺序复制本页的单元格即可运行。",
           "shared": "需要本项目的 `explainer` 包（以及 {packages}），装上算出本页数字的版本："
                     "`{install}`；然后按顺序复制本页的单元格。",
           "output": "输出"},
}


class CellError(ValueError):
    """A page asks for a cell its snippet does not name, or for one it may not show."""


@dataclass
class ShownCell:
    snippet: str      # module path, e.g. three_roles.scaling
    name: str         # the cell's tag
    source: str       # its code
    index: int        # its place among the snippet's cells (the key of cells.json)


def cell_named(path: Path, snippet: str, name: str) -> ShownCell:
    cells = notebooks.read_cells(path.read_text(encoding="utf-8"))
    found = [i for i, c in enumerate(cells) if c.kind == "code" and name in c.tags]
    if len(found) != 1:
        named = sorted({t for c in cells for t in c.tags})
        raise CellError(f"snippets/{snippet.replace('.', '/')}.py has {len(found)} cells tagged "
                        f"{name!r} (one wanted; it names: {', '.join(named) or 'none'})")
    return ShownCell(snippet, name, cells[found[0]].source, found[0])


def shown_cells(calls: list, paths: dict[str, Path]) -> list[ShownCell]:
    """The cells a page's calls (page_macros.calls) show, in page order."""
    return [cell_named(paths[c.snippet], c.snippet, c.key) for c in calls if c.kind == "code" and c.key]


def imported_modules(source: str) -> set[str]:
    """Every module a piece of code imports, by its full dotted name."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def imported_packages(source: str) -> set[str]:
    """Top-level packages a piece of code imports (the standard library left out)."""
    return {module.split(".")[0] for module in imported_modules(source)} - set(sys.stdlib_module_names)


def explainer_files(cells: list[ShownCell]) -> set[Path]:
    """The files of the explainer package the cells import, followed transitively."""
    from tools.running import snippet_runner  # here: it imports numpy, which explainer wants first
    return snippet_runner.shared_modules_of([n for c in cells for n in snippet_runner.imported_names_of(c.source)])


def extras(cells: list[ShownCell]) -> tuple[str, ...]:
    """The explainer extras the cells need: those of the modules they reach, directly or not."""
    from tools.running import snippet_runner
    reached = {".".join(f.relative_to(snippet_runner.SNIPPETS).with_suffix("").parts)
               for f in explainer_files(cells)}
    return tuple(sorted({extra for module, extra in EXTRAS.items() if module in reached}))


def shared_package(cells: list[ShownCell]) -> str:
    """What a reader installs for these cells: explainer, with the extras its modules need
    ("explainer[minilm]" for the real model's weights)."""
    wanted = extras(cells)
    return SHARED_PACKAGE + (f"[{','.join(wanted)}]" if wanted else "")


def install_arguments(cells: list[ShownCell], repo_url: str) -> list[str]:
    """What the page's line gives `pip install`: the pins of requirements.txt, as the notebooks
    install them (tools/running/notebooks.py pins_for), of the distributions the cells import and,
    when they import explainer, of those its modules import and of all its pyproject makes pip
    install by name; then the package itself, from the repository."""
    from tools.running import snippet_runner

    shared, packages = needs(cells)
    if not shared:
        return notebooks.pins_for(set(packages), explainer=False)
    modules = {n.split(".")[0] for c in cells for n in snippet_runner.imported_names_of(c.source)}
    for path in explainer_files(cells):
        modules |= {n.split(".")[0] for n in snippet_runner.imported_names(path)}
    return [*notebooks.pins_for(modules, explainer=True, extras=extras(cells)),
            notebooks.explainer_requirement(repo_url, shared_package(cells))]


def install_line(cells: list[ShownCell], repo_url: str) -> str:
    """The page's `pip install …` command, as its line shows it."""
    return "pip install " + notebooks.shell_words(install_arguments(cells, repo_url))


def needs(cells: list[ShownCell]) -> tuple[bool, list[str]]:
    """(needs explainer?, the plain packages the cells import, in a fixed order)."""
    packages = set().union(*(imported_packages(c.source) for c in cells)) if cells else set()
    other = packages - {SHARED_PACKAGE, *PLAIN_PACKAGES}
    if other:
        raise CellError(f"the cells shown ({', '.join(c.name for c in cells)}) import "
                        f"{', '.join(sorted(other))}: a copied cell may need only "
                        f"{', '.join(PLAIN_PACKAGES)} or {SHARED_PACKAGE}")
    return SHARED_PACKAGE in packages, [p for p in PLAIN_PACKAGES if p in packages]


def bookkeeping(source: str) -> list[str]:
    """What in a cell is bookkeeping rather than computation: recording numbers, a bilingual
    label dictionary, figure styling. Empty: a reader may be shown it."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == "report":
            problems.append(f"line {node.lineno}: records through `report`")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for module in modules:
                if module in ("explainer.report", "explainer.plotting"):
                    problems.append(f"line {node.lineno}: imports {module} (recording or styling)")
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if {"en", "zh"} <= keys:
                problems.append(f"line {node.lineno}: a label dictionary ('en' and 'zh' keys)")
        elif isinstance(node, ast.Call):
            keywords = {k.arg for k in node.keywords}
            if {"en", "zh"} <= keywords:
                problems.append(f"line {node.lineno}: labels in both languages (en=, zh=)")
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in STYLING_CALLS:
                problems.append(f"line {node.lineno}: figure styling ({name})")
            # alpha= with a number is a mark's opacity; with a name it is a test's significance
            # level (c21_passes(..., alpha=ALPHA)), which is computation
            significance = {k.arg for k in node.keywords if k.arg == "alpha" and not isinstance(k.value, ast.Constant)}
            for keyword in sorted(keywords & STYLING_KEYWORDS - significance if name not in PRINTING else set()):
                problems.append(f"line {node.lineno}: figure styling ({keyword}=)")
        elif isinstance(node, (ast.Attribute, ast.Name)):
            name = node.attr if isinstance(node, ast.Attribute) else node.id
            if name in STYLING_NAMES:
                problems.append(f"line {node.lineno}: figure styling ({name})")
    return sorted(set(problems), key=lambda p: int(p.split()[1].rstrip(":")))


def needs_line(cells: list[ShownCell], lang: str, repo_url: str) -> str:
    shared, packages = needs(cells)
    listed = {"en": " and ".join([", ".join(packages[:-1]), packages[-1]] if len(packages) > 1 else packages),
              "zh": "、".join(packages)}[lang] or "Python"
    return UI[lang]["shared" if shared else "plain"].format(packages=listed, install=install_line(cells, repo_url))


def printed(run_dir: Path | None, cell: ShownCell) -> str | None:
    """What the cell printed in the build's run (None: not run, e.g. EXPLAINER_NO_EXEC=1)."""
    if run_dir is None or not (run_dir / "cells.json").is_file():
        return None
    for entry in json.loads((run_dir / "cells.json").read_text(encoding="utf-8")):
        if entry["cell"] == cell.index:
            return entry["stdout"]
    return None


def render(cell: ShownCell, output: str | None, lang: str, needs_text: str | None = None) -> str:
    """Markdown for one shown cell: [what it needs], the code (copy button), its output."""
    problems = bookkeeping(cell.source)
    if problems:
        raise CellError(f"cell {cell.name!r} of {cell.snippet} is bookkeeping, not for the page: "
                        + "; ".join(problems))
    parts = []
    if needs_text:
        parts.append(f"{needs_text}\n{{: .cell-needs }}")
    parts.append(f'```{{ .python .cell-code title="{cell.name}" data-search-exclude="" }}\n{cell.source}\n```')
    if output:
        label = UI[lang]["output"]
        parts.append(f'````{{ .text .cell-output title="{label}" data-search-exclude="" }}\n{output.rstrip()}\n````')
    return "\n\n".join(parts)


def indented(text: str, indent: str) -> str:
    """A block placed where a placeholder stood, inside a list item or an admonition."""
    return "\n".join(indent + line if line.strip() else line for line in text.split("\n")).lstrip()
