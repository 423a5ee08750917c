"""A run's summary as text and as an HTML table: what ``print(summary)``, a notebook and the CLI show.

It reads the summary's entries by their fields only, so it sits below :mod:`ragmetrics_core.aggregate` (whose
:class:`~ragmetrics_core.aggregate.DatasetReport` renders itself with it) without importing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Protocol

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import Direction

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class MetricFigures(Protocol):
    """What a summary says about one metric (:class:`~ragmetrics_core.aggregate.MetricAggregate`)."""

    @property
    def metric(self) -> str: ...
    @property
    def mean(self) -> float | None: ...
    @property
    def count(self) -> int: ...
    @property
    def undetermined(self) -> int: ...
    @property
    def direction(self) -> Direction: ...
    @property
    def undetermined_by_reason(self) -> Mapping[str, int]: ...


def format_table(entries: Iterable[MetricFigures]) -> str:
    """One line per metric: mean, determined and undetermined counts, direction, and why undetermined."""
    rows = list(entries)
    if not rows:
        return "no scores"
    width = max(len("metric"), *(len(entry.metric) for entry in rows))
    header = f"{'metric':<{width}}  {'mean':>6}  {'count':>5}  {'undetermined':>12}  {'direction':<18}"
    lines = [header + "  why undetermined"]
    lines.append("-" * len(lines[0]))
    for entry in rows:
        lines.append(
            f"{entry.metric:<{width}}  {_mean(entry.mean):>6}  {entry.count:>5}  {entry.undetermined:>12}  "
            f"{_arrow(entry.direction):<18}  {undetermined_reasons(entry)}".rstrip()
        )
    return "\n".join(lines)


def format_html_table(entries: Iterable[MetricFigures]) -> str:
    """The same table as :func:`format_table`, as HTML (every text escaped)."""
    rows = "".join(
        f"<tr><td><code>{escape(entry.metric)}</code></td><td style='text-align:right'>{_mean(entry.mean)}</td>"
        f"<td style='text-align:right'>{entry.count}</td><td style='text-align:right'>{entry.undetermined}</td>"
        f"<td>{_arrow(entry.direction)}</td><td>{escape(undetermined_reasons(entry))}</td></tr>"
        for entry in entries
    )
    if not rows:
        return "<p>no scores</p>"
    return (
        "<table><thead><tr><th>metric</th><th>mean</th><th>count</th><th>undetermined</th><th>direction</th>"
        f"<th>why undetermined</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def format_counts(samples: int, failed: int, mode: str) -> str:
    """``12 samples, 1 failed (left out of the scores); aggregation: determined``."""
    counted = f"{samples} sample{'' if samples == 1 else 's'}"
    if failed:
        counted += f", {failed} failed (left out of the scores)"
    return f"{counted}; aggregation: {mode}"


def undetermined_reasons(entry: MetricFigures) -> str:
    """``no reference 3, judge error 1``: why a metric's undetermined samples are undetermined."""
    return ", ".join(f"{kind} {count}" for kind, count in entry.undetermined_by_reason.items())


def format_usage(usage: Usage) -> str:
    parts = [f"{usage.calls} LLM calls"]
    if usage.embedding_calls:
        parts.append(f"{usage.embedding_calls} embedding calls")
    parts.append(f"{usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens")
    if usage.cache_hits:
        parts.append(f"{usage.cache_hits} cache hits")
    parts.append(f"{usage.latency_s:.1f} s judging")
    if usage.cost_usd is not None:
        cost = f"${usage.cost_usd:.4f}"
    elif usage.calls == 0 and usage.embedding_calls == 0:
        cost = "$0 (no paid calls)"
    else:
        cost = "unknown (no price for this model; pass --price)"
    return f"judge usage: {', '.join(parts)}; estimated cost: {cost}"


def _mean(mean: float | None) -> str:
    return "—" if mean is None else f"{mean:.3f}"


def _arrow(direction: Direction) -> str:
    return "↑ higher is better" if direction is Direction.HIGHER_IS_BETTER else "↓ lower is better"

