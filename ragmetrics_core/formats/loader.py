"""``load_samples``: RAG samples out of a JSONL, JSON, CSV or RAGChecker file, or standard input."""

from __future__ import annotations

import codecs
import io
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TextIO, cast

from pydantic import ValidationError

from ragmetrics_core.evidence import Evidence, EvidencePart
from ragmetrics_core.formats.columns import header_problem, record_to_sample, sample_key
from ragmetrics_core.formats.errors import InputError, RowError, json_problem
from ragmetrics_core.formats.ragchecker import RagCheckerFormatError, read_ragchecker
from ragmetrics_core.formats.records import WRAPPER_KEYS, RawRecord, TableFormat, read_records
from ragmetrics_core.formats.repeats import RepeatScreen, screen_repeats
from ragmetrics_core.formats.tables import in_memory_rows, is_in_memory, memory_name
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

InputFormat = Literal["auto", "jsonl", "json", "csv", "ragchecker"]
Source = str | Path | TextIO | Any
"""A path (or ``-``), an open text stream, or rows in memory (:mod:`ragmetrics_core.formats.tables`)."""

STDIN = "-"
_RAGCHECKER_MARKERS = ("response_claims", "answer2response", "retrieved2response", "retrieved2answer")
_EXTENSIONS: dict[str, TableFormat] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}
_BINARY_TABLES = (".parquet", ".xlsx", ".xls", ".feather", ".arrow", ".pkl", ".pickle")


@dataclass(frozen=True, slots=True)
class LoadedSample:
    """A sample with its id settled and where it came from; ``evidence`` when the file carried verdicts."""

    sample: RagSample
    source: str = ""
    line: int | None = None
    item: int | None = None
    evidence: Evidence | None = None

    @property
    def id(self) -> str:
        assert self.sample.id is not None  # iter_samples always settles the id
        return self.sample.id


@dataclass(slots=True)
class IdLedger:
    """What a first reading of a source found about its ids, so that reading it again settles them the same way
    holding only the exceptions: ``iter_samples(..., ids=ledger)`` records on its first reading with the ledger
    and replays on the later ones. A file is screened before that first reading (see ``screen``), which then
    holds only the ids that may repeat. Rows are counted from 0 among those that parsed (bad rows are bad again
    on every reading)."""

    readings: int = 0
    repeated: dict[int, RowError] = field(default_factory=dict)
    """The rows whose explicit id an earlier row used: each one's error."""
    numbered: dict[int, int] = field(default_factory=dict)
    """The rows without an id repeating an earlier row's content: their number (2, 3, ...)."""
    limit: int | None = None
    """How many settled rows the reader takes at most: the screening of a file stops once it has read them."""
    screen: RepeatScreen | None = None
    """For a file: the hashes of the ids that may repeat, from a reading before the first (see
    :mod:`ragmetrics_core.formats.repeats`); the first reading then follows only those ids."""


def iter_samples(
    source: Source,
    *,
    format: InputFormat = "auto",
    columns: Mapping[str, str] | None = None,
    ids: IdLedger | None = None,
) -> Iterator[LoadedSample | RowError]:
    """Yield each row as a :class:`LoadedSample` or, when it is bad, a :class:`RowError`; never stop early
    for a bad row.

    Every sample gets an id: its own (``id`` column), else a stable hash of its content, with ``#2``,
    ``#3`` appended for repeated identical rows so that resumed runs can tell them apart. A repeated
    explicit id is an error for the later row.

    A ``.json`` file shaped like RAGChecker's ``checking_outputs.json`` is read as RAGChecker (with its
    claims and verdicts as the samples' evidence) even without ``format="ragchecker"``.

    ``source`` may also be rows in memory (see :mod:`ragmetrics_core.formats.tables`): a pandas DataFrame, a
    ``datasets.Dataset``, a ragas ``EvaluationDataset`` or list of ``SingleTurnSample``, dicts or
    :class:`RagSample` objects; anything else raises :class:`TypeError` saying what is accepted.

    ``ids``: settle the ids of a file holding a hash per id rather than the id, and read the same source again
    holding no id per row (see :class:`IdLedger`).

    Raises :class:`InputError` only when the source cannot be read at all (missing file, unknown format).
    """
    ledger = ids if ids is not None else IdLedger()
    replay = ledger.readings > 0
    if not replay and ids is not None and isinstance(source, str | Path) and str(source) != STDIN:
        # A file is read once more first, for which ids may repeat: the settling reading then holds only those.
        parsed = (row.sample for row in _parsed_rows(source, format, columns) if isinstance(row, LoadedSample))
        ledger.screen = screen_repeats(parsed, ledger.limit)
    ledger.readings += 1
    yield from (_replay_ids if replay else _settle_ids)(_parsed_rows(source, format, columns), ledger)


def _parsed_rows(
    source: Source, format: InputFormat, columns: Mapping[str, str] | None
) -> Iterator[LoadedSample | RowError]:
    """Each row of ``source``, its id not settled yet."""
    if is_in_memory(source):
        name, records = in_memory_rows(source)
        yield from _memory_rows(records, name, columns)
        return
    name, stream, owned = _open(source)
    try:
        fmt = _settle_format(format, name)
        if fmt == "ragchecker":
            yield from _ragchecker_rows(stream.read(), name)
        elif format == "auto" and fmt in ("json", None):
            # Only the content tells a RAGChecker file from rows, and (stdin) a JSON document from JSON lines.
            text = stream.read()
            if _is_ragchecker_output(text):
                yield from _ragchecker_rows(text, name)
            else:
                by_content: TableFormat = "json" if fmt == "json" or _looks_like_json_document(text) else "jsonl"
                yield from _table_rows(io.StringIO(text), by_content, name, columns)
        else:
            assert fmt is not None
            yield from _table_rows(stream, fmt, name, columns)
    finally:
        if owned:
            stream.close()


def load_samples(
    source: Source,
    *,
    format: InputFormat = "auto",
    columns: Mapping[str, str] | None = None,
    on_error: Callable[[RowError], None] | None = None,
) -> list[RagSample]:
    """All samples in ``source``.

    ``columns`` maps our fields to the file's column names (``{"response": "answer"}``). A bad row raises
    :class:`InputError` (with file, line, field and what was expected), unless ``on_error`` is given: then
    it is called with the :class:`RowError` and the row is skipped.
    """
    samples: list[RagSample] = []
    for row in iter_samples(source, format=format, columns=columns):
        if isinstance(row, RowError):
            if on_error is None:
                raise InputError(row)
            on_error(row)
        else:
            samples.append(row.sample)
    return samples


def source_name(source: Source) -> str:
    """What error messages call ``source``: its path, ``<stdin>``, a stream's name, ``<DataFrame>``."""
    if is_in_memory(source):
        return memory_name(source)
    if isinstance(source, io.TextIOBase) or hasattr(source, "read"):
        return str(getattr(source, "name", "<stream>"))
    return "<stdin>" if str(source) == STDIN else str(Path(source))


def _open(source: Source) -> tuple[str, TextIO, bool]:
    if isinstance(source, io.BufferedIOBase | io.RawIOBase):  # open(path, "rb"), BytesIO: bytes, not rows
        raise TypeError(
            f"{source_name(source)} is a binary stream: open the file as text (open(path, encoding='utf-8'), "
            "gzip.open(path, 'rt')) or pass its path"
        )
    if isinstance(source, io.TextIOBase) or hasattr(source, "read"):
        return source_name(source), cast(TextIO, source), False
    if str(source) == STDIN:
        return source_name(source), sys.stdin, False
    path = Path(source)
    try:
        # newline="" lets the csv module see quoted line breaks; the JSON readers do not care.
        return str(path), path.open(encoding="utf-8-sig", errors="surrogateescape", newline=""), True
    except OSError as error:
        raise InputError(RowError(str(path), f"cannot open: {error.strerror or error}")) from None


def first_line_not_utf8(path: str | Path) -> int | None:
    """The line of the first bytes of ``path`` that are not UTF-8, or ``None``. Its rows are read all the same
    (those bytes become U+FFFD), but a file saved in another encoding (Excel's cp1252, cp1251) then reads as
    garbled text and is scored as such: worth saying once. Read in binary a block at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 1
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:  # error.object: the block with any bytes held from the one before
                return lines + error.object.count(b"\n", 0, error.start)
            lines += block.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return lines  # cut off in the middle of a character at the very end
    return None


def _settle_format(fmt: InputFormat, name: str) -> TableFormat | Literal["ragchecker"] | None:
    """The format from the option or the extension; ``None`` when only the content can tell."""
    if fmt != "auto":
        return fmt
    suffix = Path(name).suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    if name == "<stdin>" or not suffix:
        return None
    hint = ""
    if suffix in _BINARY_TABLES:  # no text format --format could name: pandas reads it, evaluate() takes the frame
        hint = "; save it as CSV, or read it with pandas and pass the DataFrame to ragmetrics_core.evaluate"
    raise InputError(
        RowError(
            name,
            f"cannot tell the format from the extension {suffix!r}; pass --format jsonl|json|csv|ragchecker{hint}",
        )
    )


def format_is_known(fmt: InputFormat, name: str) -> bool:
    """Whether ``name`` is read in a format given or told by its extension (else reading it is refused)."""
    return fmt != "auto" or not Path(name).suffix or Path(name).suffix.lower() in _EXTENSIONS


def _looks_like_json_document(text: str) -> bool:
    """A JSON array, or one object wrapping rows; anything else is read as JSON lines."""
    body = text.lstrip()
    if body.startswith("["):
        return True
    if not body.startswith("{"):
        return False
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return False  # several objects, one per line
    return isinstance(value, dict) and any(isinstance(value.get(key), list) for key in WRAPPER_KEYS)


def _table_rows(
    stream: TextIO, fmt: TableFormat, name: str, columns: Mapping[str, str] | None
) -> Iterator[LoadedSample | RowError]:
    checked_header = False
    for record in read_records(stream, fmt, name):
        if isinstance(record, RowError):
            yield record
            continue
        if record.tabular and not checked_header:
            checked_header = True
            problem = header_problem(list(record.data), columns)
            if problem is not None:  # the file cannot be read at all: one error, not one per row
                raise InputError(RowError(name, problem, line=1))
        sample = record_to_sample(record, columns)
        if isinstance(sample, RowError):
            yield sample
        else:
            yield LoadedSample(sample, source=name, line=record.line, item=record.item)


def _memory_rows(
    records: Iterator[RawRecord | RagSample | RowError], name: str, columns: Mapping[str, str] | None
) -> Iterator[LoadedSample | RowError]:
    for index, record in enumerate(records):
        if isinstance(record, RagSample):
            yield LoadedSample(record, source=name, item=index)
        elif isinstance(record, RowError):
            yield record
        else:
            sample = record_to_sample(record, columns)
            yield sample if isinstance(sample, RowError) else LoadedSample(sample, source=name, item=record.item)


def _ragchecker_rows(text: str, name: str) -> Iterator[LoadedSample | RowError]:
    """Each RAGChecker result on its own, so one malformed result is skipped rather than losing the file."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        yield RowError(name, json_problem(error), line=error.lineno)
        return
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        yield RowError(name, "expected RAGChecker JSON: an object with a 'results' list", line=1)
        return
    for index, item in enumerate(data["results"]):
        try:
            [(sample, evidence)] = read_ragchecker({"results": [item]})
        except (RagCheckerFormatError, ValidationError) as error:
            message = str(error).replace("results[0]", f"results[{index}]", 1)
            yield RowError(name, message, item=index)
            continue
        has_evidence = any(evidence.has(part) for part in EvidencePart)
        yield LoadedSample(sample, source=name, item=index, evidence=evidence if has_evidence else None)


def _is_ragchecker_output(text: str) -> bool:
    """A JSON document shaped like RAGChecker's checking_outputs.json (results carrying verdict matrices)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        return False
    return any(key in results[0] for key in _RAGCHECKER_MARKERS)


def _settle_ids(rows: Iterator[LoadedSample | RowError], ledger: IdLedger) -> Iterator[LoadedSample | RowError]:
    # Where each explicit id was first used (its line, or row from 1 for sources without lines), not the row itself:
    # a file of a million rows must not be held in memory to tell a repeated id.
    # A screened file holds only the ids its screen says may repeat: the others are met once.
    seen_explicit: dict[str, int | None] = {}
    hash_counts: dict[str, int] = {}
    screen = ledger.screen
    parsed = 0
    for row in rows:
        if isinstance(row, RowError):
            yield row
            continue
        parsed += 1
        explicit = row.sample.id
        if explicit is not None:
            if screen is not None and not screen.may_repeat_id(explicit):
                yield row
            elif explicit in seen_explicit:
                first = seen_explicit[explicit]
                where = f"line {first}" if row.line is not None else f"row {first}"
                error = RowError(
                    row.source,
                    f"duplicate id {explicit!r} (first used at {where}); ids must be unique",
                    line=row.line,
                    item=row.item,
                    field="id",
                )
                ledger.repeated[parsed - 1] = error
                yield error
            else:
                seen_explicit[explicit] = _first_place(row)
                yield row
            continue
        key = sample_key(row.sample)
        if screen is not None and not screen.may_repeat_content(key):
            yield _with_id(row, key, 1)
            continue
        count = hash_counts.get(key, 0) + 1
        hash_counts[key] = count
        if count > 1:
            ledger.numbered[parsed - 1] = count
        yield _with_id(row, key, count)


def _replay_ids(rows: Iterator[LoadedSample | RowError], ledger: IdLedger) -> Iterator[LoadedSample | RowError]:
    """The ids :func:`_settle_ids` gave on the ledger's first reading, from the exceptions it recorded."""
    parsed = 0
    for row in rows:
        if isinstance(row, RowError):
            yield row
            continue
        parsed += 1
        repeated = ledger.repeated.get(parsed - 1)
        if repeated is not None:
            yield repeated
        elif row.sample.id is not None:
            yield row
        else:
            yield _with_id(row, sample_key(row.sample), ledger.numbered.get(parsed - 1, 1))


def _first_place(row: LoadedSample) -> int | None:
    """Where a duplicate's message says an id was first used: its line, else its row from 1."""
    return row.line if row.line is not None else None if row.item is None else row.item + 1


def _with_id(row: LoadedSample, key: str, count: int) -> LoadedSample:
    settled = key if count == 1 else f"{key}#{count}"
    return replace(row, sample=row.sample.model_copy(update={"id": settled}))
