"""The figure style every snippet shares: Chinese glyphs, reproducible bytes."""

import io
import re
import sys
import tokenize
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


# --- Every data line and marker stands out from its background, light and dark ------------

SVG = "{http://www.w3.org/2000/svg}"


def _style(node) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in node.get("style", "").split(";") if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def _shown(node, paint: str, background) -> tuple | None:
    """The colour a path or marker's ``paint`` (fill or stroke) shows, as the figure style
    measures it (plotting.shown_colour); None where it paints nothing."""
    style = _style(node)
    colour = style.get(paint, node.get(paint))
    if not colour or not colour.startswith("#"):
        return None
    alpha = float(style.get(f"{paint}-opacity", 1)) * float(style.get("opacity", 1))
    return plotting.shown_colour(colour, alpha, background)


def data_marks(svg_text: str, page_background: str) -> list[tuple[str, float]]:
    """Every data line and marker of a matplotlib SVG with its contrast against the
    background it is drawn on (its axes' face, or the page where that is transparent).
    Lines are the paths of ``line2d_*`` / ``LineCollection_*`` groups outside the axis
    groups (ticks, grid); markers are their ``<use>`` elements and those of
    ``PathCollection_*`` groups (scatter), counted by the better of fill and edge. Axes
    showing an image or a colour mesh are skipped: their marks are read against the image."""
    import xml.etree.ElementTree as ElementTree

    marks = []
    root = ElementTree.fromstring(svg_text)
    for axes in root.iter(SVG + "g"):
        if not (axes.get("id") or "").startswith("axes_"):
            continue
        if any(e.tag == SVG + "image" or (e.get("id") or "").startswith("QuadMesh") for e in axes.iter()):
            continue
        background = page_background
        face = next((g.find(SVG + "path") for g in axes.findall(SVG + "g")
                     if (g.get("id") or "").startswith("patch_")), None)
        if face is not None and _style(face).get("fill", "").startswith("#"):
            background = _style(face)["fill"]

        def walk(node):
            group = node.get("id") or ""
            if group.startswith(("matplotlib.axis", "text_")):
                return
            kind = group.split("_")[0]
            if node.tag == SVG + "g" and kind in ("line2d", "LineCollection", "PathCollection"):
                for element in node.iter():
                    if element.tag == SVG + "path" and kind != "PathCollection" and element.get("id") is None:
                        shown = _shown(element, "stroke", background)
                        if shown:
                            marks.append((f"{group} line", plotting.contrast_ratio(shown, background)))
                    if element.tag == SVG + "use":
                        ratios = [plotting.contrast_ratio(c, background)
                                  for c in (_shown(element, p, background) for p in ("fill", "stroke")) if c]
                        if ratios:
                            marks.append((f"{group} marker", max(ratios)))
                return
            for child in node:
                walk(child)
        walk(axes)
    return marks


def draw_curves(path: Path, dark: bool, legible: bool) -> str:
    """Viridis' darkest colour as a curve and as markers, as a snippet would draw them."""
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [0, 1, 0], color="#440154", lw=2, label="one head")
    ax.plot([0, 1, 2], [1, 0, 1], color="#fde725", lw=0.8, alpha=0.3)
    ax.scatter([0.5, 1.5], [0.5, 0.5], color="#fde725")
    ax.legend()
    if legible:
        plotting.legible_data(fig, background="white")
    if dark:
        plotting.to_dark(fig)
        if legible:
            plotting.legible_data(fig, background=plotting.DARK_BACKGROUND)
    plotting.save_svg(fig, path)
    return path.read_text(encoding="utf-8")


def test_the_contrast_measure_finds_a_dark_curve_on_the_dark_background(tmp_path):
    dark = data_marks(draw_curves(tmp_path / "d.svg", dark=True, legible=False), plotting.DARK_BACKGROUND)
    light = data_marks(draw_curves(tmp_path / "l.svg", dark=False, legible=False), "#ffffff")
    # The curve, its legend line, the faint line and the two markers, in each scheme.
    assert len(dark) == len(light) >= 5
    assert min(ratio for _, ratio in dark) < 1.2        # #440154 on #1e2129
    assert min(ratio for _, ratio in light) < 1.3       # #fde725 on white


def test_legible_data_lifts_every_line_and_marker_to_3_to_1(tmp_path):
    for dark, background in ((False, "#ffffff"), (True, plotting.DARK_BACKGROUND)):
        marks = data_marks(draw_curves(tmp_path / f"{dark}.svg", dark, legible=True), background)
        assert len(marks) >= 5 and min(r for _, r in marks) >= plotting.MIN_CONTRAST, marks


def test_every_figure_line_and_marker_stands_out_in_both_schemes(results):
    from tools.running import snippet_runner

    faint, measured = [], 0
    for name in sorted(snippet_runner.name_of(path) for path in snippet_runner.discover()):
        run = results(name)
        for key, by_lang in run.data["figures"].items():
            for lang, figure in by_lang.items():
                for file, background in ((figure["file"], "#ffffff"),
                                         (figure["dark_file"], plotting.DARK_BACKGROUND),
                                         (figure["narrow_file"], "#ffffff"),
                                         (figure["narrow_dark_file"], plotting.DARK_BACKGROUND)):
                    marks = data_marks((run.dir / file).read_text(encoding="utf-8"), background)
                    measured += len(marks)
                    faint += [f"{name}/{file}: {mark} {ratio:.2f}" for mark, ratio in marks
                              if ratio < plotting.MIN_CONTRAST]
    assert measured > 1000  # the measure sees the figures' lines at all
    assert faint == [], f"{len(faint)} marks under {plotting.MIN_CONTRAST} : 1:\n" + "\n".join(faint[:20])


# --- The narrow variant for a phone: re-laid out, not scaled; the wide figure untouched --------

def draw_row(path: Path | None = None):
    """Two panels side by side, as a snippet draws them: a line chart with a legend, and a
    heat map with a colour bar."""
    fig, (left, right) = plotting.column_figure(3.2, ncols=2)
    for k in range(3):
        left.plot(range(10), [k * x for x in range(10)], label=f"a rather long label for line {k}")
    left.set_title("a title as long as the whole of a panel")
    left.set_xlabel("steps of training")
    left.legend(loc="upper left")
    image = right.imshow([[0.1, 0.9, 0.3], [0.5, 0.5, 0.2]], cmap=plotting.SEQUENTIAL_CMAP)
    right.set_xticks(range(3), ["first token", "second token", "third token"])
    fig.colorbar(image, ax=right, label="weight")
    if path is not None:
        plotting.save_svg(fig, path, close=False)
    return fig


def test_the_narrow_variant_stacks_the_panels_in_a_phone_column_and_leaves_the_wide_figure_alone(tmp_path):
    from explainer import narrow

    fig = draw_row()
    small = narrow.narrow_copy(fig)
    plotting.save_svg(fig, tmp_path / "wide.svg")
    draw_row(tmp_path / "untouched.svg")
    assert (tmp_path / "wide.svg").read_bytes() == (tmp_path / "untouched.svg").read_bytes()

    renderer = small.canvas.get_renderer()
    small.draw_without_rendering()
    panels = [ax for ax in small.axes if not hasattr(ax, "_colorbar")]
    (top, bottom) = sorted(panels, key=lambda ax: -ax.get_position().y0)
    assert top.get_position().y0 > bottom.get_position().y1  # one above the other
    assert top.get_legend() is not None  # below its axes now
    assert top.get_legend().get_window_extent(renderer).y1 < top.get_window_extent(renderer).y0
    assert plotting.smallest_font_pt(small) >= plotting.MIN_FONT_PT
    assert narrow.problems(small) == []
    plotting.save_svg(small, tmp_path / "narrow.svg")
    width = float(re.search(r'width="([\d.]+)pt"', (tmp_path / "narrow.svg").read_text()).group(1))
    assert width / 72 <= narrow.NARROW_WIDTH_IN + 0.2 + 0.05, width / 72  # savefig pads 0.1 in a side


# A share stated in a caption or alt text: "62 of 72", "7/8", "65%", "8 个种子中有 6 个".
SHARE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?) ?%"
                   r"|(?<![\d.])(\d+) (?:of|out of) (\d+)(?![\d.])"
                   r"|(?<![\d./])(\d+)/(\d+)(?![\d./])"
                   r"|(?<![\d.])(\d+) ?个[^，。；,;]{0,8}?中有 ?(\d+)(?![\d.])")


def code_constants(source: str) -> set[float]:
    """The numeric literals of a snippet's code (not its strings or comments): design
    choices such as a 0.95 threshold or 600 steps, which a caption may state."""
    constants = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NUMBER:
            try:
                constants.add(float(token.string.replace("_", "")))
            except ValueError:  # complex literals
                pass
    return constants


def unrecorded_shares(text: str, recorded: set[float], constants: set[float]) -> list[str]:
    """Shares in ``text`` whose numbers are neither recorded by the run nor constants of the
    code: a percentage must match a recorded fraction at the precision shown; in "a of b"
    the part a must be recorded, the whole b recorded or a constant."""
    def is_recorded(x: float) -> bool:
        return any(abs(value - x) < 1e-9 for value in recorded)

    def is_fraction(shown: str) -> bool:
        decimals = len(shown.partition(".")[2])
        return (any(round(value * 100, decimals) == float(shown) for value in recorded)
                or float(shown) / 100 in constants or float(shown) in constants)

    wrong = []
    for match in SHARE.finditer(text):
        percent, part, whole = match.group(1), None, None
        for i in (2, 4):
            if match.group(i):
                part, whole = match.group(i), match.group(i + 1)
        if match.group(6):
            whole, part = match.group(6), match.group(7)
        ok = (is_fraction(percent) if percent else
              is_recorded(float(part)) and (is_recorded(float(whole)) or float(whole) in constants))
        if not ok:
            wrong.append(match.group(0))
    return wrong


def test_a_typed_share_in_a_caption_is_caught():
    recorded, constants = {7.0, 8.0, 0.6493, 72.0, 62.0}, {0.95, 600.0}
    assert unrecorded_shares("forms in 7 of 8 seeds; right 65% of the time; a line at 95 %", recorded, constants) == []
    assert unrecorded_shares("62 of 72 heads; 在 7/8 个种子里; 8 个种子中有 7 个", recorded, constants) == []
    assert unrecorded_shares("forms in 6 of 8 seeds", recorded, constants) == ["6 of 8"]
    assert unrecorded_shares("right 64% of the time", recorded, constants) == ["64%"]
    assert unrecorded_shares("在 7/9 个种子里；8 个种子中有 5 个", recorded, constants) == ["7/9", "8 个种子中有 5"]
    assert unrecorded_shares("layers 1 to 6, 600 steps, a 6 × 12 grid", recorded, constants) == []


def test_no_caption_or_alt_text_states_a_share_the_run_did_not_record(results):
    from tools.running import snippet_runner

    typed, shares = [], 0
    for path in snippet_runner.discover():
        name = snippet_runner.name_of(path)
        run = results(name)
        recorded = {float(n["value"]) for n in run.data["numbers"].values()
                    if isinstance(n["value"], (int, float))}
        constants = code_constants(path.read_text(encoding="utf-8"))
        for key, by_lang in run.data["figures"].items():
            for lang, figure in by_lang.items():
                for field in ("caption", "alt"):
                    text = figure.get(field, "")
                    shares += len(SHARE.findall(text))
                    typed += [f"{name} {key} ({lang} {field}): {share}"
                              for share in unrecorded_shares(text, recorded, constants)]
    assert shares > 10  # the pattern sees the captions' shares at all
    assert typed == [], "shares no run recorded:\n" + "\n".join(typed)


def test_clip_path_ids_follow_the_written_shape_not_its_last_bits(tmp_path):
    # Two layouts that differ below the written precision: matplotlib names their clip
    # paths differently (it hashes the full-precision rectangle); the saved files agree.
    raw = []
    for shift in (0.0, 1e-12):
        fig, ax = plt.subplots(figsize=(3, 2), layout="none")
        ax.plot([0, 1], [0, 1])
        left, bottom, width, height = ax.get_position().bounds
        ax.set_position([left + shift, bottom, width, height])
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(fig)
        raw.append(buffer.getvalue())
    assert raw[0] != raw[1]
    first, second = (plotting.stable_clip_ids(svg) for svg in raw)
    assert first == second
    ids = re.findall(r'<clipPath id="([^"]+)"', first)
    assert ids and all(f"url(#{name})" in first for name in ids)
    assert len(set(ids)) == len(ids)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    plotting.save_svg(fig, tmp_path / "saved.svg")
    assert re.findall(r'<clipPath id="(clip[0-9a-f]{10})"', (tmp_path / "saved.svg").read_text(encoding="utf-8"))


def test_clip_paths_written_alike_keep_distinct_ids():
    svg = ('<clipPath id="p1"><rect x="1"/></clipPath><clipPath id="p2"><rect x="1"/></clipPath>'
           '<g clip-path="url(#p1)"/><g clip-path="url(#p2)"/>')
    out = plotting.stable_clip_ids(svg)
    ids = re.findall(r'<clipPath id="([^"]+)"', out)
    assert len(set(ids)) == 2
    assert [f"url(#{name})" in out for name in ids] == [True, True]
