"""Per-metric figures over a set of results, and the plain-text table the CLI prints."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ragmetrics_core.aggregate import AggregationMode, MetricAggregate, RunningAggregate
from ragmetrics_core.formats.ragchecker import RAGCHECKER_GROUPS
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import Direction, EvaluationResult

# RAGChecker's diagnostic grouping: whole-answer quality, then what the retriever and the generator did.
DIAGNOSTIC_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (group.removesuffix("_metrics").capitalize(), tuple(keys.values())) for group, keys in RAGCHECKER_GROUPS.items()
)


def summarize(
    results: Iterable[EvaluationResult], mode: AggregationMode | str = AggregationMode.DETERMINED
) -> list[MetricAggregate]:
    """Per metric: the mean over the samples that determined it (``determined``), or over every sample
    with undetermined counted as 0 (``ragchecker``, as RAGChecker reports), plus the counts and direction.
    Samples whose whole evaluation failed are left out."""
    running = RunningAggregate(skip_failed=True)
    for position, result in enumerate(results):
        running.add(position, result)
    return summary_of(running, mode)


def summary_of(
    running: RunningAggregate, mode: AggregationMode | str = AggregationMode.DETERMINED
) -> list[MetricAggregate]:
    """:func:`summarize` of the results ``running`` was given (built with ``skip_failed=True``)."""
    return list(running.report(mode).metrics.values())


def total_usage(results: Sequence[EvaluationResult]) -> Usage:
    total = Usage()
    for result in results:
        total = total + result.usage
    return total


def format_table(summaries: Sequence[MetricAggregate]) -> str:
    if not summaries:
        return "no scores"
    width = max(len("metric"), *(len(summary.metric) for summary in summaries))
    header = f"{'metric':<{width}}  {'mean':>6}  {'count':>5}  {'undetermined':>12}  {'direction':<18}"
    lines = [header + "  why undetermined"]
    lines.append("-" * len(lines[0]))
    for summary in summaries:
        mean = "—" if summary.mean is None else f"{summary.mean:.3f}"
        arrow = "↑ higher is better" if summary.direction is Direction.HIGHER_IS_BETTER else "↓ lower is better"
        lines.append(
            f"{summary.metric:<{width}}  {mean:>6}  {summary.count:>5}  {summary.undetermined:>12}  {arrow:<18}  "
            f"{undetermined_reasons(summary)}".rstrip()
        )
    return "\n".join(lines)


def undetermined_reasons(summary: MetricAggregate) -> str:
    """``no reference 3, judge error 1``: why a metric's undetermined samples are undetermined."""
    return ", ".join(f"{kind} {count}" for kind, count in summary.undetermined_by_reason.items())


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


def __getattr__(name: str) -> object:
    """``AggregateMode``, the old second name of :class:`~ragmetrics_core.aggregate.AggregationMode`, for one
    release (it was a ``Literal`` of the same two values; the enum accepts those strings)."""
    if name == "AggregateMode":
        import warnings

        warnings.warn(
            "AggregateMode is deprecated and will be removed in the next release; use "
            "ragmetrics_core.AggregationMode (its values are the same strings)",
            DeprecationWarning,
            stacklevel=2,
        )
        return AggregationMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
