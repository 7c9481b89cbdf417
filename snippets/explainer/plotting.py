"""Figure style shared by every snippet: CJK-capable fonts, a neutral
background that reads in light and dark page schemes, reproducible SVGs."""

import matplotlib

matplotlib.use("Agg")  # no screen needed; figures are written to files

import matplotlib.pyplot as plt
from matplotlib import font_manager

LANGS = ("en", "zh")

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
    # Text as outlines: the browser needs no font, and Chinese never shows as tofu.
    "svg.fonttype": "path",
    # Same input, same bytes: no random ids, no timestamp.
    "svg.hashsalt": "attention-explainer",
    # A light card that stays readable on Material's dark ("slate") scheme too.
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "figure.dpi": 100,
})

# Perceptually uniform and readable with colour-vision deficiencies.
SEQUENTIAL_CMAP = "viridis"


def save_svg(fig, path) -> None:
    """Write ``fig`` as a byte-reproducible SVG and close it."""
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
