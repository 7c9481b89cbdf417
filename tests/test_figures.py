"""The figure style every snippet shares: Chinese glyphs, reproducible bytes."""

import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets"))
from explainer import plotting  # noqa: E402
from explainer.plotting import plt  # noqa: E402


def draw(path: Path) -> None:
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.imshow([[0.1, 0.9], [0.5, 0.5]], cmap=plotting.SEQUENTIAL_CMAP)
    ax.set_title("注意力权重 attention weight")
    ax.set_xlabel("键（被关注的词）")
    plotting.save_svg(fig, path)


def test_chinese_labels_are_drawn_with_real_glyphs(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw(tmp_path / "zh.svg")
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []
    # Text is stored as outlines: one <path> per distinct glyph, no <text> left for a font to render.
    svg = (tmp_path / "zh.svg").read_text(encoding="utf-8")
    assert "<text" not in svg and svg.count('<path id="') >= 10


def test_same_figure_gives_the_same_bytes(tmp_path):
    draw(tmp_path / "a.svg")
    draw(tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
