"""Figure style shared by every snippet: drawn for the page's column, CJK-capable
fonts, reproducible SVGs, and a dark twin of every figure for the dark theme.

    fig, ax = plotting.column_figure(height=3.2)          # the full column
    fig, axes = plotting.column_figure(height=5, nrows=2) # tall rather than wide
"""

import re

import matplotlib

matplotlib.use("Agg")  # no screen needed; figures are written to files

import matplotlib.pyplot as plt
from matplotlib import colors as mcolors
from matplotlib import font_manager
from matplotlib.text import Text

LANGS = ("en", "zh")

# The page's content column is 688 CSS px = 516 pt = 7.17 in. A figure shown in it at
# natural size keeps its text at the size it was drawn: 9 pt = 12 CSS px.
COLUMN_WIDTH_IN = 7.1
MIN_FONT_PT = 9

# A list of families gives glyph-by-glyph fallback: Latin from DejaVu Sans,
# Chinese from Noto Sans CJK SC (Debian package fonts-noto-cjk).
CJK_FAMILY = "Noto Sans CJK SC"


def _check_cjk_font() -> None:
    names = {f.name for f in font_manager.fontManager.ttflist}
    if CJK_FAMILY not in names:
        raise RuntimeError(
            f"Font '{CJK_FAMILY}' is not installed, so Chinese labels would be drawn as "
            "empty boxes. Install it with `apt-get install fonts-noto-cjk` "
            "(or run `make setup`)."
        )


_check_cjk_font()

plt.rcParams.update({
    "font.family": ["DejaVu Sans", CJK_FAMILY],
    "axes.unicode_minus": False,
    # Sizes for a figure shown at natural size in the column (never below MIN_FONT_PT).
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9.5,
    "figure.titlesize": 12,
    # Text as outlines: the browser needs no font, and Chinese never shows as tofu.
    "svg.fonttype": "path",
    # Same input, same bytes: no random ids, no timestamp.
    "svg.hashsalt": "attention-explainer",
    # Transparent around the axes: the page's own background shows through.
    "figure.facecolor": "none",
    "savefig.facecolor": "none",
    "axes.facecolor": "white",
    "figure.dpi": 100,
})

# Perceptually uniform and readable with colour-vision deficiencies.
SEQUENTIAL_CMAP = "viridis"


def column_figure(height: float, nrows: int = 1, ncols: int = 1, width: float = COLUMN_WIDTH_IN,
                  **subplots):
    """A figure ``width`` inches wide (default: the page's column) and ``height`` tall.

    Narrower than the column is fine (it is shown at natural size); wider is not."""
    if width > COLUMN_WIDTH_IN + 1e-9:
        raise ValueError(f"a figure {width} in wide is shrunk to fit the {COLUMN_WIDTH_IN}-in "
                         "column and its text with it; stack panels (nrows) instead")
    subplots.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, figsize=(width, height), **subplots)


def smallest_font_pt(fig) -> float:
    """The smallest size of any visible, non-empty text in ``fig`` (tick labels,
    legends, annotations, colour bars), in points."""
    sizes = [t.get_fontsize() * (MATH_SHRINK if SCRIPT.search(t.get_text()) else 1)
             for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0]
    return min(sizes) if sizes else 0.0


# Mathtext draws sub- and superscripts ($W_Q$, $2^{10}$) at 0.7 of the text's size.
MATH_SHRINK = 0.7
MATH_FONT_PT = MIN_FONT_PT / MATH_SHRINK  # text with a subscript, so the subscript stays legible
SCRIPT = re.compile(r"\$[^$]*[_^][^$]*\$")


# The dark twin: what is ink on the light figure (near black) becomes light ink, and the
# white of the axes becomes the dark theme's background. Data colours stay as drawn.
DARK_BACKGROUND = "#1e2129"   # Material's slate background
LIGHT_INK = "#e2e4e9"


def _is_ink(color) -> bool:
    try:
        r, g, b, a = mcolors.to_rgba(color)
    except ValueError:
        return False
    return a > 0 and max(r, g, b) < 0.35 and max(r, g, b) - min(r, g, b) < 0.1


def _is_paper(color) -> bool:
    try:
        r, g, b, a = mcolors.to_rgba(color)
    except ValueError:
        return False
    return a > 0 and min(r, g, b) > 0.93


def to_dark(fig) -> None:
    """Recolour ``fig`` in place for the dark theme: ink light, paper dark.

    Text drawn over an image or a colour mesh keeps its colour: it was chosen for the
    colour of the cell beneath it."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    over_colours = set()
    for ax in fig.axes:
        if ax.images or any(type(c).__name__ == "QuadMesh" for c in ax.collections):
            over_colours.update(id(t) for t in ax.texts)
    for artist in fig.findobj():
        if isinstance(artist, Text):
            if id(artist) not in over_colours and _is_ink(artist.get_color()):
                artist.set_color(LIGHT_INK)
            patch = artist.get_bbox_patch()
            if patch is not None and _is_paper(patch.get_facecolor()):
                patch.set_facecolor(DARK_BACKGROUND)
        elif isinstance(artist, Line2D):
            if _is_ink(artist.get_color()):
                artist.set_color(LIGHT_INK)
            if _is_ink(artist.get_markeredgecolor()):
                artist.set_markeredgecolor(LIGHT_INK)
        elif isinstance(artist, Patch):
            if _is_paper(artist.get_facecolor()):
                artist.set_facecolor(DARK_BACKGROUND)
            if _is_ink(artist.get_edgecolor()):
                artist.set_edgecolor(LIGHT_INK)
        elif isinstance(artist, Collection):
            edges = artist.get_edgecolor()
            if len(edges) and all(_is_ink(c) for c in edges):
                artist.set_edgecolor(LIGHT_INK)
    for ax in fig.axes:
        if _is_paper(ax.get_facecolor()):
            ax.set_facecolor(DARK_BACKGROUND)
        ax.tick_params(colors=LIGHT_INK, which="both")
        for spine in ax.spines.values():
            if _is_ink(spine.get_edgecolor()):
                spine.set_edgecolor(LIGHT_INK)
        legend = ax.get_legend()
        if legend is not None:
            legend.get_frame().set_facecolor(DARK_BACKGROUND)
            legend.get_frame().set_edgecolor("#5c6070")


def save_svg(fig, path, close: bool = True) -> None:
    """Write ``fig`` as a byte-reproducible SVG (and close it unless ``close=False``)."""
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    if close:
        plt.close(fig)


def plain_log_ticks(axis, values=None) -> None:
    """Label a log axis with plain numbers (1, 4, 16 … or 1e-06), not 2¹⁰ or 10⁻⁶,
    whose exponents would be drawn at two thirds of the label size."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if values is not None:
        axis.set_ticks(values)
    axis.set_major_formatter(FuncFormatter(
        lambda v, _: f"{v:g}" if 1e-3 <= abs(v) < 1e5 or v == 0 else f"{v:.0e}"))
    axis.set_minor_formatter(NullFormatter())
