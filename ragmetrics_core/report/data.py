"""What the HTML report is drawn from: figures over every sample, built as the results go by, and the first
samples in full for the drill-down. A report of a million samples is the figures of all of them and the detail of
:data:`DETAIL_LIMIT`; nothing else of the results is held."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragmetrics_core.aggregate import RunningAggregate
from ragmetrics_core.formats.errors import RowError
from ragmetrics_core.formats.results_io import scan_results
from ragmetrics_core.results import Direction, EvaluationResult
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

DETAIL_LIMIT = 1000
"""Samples shown in full in a report; the figures always cover every sample."""


@dataclass(slots=True)
class DetailRow:
    position: int
    """Where the sample is among the report's samples, from 0; it is labelled ``#<position + 1>`` and its anchor is
    ``sample-<position + 1>``, so a link reads as the label does."""
    result: EvaluationResult
    sample: RagSample | None = None
    line: int | None = None


@dataclass(slots=True)
class ReportData:
    figures: RunningAggregate = field(default_factory=RunningAggregate)
    """Over every sample; failed samples count in the usage and the facts, not in the means."""
    detail: list[DetailRow] = field(default_factory=list)
    """The samples shown in full, in input order: the first ones up to the report's cap."""
    errors: Sequence[RowError] = ()
    skipped: int | None = None
    """Bad input rows skipped, when more than ``errors`` lists."""
    results_path: Path | None = None
    """Where every sample's full result is, said in the report when the detail is capped."""


def report_data(
    results: Iterable[EvaluationResult],
    *,
    samples: Mapping[str, RagSample] | None = None,
    lines: Mapping[str, int] | None = None,
    errors: Sequence[RowError] = (),
    max_samples: int | None = DETAIL_LIMIT,
) -> ReportData:
    """The report of ``results`` in their order, the first ``max_samples`` in detail (``None``: all)."""
    samples, lines = samples or {}, lines or {}
    data = ReportData(errors=errors)
    for position, result in enumerate(results):
        data.figures.add(position, result)
        if max_samples is None or position < max_samples:
            key = result.sample_id or ""
            data.detail.append(DetailRow(position, result, samples.get(key), lines.get(key)))
    return data


def read_report_data(
    path: str | Path, directions: dict[str, Direction] | None = None, *, max_samples: int = DETAIL_LIMIT
) -> ReportData:
    """The report of a results file, read row by row: each sample's last row, in the order samples first occur."""
    index = scan_results(path, directions)
    positions = array("q", [-1]) * index.rows  # results row -> the sample's position, -1 for a superseded row
    for position, row in enumerate(index.ids.last_rows()):
        positions[row] = position
    data = ReportData(results_path=Path(path))
    for position, stored in index.read(positions, whole_below=max_samples):
        data.figures.add(position, stored.result)
        if position < max_samples:
            data.detail.append(DetailRow(position, stored.result, stored.sample, stored.line))
    data.detail.sort(key=lambda row: row.position)
    return data
