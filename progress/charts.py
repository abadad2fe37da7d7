"""Geometry for the dashboard's SVG charts: pure, so the numbers are tested without a browser.

Every chart prints its values as text beside the marks, so it reads without colour, and every
page that shows one also has a table with the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 20, 40  # room for axis labels


def _y(percent: float) -> float:
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - percent / 100), 1)


def _gridlines() -> list[dict]:
    return [{"y": _y(p), "label": f"{p}%"} for p in (0, 25, 50, 75, 100)]


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    value: float
    label: str


def trend(scores: list[tuple[str, float]]) -> dict:
    """A line of exam scores (percent) in the order taken, with a labelled marker per exam."""
    n = len(scores)
    span = WIDTH - LEFT - RIGHT
    step = span / (n - 1) if n > 1 else 0
    points = [
        Point(round(LEFT + (i * step if n > 1 else span / 2), 1), _y(v), v, label)
        for i, (label, v) in enumerate(scores)
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "bottom": HEIGHT - BOTTOM,
        "grid": _gridlines(),
        "points": points,
        "polyline": " ".join(f"{p.x},{p.y}" for p in points),
        "label_every": max(1, n // 8),  # x-axis labels: at most about eight
    }


def calibration(rows) -> dict:
    """One bar per certainty level (share right), and a dashed box for the range it pays in."""
    span = WIDTH - LEFT - RIGHT
    slot = span / max(1, len(rows))
    bar_w = round(slot * 0.5, 1)
    bars = []
    for i, row in enumerate(rows):
        x = round(LEFT + slot * i + (slot - bar_w) / 2, 1)
        low, high = row.window
        pct = row.percent
        bars.append(
            {
                "x": x,
                "w": bar_w,
                "cx": round(x + bar_w / 2, 1),
                "y": _y(pct or 0),
                "h": round(_y(0) - _y(pct or 0), 1),
                "band_y": _y(high),
                "band_h": round(_y(low) - _y(high), 1),
                "row": row,
                "text": "no answers" if pct is None else f"{pct}% ({row.right} of {row.answers})",
                "text_y": max(TOP + 12, _y(pct or 0) - 6),
            }
        )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "bottom": HEIGHT - BOTTOM,
        "grid": _gridlines(),
        "bars": bars,
    }
