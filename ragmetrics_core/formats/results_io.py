"""Evaluation results as files: JSONL (everything, one object per sample) or CSV (one column per score).

Rows are written whole and flushed one at a time, so an interrupted run leaves a valid file. Reading back
keeps the last row per sample (a retried sample appends a new row) and drops a torn last line, which is
what a crash mid-write can leave.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import ValidationError

from ragmetrics_core.formats.errors import InputError, RowError
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample

OutputFormat = Literal["jsonl", "csv"]

_USAGE_COLUMNS = (
    "calls",
    "embedding_calls",
    "cache_hits",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "cost_usd",
)
_SAMPLE_COLUMNS = ("user_input", "response", "reference", "n_contexts")


@dataclass(slots=True)
class StoredResult:
    """One evaluated sample as read back from a results file."""

    result: EvaluationResult
    sample: RagSample | None = None
    line: int | None = None


@dataclass(slots=True)
class StoredResults:
    rows: dict[str, StoredResult] = field(default_factory=dict)
    torn_line: int | None = None

    def done(self) -> set[str]:
        """Ids of samples evaluated completely (see :func:`is_complete`); the others are redone on resume."""
        return {sample_id for sample_id, row in self.rows.items() if is_complete(row.result)}


def is_complete(result: EvaluationResult) -> bool:
    """Evaluated without failing, and the judge established every piece of evidence it was asked for
    (a rate-limited or unreachable judge leaves errors; such samples are worth another try)."""
    return result.error is None and not result.evidence.errors


def output_format(path: str | Path) -> OutputFormat:
    return "csv" if Path(path).suffix.lower() == ".csv" else "jsonl"


def result_record(result: EvaluationResult, sample: RagSample | None, line: int | None) -> dict[str, Any]:
    """The JSONL object for one sample: its input, then the full result (scores, reasons, usage, claims)."""
    record: dict[str, Any] = {"sample_id": result.sample_id, "input_line": line}
    if sample is not None:
        record["sample"] = sample.model_dump(mode="json")
    record.update(result.model_dump(mode="json"))
    return record


class ResultWriter:
    """Appends one row per result to a JSONL or CSV file, flushing after each."""

    def __init__(self, path: str | Path, metrics: Sequence[str], *, fmt: OutputFormat | None = None) -> None:
        self.path = Path(path)
        self.format: OutputFormat = fmt or output_format(self.path)
        self.metrics = list(metrics)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            _drop_torn_tail(self.path)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if self.format == "csv":
            self._header = csv_header(self.metrics)
            if not fresh:
                _check_csv_header(self.path, self._header)
        self._file: IO[str] = self.path.open("a", encoding="utf-8", newline="")
        if self.format == "csv" and fresh:
            self._write_csv(self._header)

    def write(self, result: EvaluationResult, sample: RagSample | None = None, line: int | None = None) -> None:
        if self.format == "jsonl":
            text = json.dumps(result_record(result, sample, line), ensure_ascii=False) + "\n"
            self._file.write(text)
            self._file.flush()
        else:
            self._write_csv(csv_row(result, sample, line, self.metrics))

    def _write_csv(self, cells: Sequence[object]) -> None:
        buffer = _LineBuffer()
        csv.writer(buffer).writerow(["" if cell is None else cell for cell in cells])
        self._file.write(buffer.text)
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line without a newline (a write cut short), so appended rows start on their own line."""
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return
        handle.truncate(data.rfind(b"\n") + 1)


class _LineBuffer:
    """Collects one CSV row so that it reaches the file in a single write."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, chunk: str) -> int:
        self.text += chunk
        return len(chunk)


def csv_header(metrics: Sequence[str]) -> list[str]:
    columns = ["sample_id", "input_line", *_SAMPLE_COLUMNS, "judge", "error"]
    for metric in metrics:
        columns += [metric, f"{metric}_reason", f"{metric}_label"]
    columns += [f"usage_{name}" for name in _USAGE_COLUMNS]
    return columns


def csv_row(
    result: EvaluationResult, sample: RagSample | None, line: int | None, metrics: Sequence[str]
) -> list[object]:
    cells: list[object] = [result.sample_id, line]
    if sample is None:
        cells += [None] * len(_SAMPLE_COLUMNS)
    else:
        cells += [sample.user_input, sample.response, sample.reference, len(sample.retrieved_contexts)]
    cells += [result.judge, result.error]
    for metric in metrics:
        score = result.scores.get(metric)
        cells += [None, None, None] if score is None else [score.score, score.reason, score.label]
    usage = result.usage.model_dump()
    cells += [usage[name] for name in _USAGE_COLUMNS]
    return cells


def _check_csv_header(path: Path, expected: list[str]) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        found = next(csv.reader(handle), [])
    if found != expected:
        raise InputError(
            RowError(
                str(path),
                "existing results file has different columns (other metrics?); "
                "resume with the same --metrics or write to a new --out",
                line=1,
            )
        )


def read_results(path: str | Path, directions: dict[str, Direction] | None = None) -> StoredResults:
    """The results already in ``path`` (missing file: none). CSV rows come back without claims/evidence."""
    path = Path(path)
    stored = StoredResults()
    if not path.exists():
        return stored
    if output_format(path) == "csv":
        _read_csv(path, stored, directions or {})
    else:
        _read_jsonl(path, stored)
    return stored


def _read_jsonl(path: Path, stored: StoredResults) -> None:
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        lines = handle.read().split("\n")
    last = len(lines) - 1
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            result = EvaluationResult.model_validate(record)
            sample = RagSample.model_validate(record["sample"]) if "sample" in record else None
        except (json.JSONDecodeError, ValidationError, KeyError, TypeError) as error:
            if number - 1 == last:
                # No trailing newline and unreadable: the write was cut short; the sample is simply redone.
                stored.torn_line = number
                continue
            raise InputError(
                RowError(str(path), f"not a ragmetrics results row ({_short(error)})", line=number)
            ) from None
        if result.sample_id is None:
            raise InputError(RowError(str(path), "results row without a sample_id", line=number, field="sample_id"))
        stored.rows[result.sample_id] = StoredResult(result, sample, record.get("input_line"))


def _read_csv(path: Path, stored: StoredResults, directions: dict[str, Direction]) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        metrics = [name for name in header if f"{name}_reason" in header and f"{name}_label" in header]
        for row in reader:
            try:
                result = _result_from_csv(row, metrics, directions)
            except (ValueError, ValidationError) as error:
                raise InputError(
                    RowError(str(path), f"not a ragmetrics results row ({_short(error)})", line=reader.line_num)
                ) from None
            line = row.get("input_line")
            stored.rows[row["sample_id"]] = StoredResult(result, None, int(line) if line else None)


def _result_from_csv(row: dict[str, str], metrics: Iterable[str], directions: dict[str, Direction]) -> EvaluationResult:
    scores: dict[str, MetricScore] = {}
    for metric in metrics:
        raw = row.get(metric, "")
        label = row.get(f"{metric}_label") or None
        scores[metric] = MetricScore(
            metric=metric,
            score=float(raw) if raw else None,
            direction=directions.get(metric, Direction.HIGHER_IS_BETTER),
            reason=row.get(f"{metric}_reason", ""),
            label=label,
        )
    usage = Usage.model_validate(
        {name: row[f"usage_{name}"] for name in _USAGE_COLUMNS if row.get(f"usage_{name}", "") != ""}
    )
    return EvaluationResult(
        sample_id=row["sample_id"],
        judge=row.get("judge", ""),
        scores=scores,
        usage=usage,
        error=row.get("error") or None,
    )


def _short(error: Exception) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]
