"""What goes wrong in an input file, said so a person can fix it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RowError:
    """One bad row: where it is, which field, and what was expected instead.

    ``line`` is 1-based (the line the row starts on); ``item`` is the 0-based position of the row among the
    file's rows when the format has no lines to speak of (a JSON object wrapping a list).
    """

    source: str
    message: str
    line: int | None = None
    item: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
        elif self.item is not None:
            where += f": item {self.item}"
        what = f"field '{self.field}': {self.message}" if self.field else self.message
        return f"{where}: {what}"


class InputError(ValueError):
    """An input file (or one of its rows) cannot be read as RAG samples."""

    def __init__(self, error: RowError) -> None:
        super().__init__(str(error))
        self.error = error


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
