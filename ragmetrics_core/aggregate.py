"""Dataset-level figures: the mean of each metric over samples."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.results import Direction, EvaluationResult


class AggregationMode(StrEnum):
    DETERMINED = "determined"
    """Mean over the samples where the metric is determined; undetermined ones are counted apart."""
    RAGCHECKER = "ragchecker"
    """RAGChecker's rule: an undetermined metric counts as 0 in the mean over all samples."""


class MetricAggregate(BaseModel):
    metric: str
    mean: float | None
    count: int
    undetermined: int
    direction: Direction


class DatasetReport(BaseModel):
    mode: AggregationMode
    samples: int
    failed: int
    metrics: dict[str, MetricAggregate]
    usage: Usage

    def means(self) -> dict[str, float | None]:
        return {metric: entry.mean for metric, entry in self.metrics.items()}


def aggregate(
    results: Sequence[EvaluationResult], mode: AggregationMode | str = AggregationMode.DETERMINED
) -> DatasetReport:
    """Mean of every metric over ``results`` (see :class:`AggregationMode`), with counts and total usage."""
    mode = AggregationMode(mode)
    metric_ids = list(dict.fromkeys(metric for result in results for metric in result.scores))
    usage = Usage()
    for result in results:
        usage += result.usage
    entries: dict[str, MetricAggregate] = {}
    for metric in metric_ids:
        values = [result.scores[metric].score for result in results if metric in result.scores]
        determined = [value for value in values if value is not None]
        if mode is AggregationMode.RAGCHECKER:
            mean = sum(determined) / len(values) if values else None
        else:
            mean = sum(determined) / len(determined) if determined else None
        direction = METRICS[metric].direction if metric in METRICS else Direction.HIGHER_IS_BETTER
        entries[metric] = MetricAggregate(
            metric=metric, mean=mean, count=len(determined), undetermined=len(values) - len(determined),
            direction=direction,
        )
    return DatasetReport(
        mode=mode, samples=len(results), failed=sum(1 for r in results if r.error), metrics=entries, usage=usage
    )
