"""Evaluation results as files: JSONL (everything, one object per sample) or CSV (one column per score).

A CSV results file comes with a claims file beside it (``out.csv`` → ``out.claims.csv``): one row per claim of
every sample, with its verdict against the reference, its category, its grounding, the chunks that support or
contradict it and the judge's rationale, so a spreadsheet can drill down from a score to the claims behind it.

Rows are written whole and flushed one at a time, so an interrupted run leaves a valid file. Reading back
keeps the last row per sample (a retried sample appends a new row; its claims likewise) and drops a torn last
line, which is what a crash mid-write can leave.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import weakref
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import ValidationError

from ragmetrics_core.formats.errors import InputError, RowError
from ragmetrics_core.formats.repeats import LastRows
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.results import ClaimExplanation, Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample
from ragmetrics_core.scrub import mask_known_secrets

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
CLAIM_COLUMNS = (
    "sample_id",
    "results_row",
    "source",
    "index",
    "text",
    "against_reference",
    "category",
    "grounding",
    "supporting_chunks",
    "contradicting_chunks",
    "supported_by_contexts_jointly",
    "rationale",
    "category_shares",
)
"""The claims file's header. ``results_row`` is the row of the results file (1 = the first below the header) the
claims belong to: a retried sample's claims are told apart from an earlier attempt's by it. Chunks are numbered
from 1 and separated by spaces, as the rationales number them."""


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
    """Appends one row per result to a JSONL or CSV file, flushing after each. ``probabilities``: the calibrated
    metrics, which get a ``<metric>_probability`` column in a CSV file (JSONL rows carry whatever a score holds)."""

    def __init__(
        self,
        path: str | Path,
        metrics: Sequence[str],
        *,
        fmt: OutputFormat | None = None,
        probabilities: Sequence[str] = (),
    ) -> None:
        self.path = Path(path)
        self.format: OutputFormat = fmt or output_format(self.path)
        self.metrics = list(metrics)
        self.probabilities = frozenset(probabilities)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self._open(
            self.path,
            csv_header(self.metrics, self.probabilities) if self.format == "csv" else None,
            "has different columns (other metrics, or a calibration added or dropped?); resume with the same --metrics "
            "and --calibration or write to a new --out",
        )
        self._claims: IO[str] | None = None
        self._rows = 0
        self.claims_path: Path | None = None
        if self.format == "csv":
            self.claims_path = claims_path(self.path)
            self._rows = _count_csv_rows(self.path)
            if not self._rows and self.claims_path.exists():
                self.claims_path.unlink()  # no results row yet: claims of an earlier run must not mix in
            try:
                self._claims = self._open(
                    self.claims_path, list(CLAIM_COLUMNS), "is not a ragmetrics claims file; move it away"
                )
            except BaseException:
                self._file.close()
                raise

    @staticmethod
    def _open(path: Path, header: list[str] | None, mismatch: str) -> IO[str]:
        """Open ``path`` for appending, checking the CSV ``header`` of an existing file (``mismatch`` says what to
        do when it differs) or writing a new one's."""
        if path.exists():
            _drop_torn_tail(path)
        new = not path.exists() or path.stat().st_size == 0
        if header is not None and not new:
            _check_csv_header(path, header, mismatch)
        handle = path.open("a", encoding="utf-8", newline="")
        if header is not None and new:
            handle.write(_line(header))
            handle.flush()
        return handle

    def write(self, result: EvaluationResult, sample: RagSample | None = None, line: int | None = None) -> None:
        # Every row leaves the process here: a secret the process was given is masked whatever field holds it.
        if self.format == "jsonl":
            text = mask_known_secrets(json.dumps(result_record(result, sample, line), ensure_ascii=False)) + "\n"
            self._file.write(text)
            self._file.flush()
            return
        assert self._claims is not None
        # Claims first: a crash between the two writes leaves the sample unfinished, so a resumed run redoes it
        # and its claims rows, which then supersede these (same sample, same results row, written later).
        self._rows += 1
        self._claims.write(mask_known_secrets("".join(_line(cells) for cells in claim_rows(result, self._rows))))
        self._claims.flush()
        self._file.write(mask_known_secrets(_line(csv_row(result, sample, line, self.metrics, self.probabilities))))
        self._file.flush()

    def close(self) -> None:
        self._file.close()
        if self._claims is not None:
            self._claims.close()

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_TAIL_BLOCK = 1 << 16


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line without a newline (a write cut short), so appended rows start on their own line. Reads
    back from the end a block at a time: a results file of a million rows is never read whole."""
    with path.open("rb+") as handle:
        end = handle.seek(0, os.SEEK_END)
        if end == 0:
            return
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return
        position = end
        while position > 0:
            start = max(0, position - _TAIL_BLOCK)
            handle.seek(start)
            cut = handle.read(position - start).rfind(b"\n")
            if cut >= 0:
                handle.truncate(start + cut + 1)
                return
            position = start
        handle.truncate(0)


class _LineBuffer:
    """Collects one CSV row so that it reaches the file in a single write."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, chunk: str) -> int:
        self.text += chunk
        return len(chunk)


def _line(cells: Sequence[object]) -> str:
    buffer = _LineBuffer()
    csv.writer(buffer).writerow(["" if cell is None else cell for cell in cells])
    return buffer.text


def claims_path(path: str | Path) -> Path:
    """The claims file beside a CSV results file: ``out.csv`` → ``out.claims.csv``."""
    path = Path(path)
    return path.with_name(path.stem + ".claims.csv")


def claim_rows(result: EvaluationResult, results_row: int) -> list[list[object]]:
    """One claims-file row per explained claim of ``result`` (see :data:`CLAIM_COLUMNS`)."""
    return [
        [
            result.sample_id,
            results_row,
            claim.source,
            claim.index,
            claim.text,
            None if claim.against_reference is None else claim.against_reference.value,
            claim.category,
            claim.grounding,
            " ".join(str(chunk + 1) for chunk in claim.supporting_chunks),
            " ".join(str(chunk + 1) for chunk in claim.contradicting_chunks),
            claim.supported_by_contexts_jointly,
            claim.rationale,
            None if claim.category_shares is None else json.dumps(claim.category_shares, sort_keys=True),
        ]
        for claim in result.explanations
    ]


def csv_header(metrics: Sequence[str], probabilities: Container[str] = ()) -> list[str]:
    columns = ["sample_id", "input_line", *_SAMPLE_COLUMNS, "judge", "error"]
    for metric in metrics:
        columns += [metric, f"{metric}_reason", f"{metric}_label"]
        if metric in probabilities:
            columns.append(f"{metric}_probability")
    columns += [f"usage_{name}" for name in _USAGE_COLUMNS]
    return columns


def csv_row(
    result: EvaluationResult,
    sample: RagSample | None,
    line: int | None,
    metrics: Sequence[str],
    probabilities: Container[str] = (),
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
        if metric in probabilities:
            cells.append(None if score is None else score.probability)
    usage = result.usage.model_dump()
    cells += [usage[name] for name in _USAGE_COLUMNS]
    return cells


def _header_metrics(header: Sequence[str]) -> list[str]:
    """The metrics of a results CSV header: the columns written with their ``_reason`` and ``_label``
    (:func:`csv_header`)."""
    return [name for name in header if f"{name}_reason" in header and f"{name}_label" in header]


def _check_csv_header(path: Path, expected: list[str], mismatch: str) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        found = next(csv.reader(handle), [])
    if found != expected:
        raise InputError(RowError(str(path), f"existing file {mismatch}", line=1))


def read_results(
    path: str | Path, directions: dict[str, Direction] | None = None, *, slim: bool = False
) -> StoredResults:
    """The results already in ``path`` (missing file: none), all in memory: for a file of any size use
    :func:`scan_results` and :meth:`ResultsIndex.read`. CSV rows come back with the claims of the claims file beside
    them (when there is one), without the verdict matrices. ``slim``: JSONL rows too come back without the verdict
    matrices and the sample (what a resume needs: scores, explanations, and the judge's errors)."""
    path = Path(path)
    stored = StoredResults()
    if not path.exists():
        return stored
    directions = directions or {}
    kept_rows: dict[str, int] = {}
    for number, _place, row in _rows(path, stored, directions, lambda _number: True, lambda _number: not slim):
        assert row.result.sample_id is not None  # _rows refuses a row without one
        stored.rows[row.result.sample_id] = row
        kept_rows[row.result.sample_id] = number + 1
    if output_format(path) == "csv":
        for sample_id, explanations in _csv_claims(path, kept_rows).items():
            kept = stored.rows[sample_id]
            kept.result = kept.result.model_copy(update={"explanations": explanations})
    return stored


@dataclass(slots=True, weakref_slot=True)  # its reader closes when it goes
class ResultsIndex:
    """Which row of a results file holds each sample's result (its last), read in one pass that keeps no result
    but those of the samples to redo: what a resume or a report needs to find the rows again, in some 30 bytes a
    sample (:class:`~ragmetrics_core.formats.repeats.LastRows`: an id's hash, confirmed by reading the id back
    from the file) instead of the results or the ids themselves."""

    path: Path
    directions: dict[str, Direction]
    incomplete: dict[str, EvaluationResult] = field(default_factory=dict)
    """The (slim) results of the samples whose last row is not complete (:func:`is_complete`)."""
    rows: int = 0
    torn_line: int | None = None
    ids: LastRows = field(init=False)
    """Sample id → its last row (from 0, in the order rows are in the file), ids in the order they first occur."""
    _id_column: int = field(init=False, default=0)
    _reader: IO[bytes] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.ids = LastRows(self._id_at)

    @property
    def last(self) -> Mapping[str, int]:
        """Sample id → its last row, ids in the order they first occur (each read back from the file)."""
        return _LastRowsView(self.ids)

    def complete(self, sample_id: str) -> bool:
        return self.complete_row(sample_id) is not None

    def complete_row(self, sample_id: str) -> int | None:
        """The row of ``sample_id``'s result when the file holds it complete, else None."""
        return None if sample_id in self.incomplete else self.ids.last(sample_id)

    def read(self, positions: Sequence[int], *, whole_below: int = 0) -> Iterator[tuple[int, StoredResult]]:
        """``(position, row)`` for each row whose ``positions[row]`` is not negative, in file order, read one at a
        time: slim results (no verdict matrices, no sample), whole where ``position < whole_below``."""
        if not self.rows:
            return  # no file, or no row in it
        stored = StoredResults()
        chosen: dict[str, int] = {}
        if output_format(self.path) == "csv":
            # Only the CSV claims file needs the chosen ids up front (its rows carry ids, not positions).
            chosen = {self._id_at(row): row + 1 for row in self.ids.last_rows() if _wanted(positions, row)}
        claims = _csv_claims(self.path, chosen) if chosen else {}
        for number, _place, row in _rows(
            self.path, stored, self.directions, lambda number: _wanted(positions, number),
            lambda number: positions[number] < whole_below,
        ):
            found = claims.pop(row.result.sample_id or "", None)
            if found is not None:
                row.result = row.result.model_copy(update={"explanations": found})
            yield positions[number], row

    def _id_at(self, row: int) -> str:
        """The sample id of results row ``row``, read back from where the file holds it."""
        if self._reader is None:
            # closed by the finalizer below, with the index: a context manager cannot span a run's plan
            self._reader = self.path.open("rb")
            weakref.finalize(self, self._reader.close)
        place = self.ids.place(row)
        if output_format(self.path) == "jsonl":
            # The writer puts the id first: the row's head is read and the id alone decoded, when it is there.
            head = os.pread(self._reader.fileno(), _HEAD, place).decode("utf-8", "replace")
            if head.startswith(_ID_FIRST):
                with contextlib.suppress(json.JSONDecodeError):  # an id longer than the head: the whole row
                    return str(_DECODER.raw_decode(head, len(_ID_FIRST) - 1)[0])
        self._reader.seek(place)
        if output_format(self.path) == "csv":
            cells = next(cells for cells in csv.reader(_decoded_lines(self._reader, "strict")) if cells)
            return cells[self._id_column]
        return str(json.loads(self._reader.readline().decode("utf-8", "replace"))["sample_id"])


_ID_FIRST = '{"sample_id": "'
_HEAD = 512
"""Bytes of a JSONL row read to find its id."""
_DECODER = json.JSONDecoder()


class _LastRowsView(Mapping[str, int]):
    __slots__ = ("_ids",)

    def __init__(self, ids: LastRows) -> None:
        self._ids = ids

    def __getitem__(self, sample_id: str) -> int:
        row = self._ids.last(sample_id)
        if row is None:
            raise KeyError(sample_id)
        return row

    def __iter__(self) -> Iterator[str]:
        return self._ids.ids()

    def __len__(self) -> int:
        return len(self._ids)


def _wanted(positions: Sequence[int], row: int) -> bool:
    return row < len(positions) and positions[row] >= 0


def scan_results(path: str | Path, directions: dict[str, Direction] | None = None) -> ResultsIndex:
    """The :class:`ResultsIndex` of ``path`` (missing file: empty), reading it row by row."""
    index = ResultsIndex(Path(path), directions or {})
    if not index.path.exists():
        return index
    if output_format(index.path) == "csv":
        index._id_column = _csv_id_column(index.path)
    stored = StoredResults()
    for number, place, row in _rows(index.path, stored, index.directions, lambda _n: True, lambda _n: False):
        sample_id = row.result.sample_id
        assert sample_id is not None  # _rows refuses a row without one
        index.ids.add(number, sample_id, place)
        if is_complete(row.result):
            index.incomplete.pop(sample_id, None)
        else:
            index.incomplete[sample_id] = row.result
        index.rows = number + 1
    index.torn_line = stored.torn_line
    return index


def stored_metrics(path: str | Path) -> tuple[list[str], int] | None:
    """The metrics a results file's rows are scored on, and the line that says so: a CSV file's header, else the
    first JSONL row holding scores (a failed sample's row holds none). ``None``: no such row yet."""
    path = Path(path)
    with path.open("rb") as handle:
        if output_format(path) == "csv":
            header = next(csv.reader(_decoded_lines(handle, "replace")), [])
            return _header_metrics(header), 1
        for number, line in enumerate(_decoded_lines(handle, "replace"), start=1):
            with contextlib.suppress(json.JSONDecodeError):
                scores = json.loads(line).get("scores") if line.strip() else None
                if isinstance(scores, dict) and scores:
                    return list(scores), number
    return None


def _csv_id_column(path: Path) -> int:
    """Where a results CSV file's rows hold their sample id (the last column of that name, as a dict reads it)."""
    with path.open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    return len(header) - 1 - header[::-1].index("sample_id") if "sample_id" in header else 0


@dataclass(slots=True)
class _Places:
    line: int = 0
    """Where the line last read starts (a byte offset)."""
    after: int = 0
    """Where the line after it starts."""


def _decoded_lines(handle: IO[bytes], errors: str, places: _Places | None = None) -> Iterator[str]:
    """The lines of a binary file from where it stands, decoded (split at ``\\n`` only, as the writer ends its
    rows); ``places``: where each starts, kept up to date as they go by."""
    after = handle.tell()
    for raw in handle:
        if places is not None:
            places.line, places.after = after, after + len(raw)
        after += len(raw)
        yield raw.decode("utf-8", errors)


def _rows(
    path: Path,
    stored: StoredResults,
    directions: dict[str, Direction],
    wanted: Callable[[int], bool],
    whole: Callable[[int], bool],
) -> Iterator[tuple[int, int, StoredResult]]:
    """Each wanted row of a results file as ``(row number from 0, its byte offset, row)``, without the claims of a
    CSV file; JSONL rows are slim (see :meth:`EvaluationResult.slim`, and no sample) unless ``whole(row)``."""
    if output_format(path) == "csv":
        yield from _csv_rows(path, directions, wanted)
    else:
        yield from _jsonl_rows(path, stored, wanted, whole)


def _jsonl_rows(
    path: Path, stored: StoredResults, wanted: Callable[[int], bool], whole: Callable[[int], bool]
) -> Iterator[tuple[int, int, StoredResult]]:
    # Line by line: a results file of a million rows is never held whole in memory.
    row = -1
    places = _Places()
    with path.open("rb") as handle:
        for number, line in enumerate(_decoded_lines(handle, "replace", places), start=1):
            text = line.rstrip("\r\n")
            if not text.strip():
                continue
            row += 1
            if not wanted(row):
                continue
            try:
                record = json.loads(text)
                if not whole(row):
                    # Resuming and summarising need the scores, claims and whether the judge failed, not the
                    # verdict matrices nor the sample.
                    record["evidence"] = {"errors": (record.get("evidence") or {}).get("errors", {})}
                    record.pop("sample", None)
                result = EvaluationResult.model_validate(record)
                sample = RagSample.model_validate(record["sample"]) if "sample" in record else None
            except (json.JSONDecodeError, ValidationError, KeyError, TypeError, AttributeError) as error:
                if not line.endswith("\n"):
                    # No trailing newline and unreadable: the write was cut short; the sample is simply redone.
                    stored.torn_line = number
                    continue
                raise InputError(
                    RowError(str(path), f"not a ragmetrics results row ({_short(error)})", line=number)
                ) from None
            if result.sample_id is None:
                raise InputError(
                    RowError(str(path), "results row without a sample_id", line=number, field="sample_id")
                )
            yield row, places.line, StoredResult(result, sample, record.get("input_line"))


def _csv_rows(
    path: Path, directions: dict[str, Direction], wanted: Callable[[int], bool]
) -> Iterator[tuple[int, int, StoredResult]]:
    places = _Places()
    with path.open("rb") as handle:
        reader = csv.DictReader(_decoded_lines(handle, "strict", places))
        header = reader.fieldnames or []
        if header and "sample_id" not in header:
            raise InputError(RowError(
                str(path), "not a ragmetrics results file (its header has no sample_id column); write to a new "
                "--out or move the file away", line=1,
            ))
        metrics = _header_metrics(header)
        start = places.after
        for number, row in enumerate(reader):
            at, start = start, places.after  # a record starts where the one before it ended
            if not wanted(number):
                continue
            try:
                result = _result_from_csv(row, metrics, directions)
            except (ValueError, ValidationError) as error:
                raise InputError(
                    RowError(str(path), f"not a ragmetrics results row ({_short(error)})", line=reader.line_num)
                ) from None
            line = row.get("input_line")
            yield number, at, StoredResult(result, None, int(line) if line else None)


def _csv_claims(path: Path, kept_rows: dict[str, int]) -> dict[str, list[ClaimExplanation]]:
    """The claims of the CSV results rows in ``kept_rows`` (sample id → results row from 1), from the claims file
    beside ``path`` when there is one. They are held in memory: a million-row run is one for JSONL results."""
    claims = claims_path(path)
    return _read_claims(claims, kept_rows) if claims.exists() else {}


def _read_claims(path: Path, kept_rows: dict[str, int]) -> dict[str, list[ClaimExplanation]]:
    """The claims of every kept results row: those written with its sample and row number, the last block of
    them when a crash left an earlier one behind (a block restarts when a (source, index) comes again)."""
    found: dict[str, list[ClaimExplanation]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        ended = 1  # the header's line; a quoted cell may span lines, so a row starts after the previous one ends
        for row in reader:
            starts, ended = ended + 1, reader.line_num
            sample_id = row.get("sample_id") or ""
            try:
                if kept_rows.get(sample_id) != int(row.get("results_row") or 0):
                    continue
                claim = _claim_from_csv(row)
            except (ValueError, ValidationError) as error:
                raise InputError(
                    RowError(str(path), f"not a ragmetrics claims row ({_short(error)})", line=starts)
                ) from None
            block = found.setdefault(sample_id, [])
            if any(earlier.source == claim.source and earlier.index == claim.index for earlier in block):
                block.clear()
            block.append(claim)
    return found


def _claim_from_csv(row: dict[str, str]) -> ClaimExplanation:
    def chunks(cell: str | None) -> list[int]:
        return [int(number) - 1 for number in (cell or "").split()]

    jointly = row.get("supported_by_contexts_jointly") or ""
    if jointly not in ("", "True", "False"):
        raise ValueError(f"supported_by_contexts_jointly must be True, False or empty, got {jointly!r}")
    return ClaimExplanation(
        source=row.get("source") or "",
        index=int(row.get("index") or ""),
        text=row.get("text") or "",
        against_reference=row.get("against_reference") or None,
        category=row.get("category") or None,
        grounding=float(row["grounding"]) if row.get("grounding") else None,
        supporting_chunks=chunks(row.get("supporting_chunks")),
        contradicting_chunks=chunks(row.get("contradicting_chunks")),
        supported_by_contexts_jointly=None if not jointly else jointly == "True",
        rationale=row.get("rationale") or None,
        category_shares=json.loads(row["category_shares"]) if row.get("category_shares") else None,
    )


def _count_csv_rows(path: Path) -> int:
    """Data rows of a CSV file as ``csv.DictReader`` reads them: the header and blank lines not counted (a quoted
    cell may span lines)."""
    with path.open(encoding="utf-8", newline="") as handle:
        return max(0, sum(1 for row in csv.reader(handle) if row) - 1)


def _result_from_csv(row: dict[str, str], metrics: Iterable[str], directions: dict[str, Direction]) -> EvaluationResult:
    scores: dict[str, MetricScore] = {}
    for metric in metrics:
        raw = row.get(metric, "")
        label = row.get(f"{metric}_label") or None
        probability = row.get(f"{metric}_probability")
        scores[metric] = MetricScore(
            metric=metric,
            score=float(raw) if raw else None,
            direction=directions.get(metric, Direction.HIGHER_IS_BETTER),
            reason=row.get(f"{metric}_reason", ""),
            label=label,
            probability=float(probability) if probability else None,
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
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        text = f"{where}: {first['msg']}" if where else first["msg"]
    else:
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]
