"""Figure style shared by every snippet: drawn for the page's column, CJK-capable
fonts, reproducible SVGs, and a dark twin of every figure for the dark theme.

    fig, ax = plotting.column_figure(height=3.2)          # the full column
    fig, axes = plotting.column_figure(height=5, nrows=2) # tall rather than wide
"""

import hashlib
import io
import re
from pathlib import Path

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


# Every data line and marker stands out from the background it is drawn on: a contrast of
# at least 3 : 1 (WCAG's bar for graphical objects), in the light figure and in its dark twin.
# A mark drawn at least this opaque is measured as blended with the background; a fainter one
# (one thin line per seed behind their mean) is faint on purpose, and only its colour is held
# to the bar.
MIN_CONTRAST = 3.0
BLENDED_FROM_ALPHA = 0.6


def relative_luminance(color) -> float:
    """WCAG relative luminance of an sRGB colour."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in mcolors.to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(color, background) -> float:
    """WCAG contrast ratio of two colours, from 1 (same) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(color), relative_luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def shown_colour(color, alpha: float, background) -> tuple:
    """The colour a mark drawn with ``alpha`` shows over ``background`` (blended in sRGB, as a
    browser draws it); a fainter mark than BLENDED_FROM_ALPHA counts by its own colour."""
    rgb, paper = mcolors.to_rgb(color), mcolors.to_rgb(background)
    if alpha < BLENDED_FROM_ALPHA:
        return rgb
    return tuple(alpha * c + (1 - alpha) * p for c, p in zip(rgb, paper))


def legible_colour(color, background):
    """``color`` (an RGBA tuple, its alpha kept) moved toward black on a light background or
    toward white on a dark one, just enough to reach MIN_CONTRAST; unchanged if it does."""
    r, g, b, a = mcolors.to_rgba(color)
    if a == 0:
        return (r, g, b, a)
    ink = (0.0, 0.0, 0.0) if relative_luminance(background) > 0.18 else (1.0, 1.0, 1.0)
    for step in range(51):
        t = step / 50
        mixed = tuple((1 - t) * c + t * i for c, i in zip((r, g, b), ink))
        if contrast_ratio(shown_colour(mixed, a, background), background) >= MIN_CONTRAST:
            return (*mixed, a)
    return (*ink, a)


def _mark_alpha(artist, color) -> float:
    """How opaque a mark is drawn: a collection's colours carry its alpha already."""
    from matplotlib.collections import Collection

    alpha = None if isinstance(artist, Collection) else artist.get_alpha()
    return mcolors.to_rgba(color)[3] * (1.0 if alpha is None else alpha)


def _legible(artist_color, artist, background):
    """The artist's colour, made legible, as RGBA with the artist's own alpha folded in
    (so the mark keeps its look while the check sees what is drawn)."""
    r, g, b, a = mcolors.to_rgba(artist_color)
    alpha = _mark_alpha(artist, artist_color)
    r, g, b, _ = legible_colour((r, g, b, alpha), background)
    return (r, g, b, a)


def legible_data(fig, background=None) -> None:
    """Recolour in place every data line and marker of ``fig`` that has too little contrast
    with the background of its axes (the axes' face, or ``background`` where it is
    transparent). Axes that show an image or a colour mesh are left alone: their lines are
    drawn against the image. A marker coloured by a colour map keeps its colour (it is read
    against the colour bar) and gets a legible edge instead."""
    from matplotlib.collections import LineCollection, PathCollection

    for ax in fig.axes:
        if ax.images or any(type(c).__name__ == "QuadMesh" for c in ax.collections):
            continue
        face = ax.get_facecolor()
        paper = face[:3] if face[3] > 0 else mcolors.to_rgb(background or "white")
        legend = ax.get_legend()
        lines = list(ax.get_lines()) + (list(legend.get_lines()) if legend else [])
        for line in lines:
            if not line.get_visible():
                continue
            line.set_color(_legible(line.get_color(), line, paper))
            for get, put in ((line.get_markerfacecolor, line.set_markerfacecolor),
                             (line.get_markeredgecolor, line.set_markeredgecolor)):
                colour = get()
                if not (isinstance(colour, str) and colour == "none"):
                    put(_legible(colour, line, paper))
        handles = list(getattr(legend, "legend_handles", []) or []) if legend else []
        for collection in list(ax.collections) + handles:
            if not isinstance(collection, (PathCollection, LineCollection)):
                continue
            if collection.get_array() is not None:  # colour-mapped: a legible edge instead
                collection.update_scalarmappable()
                faces = collection.get_facecolor()
                if any(contrast_ratio(shown_colour(c[:3], _mark_alpha(collection, c), paper),
                                      paper) < MIN_CONTRAST for c in faces):
                    ink = legible_colour((0.2, 0.2, 0.2, 1.0) if relative_luminance(paper) > 0.18
                                         else (0.85, 0.85, 0.85, 1.0), paper)
                    collection.set_edgecolor(ink)
                    collection.set_linewidth(0.6)
                continue
            if isinstance(collection, PathCollection):
                collection.set_facecolor([_legible(c, collection, paper)
                                          for c in collection.get_facecolor()])
            edges = collection.get_edgecolor()
            if len(edges):
                collection.set_edgecolor([_legible(c, collection, paper) for c in edges])


def save_svg(fig, path, close: bool = True) -> None:
    """Write ``fig`` as a byte-reproducible SVG (and close it unless ``close=False``)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    Path(path).write_text(stable_clip_ids(buffer.getvalue()), encoding="utf-8")
    if close:
        plt.close(fig)


_CLIP_PATH = re.compile(r'<clipPath id="([^"]+)">(.*?)</clipPath>', re.DOTALL)


def stable_clip_ids(svg: str) -> str:
    """Name each clip path after the shape as written, not as computed: matplotlib hashes
    the full-precision rectangle, whose last bits can differ between two runs of one
    layout, so the same file could come out with other ids."""
    renames = {}
    for old, shape in _CLIP_PATH.findall(svg):
        digest = hashlib.sha256(f"{matplotlib.rcParams['svg.hashsalt']}{shape}".encode()).hexdigest()
        new = f"clip{digest[:10]}"
        while new in renames.values():  # two clips written alike (their last bits differed)
            new += "a"
        renames[old] = new
    for old, new in renames.items():
        svg = svg.replace(f'id="{old}"', f'id="{new}"').replace(f"url(#{old})", f"url(#{new})")
    return svg


def plain_log_ticks(axis, values=None) -> None:
    """Label a log axis with plain numbers (1, 4, 16 … or 1e-06), not 2¹⁰ or 10⁻⁶,
    whose exponents would be drawn at two thirds of the label size."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if values is not None:
        axis.set_ticks(values)
    axis.set_major_formatter(FuncFormatter(
        lambda v, _: f"{v:g}" if 1e-3 <= abs(v) < 1e5 or v == 0 else f"{v:.0e}"))
    axis.set_minor_formatter(NullFormatter())
