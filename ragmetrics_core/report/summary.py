"""The summary the CLI prints and the report draws: RAGChecker's diagnostic grouping, and the table's text (written
once, in :mod:`ragmetrics_core.summary_format`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from ragmetrics_core.aggregate import AggregationMode, DatasetReport, aggregate
from ragmetrics_core.formats.ragchecker import RAGCHECKER_GROUPS
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.summary_format import format_table, format_usage, undetermined_reasons

# RAGChecker's diagnostic grouping: whole-answer quality, then what the retriever and the generator did.
DIAGNOSTIC_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (group.removesuffix("_metrics").capitalize(), tuple(keys.values())) for group, keys in RAGCHECKER_GROUPS.items()
)


def summarize(
    results: Iterable[EvaluationResult], mode: AggregationMode | str = AggregationMode.DETERMINED
) -> DatasetReport:
    """Deprecated: :func:`ragmetrics_core.aggregate.aggregate` gives the same report (and the same rule for failed
    samples); this name goes in the next release."""
    warnings.warn("summarize() is deprecated: use ragmetrics_core.aggregate(results, mode), which returns the same "
                  "DatasetReport", DeprecationWarning, stacklevel=2)
    return aggregate(results, mode)


def total_usage(results: Sequence[EvaluationResult]) -> Usage:
    total = Usage()
    for result in results:
        total = total + result.usage
    return total


__all__ = [
    "DIAGNOSTIC_GROUPS",
    "format_table",
    "format_usage",
    "summarize",
    "total_usage",
    "undetermined_reasons",
]


def __getattr__(name: str) -> object:
    """``AggregateMode``, the old second name of :class:`~ragmetrics_core.aggregate.AggregationMode`, for one
    release (it was a ``Literal`` of the same two values; the enum accepts those strings)."""
    if name == "AggregateMode":
        warnings.warn(
            "AggregateMode is deprecated and will be removed in the next release; use "
            "ragmetrics_core.AggregationMode (its values are the same strings)",
            DeprecationWarning,
            stacklevel=2,
        )
        return AggregationMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
