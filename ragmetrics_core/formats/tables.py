"""Samples out of data already in memory: a pandas DataFrame, a HuggingFace ``datasets.Dataset``, a ragas
``EvaluationDataset`` or list of ``SingleTurnSample``, a list of dicts, or a list of :class:`RagSample`.

Nothing here imports pandas, datasets or ragas: each shape is recognised by what it offers (a DataFrame's
``to_dict("records")``, a Dataset's ``column_names``, an EvaluationDataset's ``samples``, a sample's
``model_dump``), so ragmetrics works with whichever of them the user has. Rows go through the same column
aliases and checks as rows of a file (ragas' ``user_input``/``retrieved_contexts``/``response``/``reference`` and
its older ``question``/``contexts``/``answer``/``ground_truth``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ragmetrics_core.formats.errors import RowError
from ragmetrics_core.formats.records import RawRecord
from ragmetrics_core.sample import RagSample

ACCEPTED = (
    "a path (JSONL, JSON, CSV, RAGChecker JSON) or '-', an open text stream, a pandas DataFrame, a HuggingFace "
    "datasets.Dataset, a ragas EvaluationDataset or list of SingleTurnSample, a list of dicts, or a list of "
    "RagSample"
)


def is_in_memory(source: object) -> bool:
    """Whether ``source`` is rows in memory rather than a path or a stream."""
    return not isinstance(source, str | Path) and not hasattr(source, "read")


def in_memory_rows(data: object) -> tuple[str, Iterator[RawRecord | RagSample | RowError]]:
    """A name for the data (used in error messages) and its rows; :class:`TypeError` for anything else."""
    if isinstance(data, str | bytes | Mapping) or not (_is_table(data) or isinstance(data, Iterable)):
        raise TypeError(f"cannot read samples from {type(data).__name__}: expected {ACCEPTED}")
    name = memory_name(data)
    return name, _rows(data, name)


def memory_name(data: object) -> str:
    """The name of data in memory in error messages: ``<DataFrame>``, ``<list>``."""
    return f"<{type(data).__name__}>"


def _is_table(data: object) -> bool:
    return (hasattr(data, "to_dict") and hasattr(data, "columns")) or hasattr(data, "column_names")


def _rows(data: Any, name: str) -> Iterator[RawRecord | RagSample | RowError]:
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        items: Iterable[Any] = data.to_dict("records")
    elif hasattr(data, "samples") and not isinstance(data, list):  # a ragas EvaluationDataset
        items = data.samples
    else:  # a datasets.Dataset iterates its rows as dicts; lists as themselves
        items = data
    for index, item in enumerate(items):
        if isinstance(item, RagSample):
            yield item
        elif isinstance(item, Mapping):
            yield RawRecord(name, _present(item), item=index)
        elif hasattr(item, "model_dump") and hasattr(item, "user_input"):  # a ragas SingleTurnSample
            yield RawRecord(name, _present(item.model_dump()), item=index)
        else:
            yield _not_a_row(name, index, item)


def _not_a_row(name: str, index: int, item: object) -> RowError:
    return RowError(name, f"expected a dict, a RagSample or a ragas SingleTurnSample, got {type(item).__name__}",
                    item=index)


def _present(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The row's cells as plain Python, without missing ones: a column a row leaves empty (NaN in a DataFrame
    that mixes ragas' old and new column names, ``None`` in a sample) is as good as absent."""
    cells = {str(key): _plain(value) for key, value in row.items()}
    return {key: value for key, value in cells.items() if value is not None}


def _plain(value: Any) -> Any:
    """A cell as plain Python: numpy arrays (Parquet, Arrow) become lists, a missing value (NaN, None) None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, str | bytes):
        return tolist()
    return value
