"""Read a JSON answer out of whatever an endpoint sent back, and align verdict items to what was asked.

Endpoints without structured output wrap JSON in prose or code fences, reasoning models prepend a
``<think>`` block, and an answer cut at ``max_tokens`` ends mid-object. The reader takes the first JSON
value it can find, and closes a truncated one at the last complete item so the items that did arrive
are kept; the caller then asks again only for the items that are missing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from pydantic import ValidationError

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.judges.openai.schemas import adapter_of

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|\Z)", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_MAX_REPAIR_POINTS = 64
_MAX_START_POINTS = 32

ShapeT = TypeVar("ShapeT")


class AnswerFormatError(ValueError):
    """The endpoint's answer could not be read as the JSON we asked for."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.usage = Usage()  # what the failed call cost, filled in by the client


@dataclass(frozen=True)
class ParsedJson:
    value: object
    repaired: bool


def parse_json_answer(text: str) -> ParsedJson:
    """The first JSON object in ``text``; closes a truncated one. Raises :class:`AnswerFormatError`."""
    body = _THINK.sub("", text).strip()
    if not body:
        raise AnswerFormatError("the answer was empty")
    candidates = [match.group(1).strip() for match in _FENCE.finditer(body)] + [body]
    for candidate in candidates:
        found = _first_object(candidate)
        if found is not None:
            return found
    raise AnswerFormatError(f"no JSON object found in the answer (starts {body[:80]!r})")


def _first_object(text: str) -> ParsedJson | None:
    """The object starting at the first ``{`` that opens one, complete or truncated."""
    decoder = json.JSONDecoder()
    for count, match in enumerate(re.finditer(r"\{", text)):
        if count >= _MAX_START_POINTS:
            break
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            repaired = _close_truncated(text[match.start() :])
            if repaired is not None:
                return ParsedJson(repaired, repaired=True)
            continue
        if isinstance(value, dict):
            return ParsedJson(value, repaired=False)
    return None


def _close_truncated(text: str) -> object | None:
    """Cut ``text`` (starting with ``{``) after its last complete element and close the open brackets."""
    fragment = text
    stack: list[str] = []
    cut_points: list[tuple[int, str]] = []
    in_string = escaped = False
    for index, char in enumerate(fragment):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack or stack[-1] != char:
                return None
            stack.pop()
            if not stack:
                return None  # complete yet unparseable: not a truncation
            cut_points.append((index + 1, "".join(reversed(stack))))
        elif char == ",":
            cut_points.append((index, "".join(reversed(stack))))
    for end, closing in reversed(cut_points[-_MAX_REPAIR_POINTS:]):
        try:
            value = json.loads(fragment[:end] + closing)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def read_model(value: object, shape: type[ShapeT]) -> ShapeT:
    """``value`` validated as an answer shape (:mod:`.schemas`); raises :class:`AnswerFormatError`."""
    try:
        return adapter_of(shape).validate_python(value)
    except ValidationError as error:
        raise AnswerFormatError(f"the answer does not match the expected shape: {_short(error)}") from None


def _short(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "answer"
    return f"{where}: {first['msg']} ({error.error_count()} problem(s))"


ItemT = TypeVar("ItemT")


@dataclass(frozen=True)
class Alignment(Generic[ItemT]):
    """Items keyed by the id they were asked under, and the ids that came back missing or unreadable."""

    items: dict[str, ItemT]
    missing: list[str]
    notes: list[str]


def align_by_id(
    raw_items: Sequence[object],
    expected_ids: Sequence[str],
    read: Callable[[object], ItemT],
    id_of: Callable[[ItemT], str | None],
) -> Alignment[ItemT]:
    """Match answer items to ``expected_ids`` by the id each item echoes, each read with ``read`` first.

    A list without ids is aligned by position only when it has exactly the expected length; a duplicate,
    an unknown id or an unreadable item is never guessed into place, so a short or reordered answer
    leaves the affected ids *missing* rather than shifting every verdict after it.
    """
    readable: list[ItemT | None] = []
    for raw in raw_items:
        try:
            readable.append(read(raw))
        except (AnswerFormatError, ValidationError, TypeError, ValueError):
            readable.append(None)
    return _placed(readable, expected_ids, id_of)


def align_read(
    items: Sequence[ItemT], expected_ids: Sequence[str], id_of: Callable[[ItemT], str | None]
) -> Alignment[ItemT]:
    """:func:`align_by_id` for items read already (an answer read whole)."""
    return _placed(list(items), expected_ids, id_of)


def _placed(
    readable: list[ItemT | None], expected_ids: Sequence[str], id_of: Callable[[ItemT], str | None]
) -> Alignment[ItemT]:
    ids = [None if item is None else id_of(item) for item in readable]
    if ids == list(expected_ids):  # what a model following the prompt sends: every id once, in the order asked
        return Alignment(items=dict(zip(expected_ids, cast(list[ItemT], readable), strict=True)), missing=[], notes=[])
    expected = set(expected_ids)
    notes: list[str] = []
    items: dict[str, ItemT] = {}
    if not any(ids) and len(readable) == len(expected_ids):
        notes.append("items came without ids; aligned by position as the counts match")
        for expected_id, item in zip(expected_ids, readable, strict=True):
            if item is not None:
                items[expected_id] = item
    else:
        for item_id, item in zip(ids, readable, strict=True):
            if item is None or item_id is None:
                continue
            if item_id not in expected:
                notes.append(f"ignored an item with unknown id {item_id!r}")
            elif item_id in items:
                notes.append(f"ignored a duplicate item for id {item_id!r}")
            else:
                items[item_id] = item
    unreadable = sum(item is None for item in readable)
    if unreadable:
        notes.append(f"{unreadable} item(s) could not be read")
    missing = [item_id for item_id in expected_ids if item_id not in items]
    return Alignment(items=items, missing=missing, notes=notes)
