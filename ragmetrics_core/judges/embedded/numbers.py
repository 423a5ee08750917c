"""Numbers in text: one key per value whatever the writing ("1,889", "1 889", "1889-го", "1889年" → ``#1889``).

A number token is read with the word after it (a scale multiplies it, a unit sets its kind) and the words around
it (a small count next to a month is a day); a year range and a time of day are rewritten first, so that
"2018–19" reads as 2018 to 2019 and "2:00 PM" as the one number ``h1400``.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import NamedTuple

from ragmetrics_core.judges.embedded import lexicon

# "2018–19", not part of a date or a version ("2010-12-04", "1.2010-11")
_YEAR_RANGE_RE = re.compile(r"(?<![\d./-])((?:1[5-9]|20)\d\d)([-–])(\d\d)(?!\d|[./-]\d)")
# A time of day, "7:00", "14:00", "2:00 PM", "7 a.m.", "2pm": one term (see :func:`_clock_time`). Minutes have
# two digits, so a score or a ratio ("won 3:2") stays two numbers.
_CLOCK_RE = re.compile(
    r"(?<![\d:.,])(?:(\d{1,2}):([0-5]\d)(?::[0-5]\d)?(?![\d:]|[.,]\d)|(\d{1,2})(?=\s?[aApP]\.?[mM]\b))"
    r"(?:\s?([aApP])\.?[mM]\b\.?)?"
)
_TIME_TERM_RE = re.compile(r"h[0-2]\d[0-5]\d")
_CLOCK_HINT_RE = re.compile(r"\d(?::\d|\s?[aApP]\.?[mM]\b)")
_MERIDIEM_RE = re.compile(r"m(?:(?<=\d[ap]m)|(?<=\d\s[ap]m)|(?<=\d[ap]\.m)|(?<=\d\s[ap]\.m))")
_THOUSANDS_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NUMBER_WORD_EXCLUDED = frozenset({"one", "один", "одна", "одно"})
UNITS = lexicon.EN.set("units") | lexicon.RU.set("units") | lexicon.ZH.set("units")
NUMBER_FOLLOWERS = UNITS | frozenset(lexicon.NUMBER_SCALES)
"""Words that change the number before them (a scale multiplies it, a unit sets its kind)."""
MAX_NUMBER_CHARS = 64
"""A longer number token is read from its first 64 characters (no number is that long; the caches stay small)."""


class Number(NamedTuple):
    """A number found in text; ``kind`` separates years from other quantities for contradiction checks.

    Named tuples (here and :class:`.terms.Terms`): immutable like a frozen dataclass, and several times cheaper to
    build, which matters for the tens of thousands of sentences a second the judge analyses."""

    value: float
    kind: str
    key: str
    text: str


def rewrite_ranges_and_times(text: str) -> str:
    """"2018–19" → "2018–2019" (so it matches "2018-2019"), and every time of day → its ``hHHMM`` term. A time
    needs ":" or a lower-cased "am"/"pm" after a digit, which a scan for "m" finds far quicker than one for digits."""
    if ("-" in text or "–" in text) and _YEAR_RANGE_RE.search(text):
        text = _YEAR_RANGE_RE.sub(_full_range, text)
    if (":" in text or _MERIDIEM_RE.search(text.lower())) and _CLOCK_HINT_RE.search(text):
        text = _CLOCK_RE.sub(_clock_time, text)
    return text


def _full_range(match: re.Match[str]) -> str:
    first, dash, short = match.group(1), match.group(2), match.group(3)
    end = int(first[:2] + short)
    return f"{first}{dash}{end}" if end > int(first) else match.group(0)


def _clock_time(match: re.Match[str]) -> str:
    """A time of day as one number on the 24-hour clock ("2:00 PM" and "14:00" → ``h1400``, of kind "time"): the
    two numbers of "7:00" would each match any 7 or 0, and "2 PM" would never match "14:00"."""
    hours = int(match.group(1) or match.group(3))
    minutes = int(match.group(2) or 0)
    half = (match.group(4) or "").casefold()
    if half and 1 <= hours <= 12:
        hours = hours % 12 + (12 if half == "p" else 0)
    elif half or hours > 24:
        return match.group(0)  # "14 pm", "31:00": not a time of day
    return f"h{hours:02d}{minutes:02d}"


def time_of_day(token: str) -> Number | None:
    """The number of a token written by :func:`rewrite_ranges_and_times` for a time of day, else ``None``."""
    if _TIME_TERM_RE.fullmatch(token):
        return Number(float(token[1:]), "time", token, f"{token[1:3]}:{token[3:]}")
    return None


def number_key(value: float) -> str:
    return "#" + (str(int(value)) if value.is_integer() else repr(round(value, 6)))


def parse_number(raw: str) -> float | None:
    """The value of a number token ("1,889", "1 889", "1 000 000,5", "3.5", "3,5"), or ``None`` when it cannot be
    read (e.g. a comma-grouped number cut mid-group by the token length cap): one unreadable token is left out,
    it never costs the sample."""
    compact = raw.replace("\u00a0", "").replace("\u202f", "").replace("\u2009", "").replace(" ", "")
    if "," in compact:
        compact = compact.replace(",", "") if _THOUSANDS_RE.fullmatch(compact) else compact.replace(",", ".", 1)
    try:
        value = float(compact)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@lru_cache(maxsize=8192)
def read_number(token: str, follower: str, percent: bool) -> Number | None:
    """A number token (at most :data:`MAX_NUMBER_CHARS` characters); ``follower`` is the casefolded scale or unit
    right after it, or "" (only the words of :data:`NUMBER_FOLLOWERS` change a number, so only they reach this
    cache). ``None`` for a token that cannot be read as a number."""
    plain = token.isdigit()
    value = float(token) if plain else parse_number(token)  # plain digits: nothing for parse_number to clean
    if value is None:
        return None
    scale = lexicon.NUMBER_SCALES.get(follower)
    if scale is not None:
        value *= scale
    unit = "%" if percent else (follower if follower in UNITS else "")
    number_kind = "year" if plain and 1000 <= value <= 2100 and not unit else (unit or "count")
    return Number(value, number_kind, number_key(value), token)


def day_or_count(number: Number, before: str, after: str) -> Number:
    """A small count next to a month name ("March 1", "1 марта") is a day of the month."""
    if number.kind == "count" and number.value <= 31 and (before in lexicon.MONTHS or after in lexicon.MONTHS):
        return number._replace(kind="day")
    return number


def is_number_word(lower: str) -> bool:
    """Whether a casefolded word is a number word read as a number ("three"; not "one", a pronoun as often)."""
    return lower in lexicon.NUMBER_WORDS and lower not in _NUMBER_WORD_EXCLUDED


def number_word(key: str, token: str) -> Number:
    value = float(lexicon.NUMBER_WORDS[key])
    return Number(value, "count", number_key(value), token)
