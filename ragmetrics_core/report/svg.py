"""Small inline SVG charts: a score histogram and a horizontal bar, drawn without any library."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from ragmetrics_core.results import Direction

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

BINS = 10
_GOOD = (46, 160, 67)
_BAD = (207, 34, 46)


def goodness_colour(value: float, direction: Direction) -> str:
    """Green for a good score, red for a bad one, blended in between."""
    good = value if direction is Direction.HIGHER_IS_BETTER else 1.0 - value
    good = min(1.0, max(0.0, good))
    red, green, blue = (round(b + (g - b) * good) for g, b in zip(_GOOD, _BAD, strict=True))
    return f"rgb({red},{green},{blue})"


def histogram(values: Iterable[float], direction: Direction, *, width: int = 180, height: int = 30) -> str:
    """Counts of ``values`` in ten bins over [0, 1]; each bar's tooltip gives its range and count."""
    counts = [0] * BINS
    for value in values:
        counts[min(BINS - 1, max(0, int(value * BINS)))] += 1
    tallest = max(counts) or 1
    bar_width = width / BINS
    bars: list[str] = []
    for index, count in enumerate(counts):
        bar_height = 0.0 if count == 0 else max(2.0, (height - 4) * count / tallest)
        low, high = index / BINS, (index + 1) / BINS
        colour = goodness_colour((low + high) / 2, direction)
        bars.append(
            f'<rect x="{index * bar_width + 1:.1f}" y="{height - bar_height:.1f}" '
            f'width="{bar_width - 2:.1f}" height="{bar_height:.1f}" fill="{colour}">'
            f"<title>{low:.1f}–{high:.1f}: {count} sample{'s' if count != 1 else ''}</title></rect>"
        )
    baseline = f'<line x1="0" y1="{height - 0.5}" x2="{width}" y2="{height - 0.5}" stroke="#8c959f"/>'
    label = escape(f"distribution of {sum(counts)} scores from 0 to 1")
    return (
        f'<svg class="hist" role="img" aria-label="{label}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">{"".join(bars)}{baseline}</svg>'
    )


def score_bar(value: float | None, direction: Direction, *, width: int = 160, height: int = 12) -> str:
    """A horizontal bar for a score in [0, 1] (an empty track when undetermined)."""
    track = f'<rect width="{width}" height="{height}" rx="3" fill="#eaeef2"/>'
    if value is None:
        return f'<svg class="bar" width="{width}" height="{height}" aria-hidden="true">{track}</svg>'
    filled = width * min(1.0, max(0.0, value))
    colour = goodness_colour(value, direction)
    return (
        f'<svg class="bar" width="{width}" height="{height}" aria-hidden="true">{track}'
        f'<rect width="{filled:.1f}" height="{height}" rx="3" fill="{colour}"/></svg>'
    )


def stacked_bar(parts: Sequence[tuple[str, int, str]], *, width: int = 560, height: int = 22) -> str:
    """One bar split into ``(label, count, css_class)`` segments, e.g. response claims by category."""
    total = sum(count for _, count, _ in parts)
    if total == 0:
        return ""
    x = 0.0
    segments: list[str] = []
    for label, count, css_class in parts:
        if count == 0:
            continue
        segment = width * count / total
        segments.append(
            f'<rect class="{css_class}" x="{x:.1f}" width="{segment:.1f}" height="{height}">'
            f"<title>{escape(label)}: {count} ({100 * count / total:.0f}%)</title></rect>"
        )
        x += segment
    return (
        f'<svg class="stacked" role="img" aria-label="response claims by category" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">{"".join(segments)}</svg>'
    )
