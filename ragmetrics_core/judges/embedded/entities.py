"""Entity extraction for ``context_entity_recall`` and the stem-aware lookup of entities in contexts.

Entities are names (capitalised spans, also mid-sentence; connectors such as "of" or "de" may join them),
dates (month names in English and Russian, ``1879年3月14日``), years, numbers with the unit or noun after them,
and for Chinese (:func:`.answer_rules.chinese.entities`): quoted or bracketed spans, Latin words, suffixed names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules import chinese
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.scan import matches_at, searcher
from ragmetrics_core.judges.embedded.segment import sentences
from ragmetrics_core.judges.embedded.terms import Terms, terms
from ragmetrics_core.judges.embedded.tokens import prepare

MAX_ENTITIES = 64
"""Entities kept per reference (documented cap)."""
FOUND_SHARE = KNOBS.entity_found_share
"""Share of an entity's weighted terms that one chunk must contain for the entity to count as found."""

_MONTHS = "|".join(sorted(lexicon.MONTHS, key=len, reverse=True))
DATE_RE = re.compile(
    rf"\b(?:(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{3,4}})?"
    rf"|\d{{1,2}}\s+(?:{_MONTHS})(?:\s+\d{{3,4}}(?:\s*(?:года|год|г\.))?)?"
    rf"|(?:{_MONTHS})\s+\d{{4}})\b"
    r"|\d{3,4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?)?",
    re.IGNORECASE,
)
_ASCII_MONTHS = frozenset(month for month in lexicon.MONTHS if month.isascii())
_ASCII_MONTH_NAMES = tuple(sorted(_ASCII_MONTHS))
_ASCII_WORD_RE = re.compile(r"\w+", re.ASCII)
NUMBER_UNIT_RE = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:[,\u00a0 ]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?:\s*(%|[^\W\d_]{1,20}))?"
)
_WORD_RE = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")
_CONNECTORS = lexicon.EN.set("name_connectors")
_LEADING_FUNCTION_WORDS = (lexicon.EN_STOPWORDS | lexicon.RU_STOPWORDS) - {"great", "new", "old"}


def extract_entities(text: str | None) -> list[str]:
    """Named entities, dates and quantities of ``text`` in order of appearance, without duplicates."""
    if not text or not text.strip():
        return []
    found: dict[tuple[str, ...], str] = {}
    for sentence in sentences(prepare(text)):
        for entity in _sentence_entities(sentence):
            key = tuple(sorted(terms(entity).weights))
            if key and key not in found:
                found[key] = entity
                if len(found) >= MAX_ENTITIES:
                    return list(found.values())
    return list(found.values())


def _sentence_entities(sentence: str) -> list[str]:
    spans: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for match in dates(sentence):
        spans.append((match.start(), match.group(0).strip()))
        taken.append(match.span())
    has_cjk = not sentence.isascii() and chinese.HAN_RE.search(sentence) is not None
    if has_cjk:
        for span, text in chinese.entities(sentence):
            if not _overlaps(span, taken):  # the first to claim a place keeps it
                spans.append((span[0], text))
                taken.append(span)
    else:
        spans.extend(capitalised_spans(sentence, taken))
    for match in number_units(sentence):
        if _overlaps(match.span(), taken):
            continue
        unit = match.group(2) or ""
        if unit.casefold() in lexicon.EN_STOPWORDS or unit.casefold() in lexicon.RU_STOPWORDS or has_cjk:
            unit = "" if unit != "%" else unit
        text = match.group(1) + ("%" if unit == "%" else f" {unit}" if unit else "")
        spans.append((match.start(), text))
        taken.append(match.span())
    return [text for _, text in sorted(spans)]


def number_units(sentence: str) -> list[re.Match[str]]:
    """``NUMBER_UNIT_RE``'s matches, tried only at digits (``re`` would try its opening look-behind everywhere)."""
    return matches_at(NUMBER_UNIT_RE, sentence, _next_digit)


_next_digit = searcher(re.compile(r"\d"))


def dates(sentence: str) -> list[re.Match[str]]:
    """``DATE_RE``'s matches. Each of its patterns needs a whole month word (or 年), and the long case-insensitive
    alternation tried at every position is the costliest step of entity extraction: twelve substring tests and a
    word scan rule most ASCII sentences out first."""
    if sentence.isascii():
        lowered = sentence.lower()
        if not any(map(lowered.__contains__, _ASCII_MONTH_NAMES)) or _ASCII_MONTHS.isdisjoint(
            _ASCII_WORD_RE.findall(lowered)
        ):
            return []
    return list(DATE_RE.finditer(sentence))


def capitalised_spans(sentence: str, taken: list[tuple[int, int]]) -> list[tuple[int, str]]:
    if sentence[1:].islower() and not sentence[:2].isupper():
        # No upper-case letter after the first character: only the first word can be capitalised, and alone it
        # counts only in capitals ("NASA"). Most sentences of chat and plain prose end here, before the word scan.
        return []
    return word_spans(sentence, taken)


def word_spans(sentence: str, taken: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """:func:`capitalised_spans` read off every word of the sentence."""
    words = list(_WORD_RE.finditer(sentence))
    spans: list[tuple[int, str]] = []
    index = 0
    while index < len(words):
        word = words[index]
        if not _is_capitalised(word.group(0)) or _overlaps(word.span(), taken):
            index += 1
            continue
        end = index
        probe = index + 1
        while probe < len(words) and _adjacent(sentence, words[probe - 1], words[probe], taken):
            candidate = words[probe].group(0)
            if _is_capitalised(candidate):
                end = probe
                probe += 1
            elif (
                candidate.casefold() in _CONNECTORS
                and probe + 1 < len(words)
                and _is_capitalised(words[probe + 1].group(0))
                and _adjacent(sentence, words[probe], words[probe + 1], taken)
            ):
                probe += 1
            else:
                break
        chosen = [words[position].group(0) for position in range(index, end + 1)]
        while chosen and chosen[0].casefold() in _LEADING_FUNCTION_WORDS:
            chosen.pop(0)
        sentence_initial = index == 0
        if chosen and (not sentence_initial or len(chosen) > 1 or (chosen[0].isupper() and len(chosen[0]) > 1)):
            start = words[index].start()
            text = sentence[start : words[end].end()]
            spans.append((start, text[text.find(chosen[0]) :]))
        index = end + 1
    return spans


def _adjacent(sentence: str, left: re.Match[str], right: re.Match[str], taken: list[tuple[int, int]]) -> bool:
    return not sentence[left.end() : right.start()].strip() and not _overlaps(right.span(), taken)


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper() and not word[:1].isdigit()


def _overlaps(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def entity_found(entity: Terms, chunks: Sequence[frozenset[str]]) -> bool:
    """Whether one chunk holds the entity: every number, and most of its weighted terms (stem-aware)."""
    total = entity.total
    if total <= 0:
        return False
    numbers = [number.key for number in entity.numbers]
    for keys in chunks:
        if any(number not in keys for number in numbers):
            continue
        earned = sum(weight for key, weight in entity.weights.items() if key in keys or _prefix_in(key, keys))
        if earned / total >= FOUND_SHARE:
            return True
    return False


def _prefix_in(key: str, keys: frozenset[str]) -> bool:
    if len(key) < 5 or key.startswith("#"):
        return False
    return any(len(other) >= 5 and (other.startswith(key) or key.startswith(other)) for other in keys)
