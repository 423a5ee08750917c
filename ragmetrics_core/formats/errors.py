"""What goes wrong in an input file, said so a person can fix it."""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

NO_SAMPLES = "no samples to evaluate (the input is empty or has no rows)"


@dataclass(frozen=True, slots=True)
class RowError:
    """One bad row: where it is, which field, and what was expected instead.

    ``line`` is 1-based (the line the row starts on); ``item`` is the 0-based position of the row among the
    source's rows (a CSV file's data rows, a JSON array's or wrapped list's items, a DataFrame's or a list's rows).
    Both are shown counted from 1: ``<DataFrame>: row 3`` is the third row (``df.iloc[2]``), ``data.csv:4 (row
    3)`` the same row of the CSV file it was read from (line 4, under the header), ``file.jsonl:12`` line 12.
    """

    source: str
    message: str
    line: int | None = None
    item: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}" if self.item is None else f":{self.line} (row {self.item + 1})"
        elif self.item is not None:
            where += f": row {self.item + 1}"
        what = f"field '{self.field}': {self.message}" if self.field else self.message
        return f"{where}: {what}"


class InputError(ValueError):
    """An input file (or one of its rows) cannot be read as RAG samples."""

    def __init__(self, error: RowError) -> None:
        super().__init__(str(error))
        self.error = error


def json_problem(error: json.JSONDecodeError, *, line: bool = False) -> str:
    """``not valid JSON (Unterminated string starting at column 12)``. The decoder's own messages may end in
    "at" ("Invalid control character at"), so the position is joined to them once, not twice."""
    where = f"line {error.lineno} column {error.colno}" if line else f"column {error.colno}"
    return f"not valid JSON ({error.msg.removesuffix(' at')} at {where})"


def describe_value(value: object) -> str:
    """What a JSON value is, for messages: ``a string``, ``number 42``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
