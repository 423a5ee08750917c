"""Dataset-level figures: the mean of each metric over samples, as one :class:`DatasetReport`.

The one rule for failed samples, wherever figures are made (:func:`aggregate`, ``BatchRun.summary()``, the CLI's
table, the HTML report): a sample whose evaluation failed (``EvaluationResult.error`` set: the judge raised, the
sample could not be read as one) says nothing about the RAG system, only about the run. It is counted in
``samples``, ``failed`` and the usage, and left out of every metric's mean and counts, in both aggregation modes.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from enum import StrEnum
from html import escape
from pathlib import Path

from pydantic import BaseModel

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.positional import PositionalColumn
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore
from ragmetrics_core.summary_format import format_counts, format_html_table, format_table, format_usage


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
    """What a set of results comes to: :func:`aggregate` returns it, and so does ``BatchRun.summary()``.

    ``print(report)`` shows the table (mean, determined and undetermined counts, direction, why undetermined) with
    the counts and the judge's usage; a notebook shows it as an HTML table. ``report["faithfulness"]`` is one
    metric's entry, ``report.means()`` every mean. Failed samples: see the module's rule."""

    mode: AggregationMode
    samples: int
    """Every sample counted, failed ones included."""
    failed: int
    """Samples whose evaluation failed: in ``samples`` and the usage, in no metric's figures."""
    metrics: dict[str, MetricAggregate]
    usage: Usage

    def means(self) -> dict[str, float | None]:
        return {metric: entry.mean for metric, entry in self.metrics.items()}

    def __getitem__(self, metric: str | int) -> MetricAggregate:
        if isinstance(metric, int):  # BatchRun.summary() used to return a list
            _warn_list_use("summary[i]", "summary['<metric>'] or list(summary.metrics.values())[i]")
            return list(self.metrics.values())[metric]
        return self.metrics[metric]

    def __len__(self) -> int:
        """How many metrics (what ``len()`` of the former list said)."""
        return len(self.metrics)

    # BaseModel iterates (field, value) pairs; BatchRun.summary() was a list of entries, and iterating it must
    # keep giving entries for a release, with a warning.
    def __iter__(self) -> Iterator[MetricAggregate]:  # type: ignore[override]
        _warn_list_use("iterating a summary", "summary.metrics.values()")
        return iter(list(self.metrics.values()))

    def table(self) -> str:
        """The plain-text table, one line per metric (what ``ragmetrics evaluate`` prints)."""
        return format_table(self.metrics.values())

    def __str__(self) -> str:
        counts = format_counts(self.samples, self.failed, self.mode.value)
        return f"{counts}\n{self.table()}\n{format_usage(self.usage)}"

    def _repr_html_(self) -> str:
        """The table in a notebook."""
        counts = escape(format_counts(self.samples, self.failed, self.mode.value))
        usage = escape(format_usage(self.usage))
        return f"<div><p>{counts}</p>{format_html_table(self.metrics.values())}<p>{usage}</p></div>"


def _warn_list_use(what: str, instead: str) -> None:
    warnings.warn(
        f"{what} is deprecated: the summary is a DatasetReport now, not a list (use {instead}); "
        "list use goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


def aggregate(
    results: Iterable[EvaluationResult], mode: AggregationMode | str = AggregationMode.DETERMINED
) -> DatasetReport:
    """Mean of every metric over ``results`` (see :class:`AggregationMode`), with counts and total usage; failed
    samples are counted apart (see the module's rule)."""
    running = RunningAggregate()
    for position, result in enumerate(results):
        running.add(position, result)
    return running.report(mode)


_ABSENT, _DETERMINED, _UNDETERMINED = 0, 1, 2


class _MetricColumn:
    """One metric over a run, by input position: whether the score is there and determined, and the score (9 bytes
    a position, in a :class:`PositionalColumn`: in memory, or spilled to a file). RAGChecker's numpy-order pairwise
    mean depends on every value and on how many there are, so the values are kept, not folded into a sum."""

    __slots__ = ("first_seen", "kinds", "scores")

    def __init__(self, first_seen: tuple[int, int], spill_dir: Path | None) -> None:
        self.first_seen = first_seen  # (position, index among that result's scores): orders the metrics
        self.scores = PositionalColumn(spill_dir)
        self.kinds: dict[str, list[int]] = {}  # kind -> [count, first position]: ties keep input order

    def put(self, position: int, score: MetricScore) -> None:
        if score.score is None:
            self.scores.put(position, _UNDETERMINED, 0.0)
            kind = reason_kind(score.reason)
            seen = self.kinds.get(kind)
            if seen is None:
                self.kinds[kind] = [1, position]
            else:
                seen[0] += 1
                seen[1] = min(seen[1], position)
        else:
            self.scores.put(position, _DETERMINED, score.score)

    def mean(self, mode: AggregationMode) -> tuple[float | None, int, int]:
        """(mean, determined, undetermined), summed in input order exactly as the list computation sums."""
        counts = [0, 0, 0]  # by state

        def determined_values() -> Iterator[float]:
            for state, value in self.scores.records():
                counts[state] += 1
                if state == _DETERMINED:
                    yield value

        # sum() itself, over the values in input order: the very additions the list computation makes (its
        # compensated summation too, on the Pythons that have it).
        total = sum(determined_values())
        determined, undetermined = counts[_DETERMINED], counts[_UNDETERMINED]
        present = determined + undetermined
        if mode is AggregationMode.RAGCHECKER:
            # RAGChecker's rule: undetermined counts as 0; a sample without the metric does not count. numpy's
            # pairwise tree depends on the count, known now: a second pass in input order forms its sum.
            values = (value if state == _DETERMINED else 0.0 for state, value in self.scores.records() if state)
            return (pairwise_sum_of(values, present) / present if present else None), determined, undetermined
        return (total / determined if determined else None), determined, undetermined

    def determined_values(self) -> Iterator[float]:
        return (value for state, value in self.scores.records() if state == _DETERMINED)

    def reasons(self) -> dict[str, int]:
        """Undetermined samples by kind, most frequent first (ties in the order they first came in the input)."""
        ordered = sorted(self.kinds.items(), key=lambda item: (-item[1][0], item[1][1]))
        return {kind: count for kind, (count, _) in ordered}


class RunningAggregate:
    """Dataset figures built one result at a time, in any order, without keeping the results.

    Each result comes with its ``position`` in the input, so results finishing out of order (concurrent
    workers, resumed rows read first) give the very figures :func:`aggregate` gives over the list in input order:
    sums are formed in input order, metrics and undetermined reasons are listed in the order they first occur.
    What is kept per sample: 9 bytes per metric (state and score) and 18 for the usage's latency and cost, in
    memory or, with ``spill_dir``, in unnamed temporary files there (then memory holds only counters and a few
    file handles, whatever the number of samples). Failed samples count towards ``added``, ``failed`` and the
    usage only (the module's rule)."""

    def __init__(self, spill_dir: Path | None = None) -> None:
        self.added = 0
        self.failed = 0
        self.judges: set[str] = set()
        self.response_claims: dict[str, int] = {}
        """Response claims by category over every result (failed ones included)."""
        self.spill_dir = spill_dir
        self._columns: dict[str, _MetricColumn] = {}
        self._counts = [0, 0, 0, 0, 0]  # calls, embedding calls, cache hits, prompt and completion tokens
        self._latency = PositionalColumn(spill_dir)
        self._cost = PositionalColumn(spill_dir)  # state _ABSENT: no cost known (None)

    def add(self, position: int, result: EvaluationResult) -> None:
        """Count ``result`` as the sample at ``position`` (from 0) of the input; each position once."""
        if position < 0:
            raise ValueError("position must not be negative")
        self.added += 1
        if result.judge:
            self.judges.add(result.judge)
        for claim in result.explanations:
            if claim.source == "response" and claim.category is not None:
                self.response_claims[claim.category] = self.response_claims.get(claim.category, 0) + 1
        usage = result.usage
        for index, count in enumerate(
            (usage.calls, usage.embedding_calls, usage.cache_hits, usage.prompt_tokens, usage.completion_tokens)
        ):
            self._counts[index] += count
        self._latency.put(position, _DETERMINED, usage.latency_s)
        if usage.cost_usd is not None:
            self._cost.put(position, _DETERMINED, usage.cost_usd)
        if result.error is not None:
            self.failed += 1
            return
        for index, (metric, score) in enumerate(result.scores.items()):
            column = self._columns.get(metric)
            if column is None:
                column = self._columns[metric] = _MetricColumn((position, index), self.spill_dir)
            elif (position, index) < column.first_seen:
                column.first_seen = (position, index)
            column.put(position, score)

    @property
    def metrics(self) -> list[str]:
        """The metrics in the order they first occur in the input."""
        return sorted(self._columns, key=lambda metric: self._columns[metric].first_seen)

    def determined_values(self, metric: str) -> Iterator[float]:
        """The metric's determined scores, in input order (for a histogram)."""
        column = self._columns.get(metric)
        return iter(()) if column is None else column.determined_values()

    @property
    def usage(self) -> Usage:
        """Total judge usage, its floats summed in input order as adding the results' ``Usage`` does."""
        latency = 0.0
        for _, value in self._latency.records():
            latency += value
        cost: float | None = None
        for state, value in self._cost.records():
            if state:
                cost = (cost or 0.0) + value
        calls, embedding_calls, cache_hits, prompt_tokens, completion_tokens = self._counts
        return Usage(
            calls=calls, embedding_calls=embedding_calls, cache_hits=cache_hits, prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens, latency_s=latency, cost_usd=cost,
        )

    def report(self, mode: AggregationMode | str = AggregationMode.DETERMINED) -> DatasetReport:
        mode = AggregationMode(mode)
        entries: dict[str, MetricAggregate] = {}
        for metric in self.metrics:
            column = self._columns[metric]
            mean, determined, undetermined = column.mean(mode)
            direction = METRICS[metric].direction if metric in METRICS else Direction.HIGHER_IS_BETTER
            entries[metric] = MetricAggregate(
                metric=metric, mean=mean, count=determined, undetermined=undetermined, direction=direction,
                undetermined_by_reason=column.reasons(),
            )
        return DatasetReport(mode=mode, samples=self.added, failed=self.failed, metrics=entries, usage=self.usage)


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
    return pairwise_sum_of(iter(values), len(values))


def pairwise_sum_of(values: Iterator[float], count: int) -> float:
    """:func:`pairwise_sum` of the next ``count`` values of ``values``, taken one at a time in order: the tree is
    fixed by ``count``, so a stream of any length is summed holding one partial sum per level."""
    if count < _UNROLL:
        total = 0.0
        for _ in range(count):
            total += next(values)
        return total
    if count <= _PAIRWISE_BLOCK:
        partial = [float(next(values)) for _ in range(_UNROLL)]
        for _ in range(count // _UNROLL - 1):
            for lane in range(_UNROLL):
                partial[lane] += next(values)
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        for _ in range(count % _UNROLL):
            total += next(values)
        return total
    half = count // 2
    half -= half % _UNROLL
    first = pairwise_sum_of(values, half)  # the first half is taken from the stream before the second
    return first + pairwise_sum_of(values, count - half)


def ragchecker_figure(mean: float) -> float:
    """A dataset mean as RAGChecker prints it: ×100, one decimal, rounded the way numpy rounds."""
    return round(mean * 100 * 10.0) / 10.0  # round() of a float without digits is half to even, like rint
