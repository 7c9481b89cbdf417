"""Text that fits a phone's column, for the narrow variant of a figure (narrow.py): titles,
labels and legend entries broken into lines at spaces or between Chinese characters, and x
tick labels that collide made fewer, upright or thinned."""

from __future__ import annotations

import math
import re

from matplotlib.ticker import AutoLocator, MaxNLocator

CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]")


def break_points(text: str) -> list[int]:
    """Where a line may break: after a space, or between two CJK characters (never inside
    $…$ math)."""
    points, in_math = [], False
    for i, ch in enumerate(text):
        if ch == "$":
            in_math = not in_math
        if in_math or i == 0:
            continue
        if ch == " " or (CJK.match(ch) and CJK.match(text[i - 1])) or \
                (CJK.match(text[i - 1]) and text[i - 1] in "，、；：。）"):
            points.append(i)
    return points


def wrapped(text: str, fits) -> str:
    """``text`` broken into lines for which ``fits(line)`` holds, at spaces or between
    Chinese characters (a line that cannot break stays whole)."""
    lines = []
    for paragraph in text.split("\n"):
        rest = paragraph
        while rest and not fits(rest):
            best = 0
            for p in break_points(rest):
                if fits(rest[:p].rstrip()):
                    best = p
                else:
                    break
            if not best:
                break
            lines.append(rest[:best].rstrip())
            rest = rest[best:].lstrip()
        lines.append(rest)
    return "\n".join(lines)


def wrap(text_artist, renderer, room_px: float) -> None:
    """Break a text wider than ``room_px`` (along its direction) into lines that fit."""
    if "$" in text_artist.get_text():
        return
    upright = abs(text_artist.get_rotation() % 180 - 90) < 1
    original = text_artist.get_text()

    def fits(line: str) -> bool:
        text_artist.set_text(line)
        box = text_artist.get_window_extent(renderer)
        return (box.height if upright else box.width) <= room_px

    if fits(original):
        text_artist.set_text(original)
        return
    text_artist.set_text(wrapped(original, fits))


def overlapping(labels, renderer, vertical: bool = False) -> bool:
    boxes = [t.get_window_extent(renderer) for t in labels if t.get_visible() and t.get_text().strip()]
    if vertical:
        boxes.sort(key=lambda b: b.y0)
        return any(a.y1 > b.y0 + 0.5 for a, b in zip(boxes, boxes[1:]))
    boxes.sort(key=lambda b: b.x0)
    return any(a.x1 > b.x0 - 2 for a, b in zip(boxes, boxes[1:]))


def fewer_ticks(ax) -> None:
    for axis, nbins in ((ax.xaxis, 6),):  # the y axis keeps about its height
        if axis.get_scale() != "linear":
            continue
        locator = axis.get_major_locator()
        if type(locator) is AutoLocator or type(locator) is MaxNLocator:
            axis.set_major_locator(MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]))


def untangle_tick_labels(ax, renderer) -> None:
    """Turn colliding x tick labels upright; thin them (every k-th) if they still collide."""
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text().strip()]
    if len(labels) < 2 or not overlapping(labels, renderer):
        return
    if type(ax.xaxis.get_major_locator()) is MaxNLocator:  # numbers: fewer of them, not upright
        for nbins in (4, 3, 2):
            ax.xaxis.set_major_locator(MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]))
            labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text().strip()]
            if not overlapping(labels, renderer):
                return
    for t in labels:
        t.set_rotation(90)
        t.set_horizontalalignment("center")
        t.set_rotation_mode("default")
    ax.tick_params(axis="x", labelrotation=90)
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text().strip()]
    heights = [t.get_window_extent(renderer).width for t in labels]
    ticks = ax.get_xticks()
    if len(ticks) < 2:
        return
    step_px = abs(ax.transData.transform((ticks[1], 0))[0] - ax.transData.transform((ticks[0], 0))[0])
    line_px = max(heights) * 1.1
    if step_px and line_px > step_px:
        every = math.ceil(line_px / step_px)
        for i, t in enumerate(ax.get_xticklabels()):
            if i % every:
                t.set_visible(False)
