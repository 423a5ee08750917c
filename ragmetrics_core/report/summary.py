"""Per-metric figures over a set of results, and the plain-text table the CLI prints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import Direction, EvaluationResult

AggregateMode = Literal["determined", "ragchecker"]

# RAGChecker's diagnostic grouping: whole-answer quality, then what the retriever and the generator did.
DIAGNOSTIC_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Overall", ("overall_precision", "overall_recall", "overall_f1")),
    ("Retriever", ("claim_recall", "chunk_precision")),
    (
        "Generator",
        (
            "context_utilization",
            "noise_sensitivity_relevant",
            "noise_sensitivity_irrelevant",
            "hallucination",
            "self_knowledge",
            "faithfulness",
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """``mean`` over the samples that determined the metric (``determined`` mode), or over every evaluated
    sample counting undetermined as 0 (``ragchecker`` mode, as RAGChecker reports)."""

    metric: str
    mean: float | None
    count: int
    undetermined: int
    direction: Direction


def summarize(results: Sequence[EvaluationResult], mode: AggregateMode = "determined") -> list[MetricSummary]:
    """One :class:`MetricSummary` per metric seen, in first-seen order; failed samples are left out."""
    scored = [result for result in results if result.error is None]
    directions: dict[str, Direction] = {}
    for result in scored:
        for metric, entry in result.scores.items():
            directions.setdefault(metric, entry.direction)
    summaries: list[MetricSummary] = []
    for metric, direction in directions.items():
        values = [result.score(metric) for result in scored if metric in result.scores]
        determined = [value for value in values if value is not None]
        if mode == "ragchecker":
            mean = sum(determined) / len(values) if values else None
        else:
            mean = sum(determined) / len(determined) if determined else None
        summaries.append(
            MetricSummary(metric, mean, len(determined), len(values) - len(determined), direction)
        )
    return summaries


def total_usage(results: Sequence[EvaluationResult]) -> Usage:
    total = Usage()
    for result in results:
        total = total + result.usage
    return total


def format_table(summaries: Sequence[MetricSummary]) -> str:
    if not summaries:
        return "no scores"
    width = max(len("metric"), *(len(summary.metric) for summary in summaries))
    lines = [f"{'metric':<{width}}  {'mean':>6}  {'count':>5}  {'undetermined':>12}  direction"]
    lines.append("-" * len(lines[0]))
    for summary in summaries:
        mean = "—" if summary.mean is None else f"{summary.mean:.3f}"
        arrow = (
            "↑ higher is better" if summary.direction is Direction.HIGHER_IS_BETTER else "↓ lower is better"
        )
        lines.append(
            f"{summary.metric:<{width}}  {mean:>6}  {summary.count:>5}  {summary.undetermined:>12}  {arrow}"
        )
    return "\n".join(lines)


def format_usage(usage: Usage) -> str:
    parts = [f"{usage.calls} LLM calls"]
    if usage.embedding_calls:
        parts.append(f"{usage.embedding_calls} embedding calls")
    parts.append(f"{usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens")
    if usage.cache_hits:
        parts.append(f"{usage.cache_hits} cache hits")
    parts.append(f"{usage.latency_s:.1f} s judging")
    cost = "no price known (see --price)" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    return f"judge usage: {', '.join(parts)}; estimated cost: {cost}"
