"""Raw rows out of JSONL, JSON and CSV text, each tagged with where it came from.

Rows are plain dicts; turning them into samples (and naming bad fields) is :mod:`.columns`' job. A row
that cannot be parsed at all becomes a :class:`RowError` and reading goes on with the next one, except in
a JSON array, where a syntax error leaves no safe place to resume.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TextIO

from ragmetrics_core.formats.errors import InputError, RowError, describe_value, json_problem

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

TableFormat = Literal["jsonl", "json", "csv"]

# Keys under which a JSON object may wrap its list of rows (RAGChecker uses "results").
WRAPPER_KEYS = ("samples", "results", "data", "rows")

# A CSV cell holding a whole document can be large; the csv module's default limit (128 KiB) is too small.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


@dataclass(frozen=True, slots=True)
class RawRecord:
    source: str
    data: dict[str, Any]
    """The row's cells that hold a value."""
    line: int | None = None
    item: int | None = None
    tabular: bool = False
    """A row of a table (a CSV file, a DataFrame, a ``datasets.Dataset``): a cell may hold a list or an object
    written as text, and an empty cell is no value (:func:`~ragmetrics_core.formats.columns.read_cell`)."""
    empty: tuple[str, ...] = ()
    """Columns the source has that this row leaves without a value (NaN, None, NaT), not in ``data``."""


def refuse_repeated_columns(source: str, names: Sequence[str], *, line: int | None = None) -> None:
    """Raise :class:`InputError` naming every column that appears more than once: a dict of the row (what
    ``csv.DictReader`` and ``DataFrame.to_dict`` build) would silently keep only the last of them."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(
            RowError(source, f"the header repeats column {', '.join(map(repr, repeated))}; name each once", line=line)
        )


def read_records(stream: TextIO, fmt: TableFormat, source: str) -> Iterator[RawRecord | RowError]:
    if fmt == "jsonl":
        yield from _jsonl(stream, source)
    elif fmt == "csv":
        yield from _csv(stream, source)
    else:
        yield from _json(stream.read(), source)


def _jsonl(stream: TextIO, source: str) -> Iterator[RawRecord | RowError]:
    for number, text in enumerate(stream, start=1):
        if not text.strip():
            continue
        try:
            # Without its line break: a line cut short must read "Unterminated string", not "Invalid control
            # character" (the break would be inside the open string).
            value = json.loads(text.rstrip("\r\n"))
        except json.JSONDecodeError as error:
            yield RowError(source, json_problem(error), line=number)
            continue
        if not isinstance(value, dict):
            yield RowError(source, f"expected a JSON object per line, got {describe_value(value)}", line=number)
            continue
        yield RawRecord(source, value, line=number)


def _csv(stream: TextIO, source: str) -> Iterator[RawRecord | RowError]:
    reader = csv.DictReader(stream, restkey="\x00extra")
    if reader.fieldnames is None:
        return
    refuse_repeated_columns(source, list(reader.fieldnames), line=1)
    header_width = len(reader.fieldnames)
    start = reader.line_num + 1
    for index, row in enumerate(reader):
        extra = row.pop("\x00extra", None)
        if extra is not None:
            yield RowError(
                source,
                f"row has {header_width + len(extra)} cells, the header has {header_width}",
                line=start,
                item=index,
            )
        else:
            yield RawRecord(source, dict(row), line=start, item=index, tabular=True)
        start = reader.line_num + 1


def _json(text: str, source: str) -> Iterator[RawRecord | RowError]:
    body = text.lstrip()
    if not body:
        return  # an empty file has no rows, as an empty JSONL or CSV file has none; not a syntax error
    if body.startswith("["):
        yield from _json_array(text, source)
        return
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        yield RowError(source, json_problem(error), line=error.lineno)
        return
    if isinstance(value, dict):
        for key in WRAPPER_KEYS:
            rows = value.get(key)
            if isinstance(rows, list):
                for index, row in enumerate(rows):
                    if isinstance(row, dict):
                        yield RawRecord(source, row, item=index)
                    else:
                        yield RowError(source, f"expected an object, got {describe_value(row)}", item=index, field=key)
                return
        yield RawRecord(source, value, line=1)
        return
    yield RowError(source, f"expected a JSON array or object of samples, got {describe_value(value)}", line=1)


def _json_array(text: str, source: str) -> Iterator[RawRecord | RowError]:
    """Walk a top-level JSON array element by element, so each row knows the line it starts on."""
    decoder = json.JSONDecoder()
    position = _skip_space(text, text.index("[") + 1)
    if position < len(text) and text[position] == "]":
        return
    index = 0
    while True:
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            yield RowError(
                source,
                f"{json_problem(error, line=True)}; the rest of the file is skipped",
                line=line,
                item=index,
            )
            return
        if isinstance(value, dict):
            yield RawRecord(source, value, line=line, item=index)
        else:
            yield RowError(source, f"expected an object, got {describe_value(value)}", line=line, item=index)
        index += 1
        position = _skip_space(text, position)
        separator = text[position] if position < len(text) else ""
        if separator == "]":
            return
        if separator != ",":
            found = repr(separator) if separator else "the end of the file"
            yield RowError(
                source,
                f"expected ',' or ']' after row {index}, found {found}; the rest of the file is skipped",
                line=text.count("\n", 0, position) + 1,
            )
            return
        position = _skip_space(text, position + 1)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
