"""Pieces of an answer that are not claims: courtesy, remarks about the sources, hedges around a claim.

In "Great question! According to the provided documents, Jørn Utzon designed the Sydney Opera House. I hope this
helps!" only the middle states something checkable. Two kinds of pieces are set aside (``nonclaims_<lang>.json``):

- a *lead-in* opens a sentence and is taken off it; the rest of the sentence is read ("According to the
  documents, X" → "X"; "I think X" → "X": a hedge around a claim keeps the claim);
- a *closer* makes the whole sentence a non-claim ("I hope this helps, let me know if …"), unless a contrast
  ("but", "однако", "但是") brings a statement after it, which is read.

A lead-in needs punctuation after it ("Sure, …", "Thanks!"), so "Thanks to its port, the city grew" keeps its
"Thanks"; only remarks about the sources and hedges may run straight into the sentence ("I think Paris is …").
Whatever is set aside is returned with its reason, so explanations can show it; it counts in no metric. A hedge
that changes the meaning ("I doubt that X", "It is a myth that X") is in no list and stays in the claim.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

_LOOSE_REASONS = frozenset({"remark about the sources", "hedge"})
"""Lead-ins that may run straight into the sentence, without punctuation after them."""
_TIGHT_END = re.compile(r"\s*(?:[,!.:;…。、]|\s[-–—])+\s*|\s*$")
_LOOSE_END = re.compile(r"\s*(?:[,!.:;…。、]|\s[-–—])*\s*")
_MAX_LEAD_INS = 6
_ALNUM_RE = re.compile(r"[^\W_]")
_MIN_STATEMENT_WORDS = 3
_MIN_STATEMENT_HAN = 4
_MEMO_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class Skipped:
    """A piece of an answer set aside as no claim, and why (the reason is what an explanation shows)."""

    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class _Phrases:
    """One language's data: lead-ins and closers, each with its reason, longest first; the contrast words."""

    lead_ins: tuple[tuple[str, str], ...]
    closers: tuple[tuple[str, str], ...]
    any_lead_in: re.Pattern[str]
    any_closer: re.Pattern[str]
    """One pattern for all phrases of a kind: most sentences open with none, which one failed match tells."""
    contrast: re.Pattern[str]
    spaced: bool
    """Whether words are separated by spaces (a phrase must then end at a word boundary)."""


def data(lang: str) -> dict[str, Any]:
    """One language's data file, ``nonclaims_<lang>.json`` (read at import; :func:`_phrases` keeps what it needs)."""
    return dict(json.loads(resources.files(__package__).joinpath(f"nonclaims_{lang}.json").read_text(encoding="utf-8")))


def alternatives(lang: str, name: str) -> str:
    """A word list of :func:`data` as a regular-expression alternation (the words hold no special characters)."""
    return "|".join(data(lang)[name])


@cache
def _phrases(lang: str) -> _Phrases:
    raw = data(lang)

    def ordered(groups: dict[str, list[str]]) -> tuple[tuple[str, str], ...]:
        pairs = [(phrase.replace("’", "'"), reason) for reason, phrases in groups.items() for phrase in phrases]
        return tuple(sorted(pairs, key=lambda pair: len(pair[0]), reverse=True))

    words = "|".join(re.escape(word) for word in raw["contrasts"])
    spaced = lang != "zh"
    contrast = re.compile(rf"(?:[,;]\s*|\s)(?:{words})\b[\s,]*" if spaced else rf"[,;]\s*(?:{words})[\s,]*")
    lead_ins, closers = ordered(raw["lead_ins"]), ordered(raw["closers"])
    return _Phrases(lead_ins, closers, _any_of(lead_ins), _any_of(closers), contrast, spaced)


def _any_of(phrases: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(phrase) for phrase, _ in phrases))


def set_aside(sentence: str, lang: str) -> tuple[str, tuple[Skipped, ...]]:
    """``sentence`` without the pieces that are no claim, and those pieces; ``""`` when nothing is left. Memoised
    for sentences of ordinary length: the answer's reading, its claims and the noncommittal test read them all."""
    if len(sentence) <= _MEMO_CHARS:
        return _set_aside_memoised(sentence, lang)
    return _set_aside(sentence, lang)


@lru_cache(maxsize=1024)
def _set_aside_memoised(sentence: str, lang: str) -> tuple[str, tuple[Skipped, ...]]:
    return _set_aside(sentence, lang)


def _set_aside(sentence: str, lang: str) -> tuple[str, tuple[Skipped, ...]]:
    lowered = sentence.lower().replace("ё", "е")
    if len(lowered) != len(sentence):
        return sentence, ()  # a case mapping that changes length: positions would not line up, read as written
    phrases = _phrases(lang)
    skipped: list[Skipped] = []
    start = 0
    for _ in range(_MAX_LEAD_INS):
        found = _lead_in(lowered, start, phrases)
        if found is None:
            break
        end, reason = found
        skipped.append(Skipped(sentence[start:end].strip(" ,.:;!-–—"), reason))
        start = end
    closer = _closer(lowered, start, phrases)
    if closer is not None:
        statement = _statement_after_contrast(lowered, start, phrases)
        if statement is None:
            skipped.append(Skipped(sentence[start:].strip(), closer))
            return "", tuple(skipped)
        contrast_at, statement_at = statement
        skipped.append(Skipped(sentence[start:contrast_at].strip(" ,;"), closer))
        rest, more = _set_aside(sentence[statement_at:], lang)
        return rest, (*skipped, *more)
    rest = sentence[start:].strip()
    if _ALNUM_RE.search(rest) is None:
        return "", tuple(skipped)
    if skipped and phrases.spaced and rest[:1].islower():
        rest = rest[:1].upper() + rest[1:]
    return rest, tuple(skipped)


def _lead_in(lowered: str, start: int, phrases: _Phrases) -> tuple[int, str] | None:
    """Where the lead-in at ``start`` ends (with what follows it), and its reason."""
    if phrases.any_lead_in.match(lowered, start) is None:
        return None
    for phrase, reason in phrases.lead_ins:
        if not lowered.startswith(phrase, start):
            continue
        end = start + len(phrase)
        if phrases.spaced and end < len(lowered) and (lowered[end].isalnum() or lowered[end] in "-'"):
            continue  # "hi" in "history", "sure" in "surely"
        loose = reason in _LOOSE_REASONS
        separator = (_LOOSE_END if loose else _TIGHT_END).match(lowered, end)
        if separator is None or (not loose and separator.end() == end and end < len(lowered)):
            continue
        return separator.end(), reason
    return None


def _closer(lowered: str, start: int, phrases: _Phrases) -> str | None:
    if phrases.any_closer.match(lowered, start) is None:
        return None
    for phrase, reason in phrases.closers:
        if lowered.startswith(phrase, start):
            end = start + len(phrase)
            if not phrases.spaced or end >= len(lowered) or not lowered[end].isalnum():
                return reason
    return None


def _statement_after_contrast(lowered: str, start: int, phrases: _Phrases) -> tuple[int, int] | None:
    """Where the contrast word and the statement after it begin ("Hope this helps, but note that the museum is closed on
    Mondays"), or ``None`` when the closer runs to the end."""
    match = phrases.contrast.search(lowered, start)
    if match is None:
        return None
    rest = lowered[match.end() :]
    if phrases.spaced:
        long_enough = len(rest.split()) >= _MIN_STATEMENT_WORDS
    else:
        long_enough = sum(1 for char in rest if "\u4e00" <= char <= "\u9fff") >= _MIN_STATEMENT_HAN
    return (match.start(), match.end()) if long_enough else None
