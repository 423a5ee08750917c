"""Dataset-level figures: the mean of each metric over samples."""

from __future__ import annotations

from collections import Counter
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
    """RAGChecker's rule: an undetermined metric counts as 0 in the mean over all samples, and the mean is summed
    the way numpy sums (:func:`pairwise_sum`), so :func:`ragchecker_figure` prints RAGChecker's very digits."""


class MetricAggregate(BaseModel):
    metric: str
    mean: float | None
    count: int
    undetermined: int
    direction: Direction
    undetermined_by_reason: dict[str, int] = {}
    """Why the undetermined samples are undetermined, by kind (:func:`reason_kind`), most frequent first."""


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
            mean = pairwise_sum([value or 0.0 for value in values]) / len(values) if values else None
        else:
            mean = sum(determined) / len(determined) if determined else None
        direction = METRICS[metric].direction if metric in METRICS else Direction.HIGHER_IS_BETTER
        kinds = Counter(
            reason_kind(result.scores[metric].reason)
            for result in results
            if metric in result.scores and result.scores[metric].score is None
        )
        entries[metric] = MetricAggregate(
            metric=metric, mean=mean, count=len(determined), undetermined=len(values) - len(determined),
            direction=direction, undetermined_by_reason=dict(kinds.most_common()),
        )
    return DatasetReport(
        mode=mode, samples=len(results), failed=sum(1 for r in results if r.error), metrics=entries, usage=usage
    )


# What an undetermined score's reason says, in a few kinds a person can act on: a missing input is the data's
# doing, a judge error or a spent budget is worth a rerun. The reasons are the engine's own wording.
_REASON_KINDS: tuple[tuple[str, str], ...] = (
    ("budget", "budget"),
    ("missing input: reference", "no reference"),
    ("missing input: retrieved_contexts", "no contexts"),
    ("missing input", "missing input"),
    ("invalid sample", "invalid sample"),
    ("endpoint unreachable", "endpoint unreachable"),
    ("evidence unavailable", "judge error"),
    ("no judge determined it", "judge error"),
    ("from the response", "no claims in the response"),
    ("from the reference", "no claims in the reference"),
    ("entities", "no entities in the reference"),
    ("questions", "no questions from the response"),
    ("could be utilised", "no reference claim in the contexts"),
)


def reason_kind(reason: str) -> str:
    """The kind of an undetermined score's reason (``no reference``, ``judge error``, ``budget``, …)."""
    lowered = reason.casefold()
    for fragment, kind in _REASON_KINDS:
        if fragment in lowered:
            return kind
    return "other"


# RAGChecker 0.1.9 reports ``round(np.mean(per_sample) * 100, 1)`` (ragchecker/evaluator.py, ``evaluate``): numpy's
# mean sums pairwise, and rounding a numpy float rounds ``x * 10`` half to even and divides by 10. Python's ``sum``
# and ``round`` differ from both in the last bit, which moves a printed figure on exact ties.
_PAIRWISE_BLOCK = 128
_UNROLL = 8


def pairwise_sum(values: Sequence[float]) -> float:
    """The sum of ``values`` exactly as numpy's ``np.add.reduce`` forms it for a 1-d float64 array: a plain loop
    below 8 values, eight interleaved partial sums up to 128, halves (a multiple of 8) above."""
    return _pairwise(values, 0, len(values))


def _pairwise(values: Sequence[float], start: int, count: int) -> float:
    if count < _UNROLL:
        total = 0.0
        for index in range(start, start + count):
            total += values[index]
        return total
    if count <= _PAIRWISE_BLOCK:
        partial = [float(value) for value in values[start : start + _UNROLL]]
        index = _UNROLL
        while index < count - count % _UNROLL:
            for lane in range(_UNROLL):
                partial[lane] += values[start + index + lane]
            index += _UNROLL
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        for position in range(start + index, start + count):
            total += values[position]
        return total
    half = count // 2
    half -= half % _UNROLL
    return _pairwise(values, start, half) + _pairwise(values, start + half, count - half)


def ragchecker_figure(mean: float) -> float:
    """A dataset mean as RAGChecker prints it: ×100, one decimal, rounded the way numpy rounds."""
    return round(mean * 100 * 10.0) / 10.0  # round() of a float without digits is half to even, like rint
