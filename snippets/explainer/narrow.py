"""The narrow variant of a figure, for a phone's column (about 360 CSS px): the same
artists re-laid out rather than the wide figure scaled, so its text stays at the size it
was drawn (9 pt and up = 12 CSS px and up at natural size).

    small = narrow.narrow_copy(fig)   # an independent copy; ``fig`` is left as it was

What changes, generically: the panels of a grid are stacked in one column (reading order:
left to right, then down), each with its own tick labels; the figure is NARROW_WIDTH_IN
wide and as tall as its stacked panels need; legends go below their axes (a figure legend
below the figure); automatic numeric ticks are fewer; tick labels that collide are turned
upright, and thinned if they still collide; a title or label wider than the column breaks
into lines. Colour bars follow their panels. A snippet whose figure needs more passes its
own layout to ``Report.figure(..., narrow=...)``.
"""

from __future__ import annotations

import copy
import pickle

import matplotlib.pyplot as plt
from matplotlib import transforms
from matplotlib.gridspec import GridSpec
from matplotlib.text import Text

from explainer import narrow_text

# 3.45 in, and the 0.1 in that saving leaves around the drawing on each side: 3.65 in =
# 350 CSS px, which fits a 390-px phone's column (358 px) at natural size.
NARROW_WIDTH_IN = 3.45
MIN_PANEL_HEIGHT_IN, MAX_PANEL_HEIGHT_IN = 1.7, 3.0
LEGEND_GAP_PT = 4


def copy_figure(fig):
    """An independent copy of ``fig`` (its artists, data and styles), to be laid out anew."""
    try:
        return pickle.loads(pickle.dumps(fig))
    except Exception:  # a lambda formatter cannot be pickled; deepcopy keeps it by reference
        return copy.deepcopy(fig)


def _is_colorbar(ax) -> bool:
    return hasattr(ax, "_colorbar_info") or hasattr(ax, "_colorbar")


def _slots(fig):
    """The figure's panels grouped by place (a twin axes shares its panel's place), in
    reading order: top row first, left to right."""
    groups: list[list] = []
    boxes: list = []
    for ax in fig.axes:
        if hasattr(ax, "_colorbar_info") or not ax.get_visible():
            continue  # a colour bar made beside its axes follows them; one in its own axes is a strip
        box = ax.get_position(original=True)
        for i, other in enumerate(boxes):
            if abs(other.x0 - box.x0) < 1e-3 and abs(other.y0 - box.y0) < 1e-3 \
                    and abs(other.width - box.width) < 1e-3:
                groups[i].append(ax)
                break
        else:
            groups.append([ax])
            boxes.append(box)
    # Rows: panels whose vertical centres lie within half a panel of each other.
    order = sorted(range(len(groups)), key=lambda i: (-round(boxes[i].y1, 2), boxes[i].x0))
    return [groups[i] for i in order], [boxes[i] for i in order]


def _fixed_aspect(ax) -> bool:
    return ax.get_aspect() != "auto" or ax.get_box_aspect() is not None


def _panel_height(ax, box, fig_size, width_in: float) -> float:
    """The height (in) a panel gets in the narrow column."""
    w0, h0 = box.width * fig_size[0], box.height * fig_size[1]
    if hasattr(ax, "_colorbar"):  # a colour bar in its own axes: a strip as thick as it was
        return h0 if ax._colorbar.orientation == "horizontal" else min(h0, MAX_PANEL_HEIGHT_IN)
    aspect = ax.get_aspect()
    if aspect != "auto" or ax.get_box_aspect() is not None:
        ratio = h0 / w0 if w0 > 0 else 1.0
        if ax.get_box_aspect() is not None:
            ratio = ax.get_box_aspect()
        elif aspect != "auto":
            x0, x1 = ax.get_xlim()
            y0, y1 = ax.get_ylim()
            ratio = abs(y1 - y0) / abs(x1 - x0) * float(aspect) if x1 != x0 else ratio
        return min(max(width_in * ratio, 0.8), MAX_PANEL_HEIGHT_IN)
    return min(max(h0 * 0.85, MIN_PANEL_HEIGHT_IN), MAX_PANEL_HEIGHT_IN)


def _legend_parts(legend):
    handles = list(getattr(legend, "legend_handles", None) or legend.legendHandles)
    labels = [t.get_text() for t in legend.texts]
    size = legend.texts[0].get_fontsize() if legend.texts else plt.rcParams["legend.fontsize"]
    title = legend.get_title()
    frame = legend.get_frame_on()
    return handles, labels, size, title, frame


def _columns_that_fit(widths_pt: list[float], room_pt: float, handle_pt: float) -> int:
    for ncols in range(min(len(widths_pt), 3), 0, -1):
        per_row = [widths_pt[i:i + ncols] for i in range(0, len(widths_pt), ncols)]
        column_widths = [max(row[c] for row in per_row if c < len(row)) for c in range(ncols)]
        if sum(w + handle_pt for w in column_widths) <= room_pt:
            return ncols
    return 1


def _text_width_pt(text: str, size: float, renderer, fig) -> float:
    probe = Text(0, 0, text, fontsize=size, figure=fig)
    return probe.get_window_extent(renderer).width * 72 / fig.dpi


def _fitting_labels(labels, size, renderer, fig, room_pt: float) -> list[str]:
    """Legend labels, each broken into lines no wider than the room beside its handle."""
    text_room = room_pt - 3.2 * size
    return [narrow_text.wrapped(label, lambda line: _text_width_pt(line, size, renderer, fig) <= text_room)
            if "$" not in label else label for label in labels]


def _move_legend_below(ax, legend, renderer, fig, room_pt: float, below_pt: float) -> None:
    """Below the axes, no wider than them (wider, it would squeeze them in a constrained
    layout)."""
    handles, labels, size, title, frame = _legend_parts(legend)
    room_pt = max(ax.get_window_extent(renderer).width * 72 / fig.dpi + 24, 120)
    labels = _fitting_labels(labels, size, renderer, fig, room_pt)
    widths = [max(_text_width_pt(line, size, renderer, fig) for line in label.split("\n"))
              for label in labels]
    ncols = _columns_that_fit(widths, room_pt, handle_pt=3.2 * size)
    kwargs = {}
    if title is not None and title.get_text():
        kwargs.update(title=title.get_text(), title_fontsize=title.get_fontsize())
    legend.remove()
    anchor = transforms.offset_copy(ax.transAxes, fig=fig, y=-(below_pt + LEGEND_GAP_PT), units="points")
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
              ncols=ncols, fontsize=size, frameon=False, borderaxespad=0, **kwargs)


def _move_figure_legend_below(fig, legend, renderer, room_pt: float) -> None:
    handles, labels, size, title, frame = _legend_parts(legend)
    labels = _fitting_labels(labels, size, renderer, fig, room_pt)
    widths = [max(_text_width_pt(line, size, renderer, fig) for line in label.split("\n"))
              for label in labels]
    ncols = _columns_that_fit(widths, room_pt, handle_pt=3.2 * size)
    kwargs = {}
    if title is not None and title.get_text():
        kwargs.update(title=title.get_text(), title_fontsize=title.get_fontsize())
    legend.remove()
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=size,
               frameon=False, **kwargs)


def _outer_below_pt(ax, renderer, fig) -> float:
    """How far (pt) the x axis' labels reach below the axes."""
    box = ax.get_window_extent(renderer)
    below = box.y0
    for axis in (ax.xaxis,):
        extent = axis.get_tightbbox(renderer)
        if extent is not None and extent.height > 0:
            below = min(below, extent.y0)
    return (box.y0 - below) * 72 / fig.dpi


def narrow_copy(fig, width: float = NARROW_WIDTH_IN):
    """A copy of ``fig`` laid out for a phone's column (see the module's docstring)."""
    small = copy_figure(fig)
    old_size = tuple(small.get_size_inches())
    slots, boxes = _slots(small)
    colorbar_right = any(_is_colorbar(ax) and getattr(ax, "_colorbar_info", {}).get("location")
                         in ("right", "left") for ax in small.axes)
    panel_width = width - 0.9 - (0.9 if colorbar_right else 0)
    heights = [_panel_height(group[0], box, old_size, panel_width) for group, box in zip(slots, boxes)]
    columns = len({round(b.x0, 2) for group, b in zip(slots, boxes) if not hasattr(group[0], "_colorbar")})
    panels = [ax for group in slots for ax in group if not hasattr(ax, "_colorbar")]

    small._layout_engine = None
    small.set_layout_engine("constrained")
    small.set_size_inches(width, sum(heights) + 0.9 * len(slots))
    grid = None
    if slots:
        grid = GridSpec(len(slots), 1, figure=small, height_ratios=heights)
        for i, group in enumerate(slots):
            for ax in group:
                ax.set_subplotspec(grid[i])
                if columns > 1 and ax in panels:  # a panel from a row shows its own y tick labels now
                    ax.yaxis.set_tick_params(which="both", labelleft=ax.yaxis.get_ticks_position()
                                             in ("left", "default", "unknown"))
                    for label in ax.get_yticklabels():
                        label.set_visible(True)
        for ax in small.axes:
            if _is_colorbar(ax) and ax.get_subplotspec() is not None and ax not in sum(slots, []):
                ax._subplotspec = None  # placed by its parents (constrained layout), not a grid
    for ax in panels:
        narrow_text.fewer_ticks(ax)
        if ax.get_legend() is not None:  # moved below later; until then it squeezes nothing
            ax.get_legend().set_in_layout(False)
    for legend in small.legends:
        legend.set_in_layout(False)

    renderer = small.canvas.get_renderer()
    small.draw_without_rendering()
    room_pt = width * 72 - 12
    for ax in panels:
        narrow_text.untangle_tick_labels(ax, renderer)
    # Titles and labels wider than their axes (a y label: taller) break into lines; wider,
    # they would squeeze the axes.
    for ax in small.axes:
        box = ax.get_window_extent(renderer)
        across = max(box.width + 0.3 * small.dpi, 1.5 * small.dpi)
        for text in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label):
            if text.get_visible() and text.get_text().strip():
                narrow_text.wrap(text, renderer, across)
        if ax.yaxis.label.get_visible() and ax.yaxis.label.get_text().strip():
            narrow_text.wrap(ax.yaxis.label, renderer, max(box.height, 1.2 * small.dpi))
    room_px = (width - 0.15) * small.dpi
    for text in (small._suptitle, getattr(small, "_supxlabel", None)):
        if text is not None and text.get_text():
            narrow_text.wrap(text, renderer, room_px)
    # (No layout again here: what the x axis takes below the axes is a matter of points.)
    for ax in panels:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            _move_legend_below(ax, legend, renderer, small, room_pt, _outer_below_pt(ax, renderer, small))
    for legend in list(small.legends):
        _move_figure_legend_below(small, legend, renderer, room_pt)
    # Grow the figure to what the stacked panels need: each panel keeps its height, and
    # what is drawn around it (labels, a legend below) is added to the figure.
    _fit_height(small, grid, slots, heights)
    return small


def _fit_height(fig, grid, slots, heights) -> None:
    """Make the figure as tall as its panels need: a panel of free shape gets its planned
    height; one of fixed shape (a heat map) the height its width gives it, so no band of
    empty space is left above and below it."""
    if grid is None:
        return
    for attempt in range(2):
        fig.draw_without_rendering()
        w, h = fig.get_size_inches()
        wanted, given = [], []
        for group, planned in zip(slots, heights):
            ax = group[0]
            cell = ax.get_position(original=True)
            given.append(cell.height * h)
            if _fixed_aspect(ax) and not hasattr(ax, "_colorbar"):
                shown = ax.get_position(original=False)
                ratio = (shown.height * h) / (shown.width * w) if shown.width > 0 else 1.0
                wanted.append(min(cell.width * w * ratio, MAX_PANEL_HEIGHT_IN))
            else:
                wanted.append(planned)
        change = sum(wanted) - sum(given)
        if abs(change) < 0.03 and all(abs(a - b) < 0.05 for a, b in zip(wanted, given)):
            return
        grid.set_height_ratios(wanted)
        fig.set_size_inches(w, max(h + change, 1.0))
        # Free panels get their height at once; a heat map's depends on the width it gets.
        if not any(_fixed_aspect(group[0]) for group in slots):
            return


def problems(fig, width: float = NARROW_WIDTH_IN) -> list[str]:
    """What looks wrong in a narrow layout (for whoever checks it): texts drawn over each
    other, axes squeezed to a sliver, a figure much wider than the column."""
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    found, overlaps = [], []
    undrawn = set()  # labels of ticks outside the axis' view: kept, but not drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                loc = tick.get_loc()
                if loc is None or not low - slack <= loc <= high + slack:
                    undrawn.update({id(tick.label1), id(tick.label2)})
    boxes = [(t, t.get_window_extent(renderer)) for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0 and id(t) not in undrawn]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            if not box_a.overlaps(box_b):
                continue
            w = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            h = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            smaller = min(box_a.width * box_a.height, box_b.width * box_b.height)
            if w > 1 and h > 1 and smaller > 0 and w * h > 0.15 * smaller:
                overlaps.append(f"{a.get_text()[:20]!r} / {b.get_text()[:20]!r}")
    if overlaps:
        found.append(f"{len(overlaps)} pairs of texts overlap: {'; '.join(overlaps[:3])}")
    for ax in fig.axes:
        if _is_colorbar(ax) or not ax.get_visible():
            continue
        box = ax.get_window_extent(renderer)
        if box.width < 1.2 * fig.dpi or box.height < 0.8 * fig.dpi:
            found.append(f"axes squeezed to {box.width / fig.dpi:.1f} x {box.height / fig.dpi:.1f} in")
    tight = fig.get_tightbbox(renderer)
    if tight.width > width + 0.4:
        found.append(f"{tight.width:.1f} in wide")
    return found
