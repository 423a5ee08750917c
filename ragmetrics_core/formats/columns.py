"""Turn one raw row into a :class:`RagSample`, naming the field and the expected type when it cannot.

Columns follow ragas (``user_input``, ``retrieved_contexts``, ``response``, ``reference``). Common older
names (``question``, ``contexts``, ``answer``, ``ground_truth``; RAGChecker's ``query``,
``retrieved_context``, ``gt_answer``) are recognised when the standard one is absent, and an explicit
mapping overrides both. Columns that map to no field are kept in the sample's ``metadata``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ragmetrics_core.formats.errors import RowError, describe_value
from ragmetrics_core.formats.records import RawRecord
from ragmetrics_core.sample import Context, RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

FIELDS = ("user_input", "retrieved_contexts", "response", "reference", "id", "metadata")

ALIASES: dict[str, tuple[str, ...]] = {
    "user_input": ("user_input", "question", "query", "input"),
    "retrieved_contexts": ("retrieved_contexts", "contexts", "retrieved_context", "context"),
    "response": ("response", "answer", "output"),
    "reference": ("reference", "ground_truth", "gt_answer", "reference_answer"),
    "id": ("id", "sample_id", "query_id"),
    "metadata": ("metadata",),
}

_TEXT_KEYS = ("text", "page_content", "content")
_ID_KEYS = ("id", "doc_id")


class _FieldProblem(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def parse_column_mapping(pairs: list[str]) -> dict[str, str]:
    """Read ``FIELD=COLUMN`` pairs (``--column response=answer``) into a mapping, rejecting unknown fields."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        field, separator, column = pair.partition("=")
        field, column = field.strip(), column.strip()
        if not separator or not field or not column:
            raise ValueError(f"column mapping {pair!r} must look like FIELD=COLUMN, e.g. response=answer")
        if field not in FIELDS:
            raise ValueError(f"unknown field {field!r} in column mapping; fields are {', '.join(FIELDS)}")
        mapping[field] = column
    return mapping


def sample_key(sample: RagSample) -> str:
    """A stable id for a sample without one: a hash of what is evaluated (not of its metadata)."""
    payload = json.dumps(
        [sample.user_input, sample.context_texts, sample.response, sample.reference],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def record_to_sample(record: RawRecord, mapping: Mapping[str, str] | None = None) -> RagSample | RowError:
    """The sample in ``record``, or a :class:`RowError` naming the column at fault."""
    columns = _resolve_columns(record.data, mapping or {}, record.empty)
    try:
        return _build(record, columns)
    except _FieldProblem as problem:
        return RowError(record.source, problem.message, line=record.line, item=record.item, field=problem.field)


def header_problem(header: Sequence[str], mapping: Mapping[str, str] | None = None) -> str | None:
    """What makes every row of a table with this header unreadable (no response column, a mapped column that
    is not there), said once for the file; ``None`` when the header is fine."""
    present = dict.fromkeys(header, "")
    columns = _resolve_columns(present, mapping or {})
    for field in ("user_input", "response"):
        if field in columns and columns[field] not in present:
            return f"the header has no column {columns[field]!r} (mapped to {field}); it has {', '.join(header)}"
    if "response" not in columns:
        expected = "/".join(ALIASES["response"])
        return f"the header has no response column (expected one of {expected}, or map one); it has {', '.join(header)}"
    return None


def _resolve_columns(
    data: Mapping[str, Any], mapping: Mapping[str, str], empty: Sequence[str] = ()
) -> dict[str, str]:
    """Each field's column: the mapped one, else the first alias holding a value, else the first alias the row
    has without a value (``empty``: so an empty response cell is a missing response, not a missing column)."""
    columns: dict[str, str] = {}
    for field in FIELDS:
        if field in mapping:
            columns[field] = mapping[field]
            continue
        found = next((alias for alias in ALIASES[field] if alias in data), None)
        if found is None:
            found = next((alias for alias in ALIASES[field] if alias in empty), None)
        if found is not None:
            columns[field] = found
    return columns


def _build(record: RawRecord, columns: dict[str, str]) -> RagSample:
    """One record as a sample: its mapped columns present, each value read and of the right type, then validated."""
    _check_columns(record, columns)
    data = record.data
    values: dict[str, Any] = {
        field: read_cell(field, column, data[column]) if record.tabular else data[column]
        for field, column in columns.items()
        if column in data
    }
    contexts = _contexts(values.pop("retrieved_contexts", None), columns.get("retrieved_contexts", ""))
    metadata = _metadata(values.pop("metadata", None), columns.get("metadata", "metadata"))
    used = set(columns.values())
    metadata.update({key: value for key, value in data.items() if key not in used and value not in ("", None)})
    raw_id = values.pop("id", None)
    _check_values(record, columns, values, raw_id)
    try:
        return RagSample(
            user_input=values.get("user_input") or "",
            retrieved_contexts=contexts,
            response=values["response"],
            reference=values.get("reference"),
            metadata=metadata,
            id=None if raw_id is None else str(raw_id),
        )
    except ValidationError as error:
        first = error.errors()[0]
        location = ".".join(str(part) for part in first["loc"])
        raise _FieldProblem(location, f"{first['msg']} (got {describe_value(first.get('input'))})") from None


def _check_columns(record: RawRecord, columns: dict[str, str]) -> None:
    """The question and response columns, when mapped, are in the record; a response column is mapped."""
    for field in ("user_input", "response"):
        if field in columns and columns[field] not in record.data and columns[field] not in record.empty:
            raise _FieldProblem(columns[field], f"column is missing (mapped to {field})")
    if "response" not in columns:
        expected = "/".join(ALIASES["response"])
        raise _FieldProblem("response", f"no response column (expected one of {expected}, or map one)")


def _check_values(record: RawRecord, columns: dict[str, str], values: dict[str, Any], raw_id: Any) -> None:
    """The id is a string or an integer, the response is there, and the texts are strings."""
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        raise _FieldProblem(columns["id"], f"expected a string or integer id, got {describe_value(raw_id)}")
    if values.get("response") is None:
        raise _FieldProblem(columns["response"], "missing response (the cell is empty)" if record.tabular
                            else "missing response (null)")
    for field in ("user_input", "response", "reference"):
        value = values.get(field)
        allowed_none = field == "reference" or (field == "user_input" and value is None)
        if value is None and allowed_none:
            continue
        if not isinstance(value, str):
            raise _FieldProblem(columns[field], f"expected a string ({field}), got {describe_value(value)}")


def read_cell(field: str, column: str, cell: Any) -> Any:
    """A table's cell (a CSV file's, a DataFrame's, a Dataset's) as ``field``'s value: the one reading for all of
    them. Text may hold a list of contexts (a JSON array or a Python list literal, as pandas writes one; other text
    is one context) or a JSON metadata object; an empty cell is no value. A cell that already holds a list, an
    object or a number (a DataFrame built in Python) is taken as it is."""
    if field == "id" and isinstance(cell, float) and cell.is_integer():
        return int(cell)  # pandas makes a number column with an empty cell floats: the file's id 7 is 7.0 there
    if not isinstance(cell, str):
        return cell
    if cell == "":
        return None
    if field == "retrieved_contexts":
        text = cell.strip()
        if text.startswith("["):
            return _parse_list_cell(column, text)
        return [cell]
    if field == "metadata":
        try:
            return json.loads(cell)
        except json.JSONDecodeError as error:
            raise _FieldProblem(column, f"expected a JSON object, could not parse it ({error.msg})") from None
    return cell


def _parse_list_cell(column: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        # pandas writes list columns as Python reprs (['a', 'b']); literal_eval reads those and nothing else.
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise _FieldProblem(column, "expected a list of contexts as a JSON array or a Python list literal") from None


def _contexts(raw: Any, column: str) -> list[Context]:
    if raw is None:
        return []
    if isinstance(raw, str):
        raise _FieldProblem(column, "expected a list of contexts, got a single string (wrap it in a list)")
    if not isinstance(raw, list):
        raise _FieldProblem(column, f"expected a list of contexts, got {describe_value(raw)}")
    contexts: list[Context] = []
    for index, item in enumerate(raw):
        where = f"{column}[{index}]"
        if isinstance(item, str):
            contexts.append(Context(text=item))
        elif isinstance(item, dict):
            contexts.append(_context_object(item, where))
        else:
            raise _FieldProblem(where, f"expected a string or an object with 'text', got {describe_value(item)}")
    return contexts


def _context_object(item: dict[str, Any], where: str) -> Context:
    text_key = next((key for key in _TEXT_KEYS if key in item), None)
    if text_key is None or not isinstance(item[text_key], str):
        raise _FieldProblem(where, "expected an object with a string 'text' (or 'page_content'/'content')")
    id_key = next((key for key in _ID_KEYS if key in item), None)
    raw_id = item.get(id_key) if id_key else None
    score = item.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise _FieldProblem(f"{where}.score", f"expected a number, got {describe_value(score)}")
    if score is not None and not math.isfinite(score):
        raise _FieldProblem(f"{where}.score", f"expected a finite number, got {score}")
    metadata = item.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise _FieldProblem(f"{where}.metadata", f"expected an object, got {describe_value(metadata)}")
    known = {text_key, id_key, "score", "metadata"}
    extra = {key: value for key, value in item.items() if key not in known}
    return Context(
        text=item[text_key],
        id=None if raw_id is None else str(raw_id),
        score=None if score is None else float(score),
        metadata={**(metadata or {}), **extra},
    )


def _metadata(raw: Any, column: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _FieldProblem(column, f"expected an object, got {describe_value(raw)}")
    return dict(raw)
