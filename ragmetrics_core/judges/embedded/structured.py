"""A context that is a JSON record (a tool result, a database row, a product card) read as short statements.

A lexical judge compares words in sentences; ``{"OutdoorSeating": true, "hours": {"Monday": "7:0-14:0"}}`` has
neither. Each leaf becomes one statement of its key path in words and its value ("outdoor seating.",
"hours monday 7:00-14:00.", the minutes given two digits so the judge reads times of day), a ``false`` leaf a
negated one whose negation covers the leaf alone ("attributes business parking: no garage."), so an answer that
says the place "offers outdoor seating" is checked against the statement that says so, and one that says "it
has a garage" against "no garage" (a negation the judge reads as a contradiction). Long string values (reviews,
descriptions) stay prose, to be cut into sentences as any other text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import islice
from typing import Any

MAX_JSON_CHARS = 2_000_000
"""Larger contexts are read as plain text (json parses linearly, but a huge record is no longer a record)."""
MAX_STATEMENTS = 5_000
"""Leaves read per record (documented cap); the rest of the record is left out."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z])(?=\d)")
_SEPARATORS = re.compile(r"[_\-.]+")
_NEGATIVE_VALUES = frozenset({"no", "none", "false"})
"""String values that deny the key as ``false`` does (``"WiFi": "no"``)."""
_PARTICLES = frozenset({"out", "away", "up", "in", "off"})
"""Key pieces that complete the verb before them (``TakeOut``, ``PickUp``)."""
_HOURS_RANGE = re.compile(r"(\d{1,2}):(\d{1,2})-(\d{1,2}):(\d{1,2})")
"""Opening hours written "7:0-14:0": the minutes get their two digits, so the judge reads times of day (a lone
"3:2" may be a score and stays as written)."""


def readable(text: str) -> str:
    """``text`` itself, or, when it is a JSON object or array, its leaves as statements, one per paragraph."""
    stripped = text.strip()
    if len(stripped) > MAX_JSON_CHARS or not stripped.startswith(("{", "[")):
        return text
    try:
        record = json.loads(stripped)
    except (ValueError, RecursionError):
        return text  # a text that opens with "{" or "[" and parses is an object or an array
    statements = list(islice(_statements(record, ()), MAX_STATEMENTS))
    return "\n\n".join(statements) if statements else text


def _statements(value: Any, path: tuple[str, ...]) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _statements(inner, (*path, _words(str(key))))
    elif isinstance(value, list):
        for inner in value:
            yield from _statements(inner, path)
    elif value is None:
        return
    elif value is True:
        yield _sentence(" ".join(path))
    elif value is False or (isinstance(value, str) and value.strip().casefold() in _NEGATIVE_VALUES):
        # The negation covers the leaf alone: "attributes business parking: no garage" denies a garage, not a
        # business (the judge's negation scope stops at the colon).
        *parents, leaf = path or ("",)
        yield _sentence(f"{' '.join(parents)}: no {leaf}" if parents else f"no {leaf}")
    elif isinstance(value, str) and len(value.split()) > 8:
        yield value  # prose: its own sentences, without the key path in front
    else:
        yield _sentence(" ".join((*path, _value_text(value))))


def _value_text(value: object) -> str:
    text = str(value)
    hours = _HOURS_RANGE.fullmatch(text.strip())
    if hours is None:
        return text
    opens_h, opens_m, closes_h, closes_m = hours.groups()
    return f"{opens_h}:{int(opens_m):02d}-{closes_h}:{int(closes_m):02d}"


def _words(key: str) -> str:
    """A key in words: ``OutdoorSeating`` → ``outdoor seating``, ``business_stars`` → ``business stars``; two
    short pieces stay one word (``WiFi`` → ``wifi``, as answers write it); a verb and its particle are written
    both closed and open (``TakeOut`` → ``takeout take out``), as answers write either."""
    pieces: list[str] = []
    for piece in _SEPARATORS.sub(" ", _CAMEL.sub(" ", key)).split():
        if pieces and len(piece) <= 2 and len(pieces[-1]) <= 2:
            pieces[-1] += piece
        elif pieces and piece.casefold() in _PARTICLES:
            verb = pieces.pop()
            pieces.extend((verb + piece, verb, piece))
        else:
            pieces.append(piece)
    return " ".join(pieces).lower()


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."
