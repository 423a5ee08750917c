"""Samples out of data already in memory: a pandas DataFrame, a HuggingFace ``datasets.Dataset``, a ragas
``EvaluationDataset`` or list of ``SingleTurnSample``, a list of dicts, or a list of :class:`RagSample`.

Nothing here imports pandas, datasets or ragas: each shape is recognised by what it offers (a DataFrame's
``to_dict("records")``, a Dataset's ``column_names``, an EvaluationDataset's ``samples``, a sample's
``model_dump``), so ragmetrics works with whichever of them the user has. Rows go through the same column
aliases and checks as rows of a file (ragas' ``user_input``/``retrieved_contexts``/``response``/``reference`` and
its older ``question``/``contexts``/``answer``/``ground_truth``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ragmetrics_core.formats.errors import RowError
from ragmetrics_core.formats.records import RawRecord, refuse_repeated_columns
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

ACCEPTED = (
    "a path (JSONL, JSON, CSV, RAGChecker JSON) or '-', an open text stream, a pandas DataFrame, a HuggingFace "
    "datasets.Dataset, a ragas EvaluationDataset or list of SingleTurnSample, a list of dicts, or a list of "
    "RagSample"
)


def is_in_memory(source: object) -> bool:
    """Whether ``source`` is rows in memory rather than a path or a stream."""
    return not isinstance(source, str | Path) and not hasattr(source, "read")


def in_memory_rows(data: object) -> tuple[str, Iterator[RawRecord | RagSample | RowError]]:
    """A name for the data (used in error messages) and its rows; :class:`TypeError` for anything else, and
    :class:`~ragmetrics_core.formats.errors.InputError` for a DataFrame that repeats a column name."""
    if isinstance(data, str | bytes | Mapping) or not (_is_table(data) or isinstance(data, Iterable)):
        raise TypeError(f"cannot read samples from {type(data).__name__}: expected {ACCEPTED}")
    name = memory_name(data)
    frame: Any = data
    if _is_frame(frame):
        refuse_repeated_columns(name, [str(column) for column in frame.columns])
    return name, _rows(data, name)


def memory_name(data: object) -> str:
    """The name of data in memory in error messages: ``<DataFrame>``, ``<list>``."""
    return f"<{type(data).__name__}>"


def _is_table(data: object) -> bool:
    return _is_frame(data) or hasattr(data, "column_names")


def _is_frame(data: object) -> bool:
    return hasattr(data, "to_dict") and hasattr(data, "columns")


def _rows(data: Any, name: str) -> Iterator[RawRecord | RagSample | RowError]:
    # A DataFrame's or a Dataset's rows are table rows, read cell by cell as a CSV file's are (a list of contexts
    # may be written as text); dicts and ragas samples are read as JSON is.
    tabular = _is_table(data)
    if _is_frame(data):
        items: Iterable[Any] = data.to_dict("records")
    elif hasattr(data, "samples") and not isinstance(data, list):  # a ragas EvaluationDataset
        items = data.samples
    else:  # a datasets.Dataset iterates its rows as dicts; lists as themselves
        items = data
    for index, item in enumerate(items):
        if isinstance(item, RagSample):
            yield item
        elif isinstance(item, Mapping):
            yield _record(name, item, index, tabular)
        elif hasattr(item, "model_dump") and hasattr(item, "user_input"):  # a ragas SingleTurnSample
            yield _record(name, item.model_dump(), index, tabular)
        else:
            yield _not_a_row(name, index, item)


def _not_a_row(name: str, index: int, item: object) -> RowError:
    return RowError(name, f"expected a dict, a RagSample or a ragas SingleTurnSample, got {type(item).__name__}",
                    item=index)


def _record(name: str, row: Mapping[Any, Any], index: int, tabular: bool) -> RawRecord:
    """The row's cells as plain Python, the missing ones (NaN, NaT, None) set apart: a column a row leaves empty
    (a DataFrame that mixes ragas' old and new column names) is as good as absent, yet a missing response is said
    to be missing rather than its column not found."""
    cells = {str(key): _plain(value) for key, value in row.items()}
    present = {key: value for key, value in cells.items() if not is_missing(value)}
    empty = tuple(key for key in cells if key not in present)
    return RawRecord(name, present, item=index, tabular=tabular, empty=empty)


def is_missing(value: Any) -> bool:
    """Whether a cell holds no value: ``None``, NaN, pandas' ``NaT`` and ``NA``, numpy's ``NaT``; recognised
    without importing pandas or numpy (each of those, but ``NA``, is unequal to itself)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, str | bytes | list | tuple | dict):
        return False
    try:
        return bool(value != value)
    except (TypeError, ValueError):  # an array compares element by element
        return False


def _plain(value: Any) -> Any:
    """A cell as plain Python: numpy arrays and scalars (Parquet, Arrow) become lists and numbers."""
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, str | bytes):
        return tolist()
    return value
