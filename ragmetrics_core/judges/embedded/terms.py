"""Text → weighted content terms: the one representation every check compares.

A term is a string key: a stem (``invest``), a number (``#1889``), or a Chinese character bigram (``#`` never
starts a word key, so numbers never collide with words). Function words are dropped per language, numbers are
normalised across formats (:mod:`.numbers`), and each term gets a weight for how much evidence it carries
(:class:`.knobs.Knobs`): numbers and names weigh most, hedging verbs least.

One reader (:func:`read`) walks the text's pieces (:mod:`.reading`): a piece that is one known word, most of
them, is added in the loop itself (the judge's hottest), every other piece is read token by token.
"""

from __future__ import annotations

import re
from typing import Any

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.numbers import rewrite_ranges_and_times
from ragmetrics_core.judges.embedded.reading import SPEAKER, DigitGroups, Reading, Terms
from ragmetrics_core.judges.embedded.tokens import EDGE_PUNCTUATION, TOKEN_INFOS, WEAK, prepare

_US_RE = re.compile(r"(?<![\w.])U\.?S\.?(?![\w.])")
_ZH_DATE_UNIT_RE = re.compile(r"(?<=\d)\s*[年月日号]")
_PHRASE_RE = re.compile(
    "|".join(re.escape(phrase) for phrase in sorted(lexicon.PHRASES, key=len, reverse=True)), re.IGNORECASE
)
_PHRASE_SEARCH_RE = re.compile("|".join(re.escape(phrase) for phrase in lexicon.PHRASES))
"""Whether a casefolded text holds a phrase: one scan instead of a substring test per phrase."""
_PHRASE_CUES = tuple(
    sorted({max(re.split(r"[\s-]+", phrase), key=len) for phrase in lexicon.PHRASES if phrase.isascii()})
)
"""The longest word of every English phrase: an ASCII text holds a phrase only if it holds one of these, which a
few substring tests tell faster than the scan."""
_NAME_WEIGHT = KNOBS.name_weight
_UNSEEN: Any = object()

__all__ = ["SPEAKER", "Terms", "read", "terms"]


@text_cache(maxsize=4096, max_chars=2_000)
def terms(text: str) -> Terms:
    """Weighted content terms of ``text`` (already :func:`.tokens.prepare`-d or not: preparing twice is harmless).

    Memoised: the result is immutable and depends on ``text`` only, so the cache changes speed, never output.
    """
    text = rewrite_ranges_and_times(prepare(text))
    if "U" in text and _US_RE.search(text):
        text = _US_RE.sub("USA", text)  # "US", "U.S." are the country, not the pronoun "us"
    lowered = text.casefold()
    if _may_hold_phrase(lowered) and _PHRASE_SEARCH_RE.search(lowered):
        text = _PHRASE_RE.sub(lambda match: lexicon.PHRASES[match.group(0).casefold()], text)
    if not text.isascii() and ("年" in text or "月" in text or "日" in text or "号" in text):
        text = _ZH_DATE_UNIT_RE.sub(" ", text)
    try:
        return read(Reading(text))
    except DigitGroups:
        return read(Reading(text, by_tokens=True))


def _may_hold_phrase(lowered: str) -> bool:
    """Whether a casefolded text may hold a phrase of :data:`lexicon.PHRASES`: a non-ASCII text, or one holding a
    cue. A plain loop of substring tests: ``any()`` over a generator or a map costs more than the four tests."""
    if not lowered.isascii():
        return True
    for cue in _PHRASE_CUES:
        if cue in lowered:
            break
    else:
        return False
    return True


def read(reading: Reading) -> Terms:
    """The terms of a prepared text (its :class:`.reading.Reading`). A piece that is one known word without a rule
    of its own is added here, and a bare number read; every other piece goes to :meth:`.reading.Reading.piece`."""
    get = TOKEN_INFOS.get
    weights = reading.weights
    keep = weights.setdefault
    capitals, capital_keys, first = reading.capitals, reading.capital_keys, reading.first
    pieces = enumerate(reading.pieces)
    for at, raw in pieces:
        info = get(raw, _UNSEEN)
        if info is _UNSEEN:
            if raw.isdigit():
                reading.number(at, 0, raw, len(raw), None)
                continue
            info = get(raw.strip(EDGE_PUNCTUATION), _UNSEEN)  # "end." closing a sentence: the word alone
        if info is None:
            continue  # a plain function word, the commonest piece
        if info is _UNSEEN or (info[2] is not None and info[2][0] < WEAK):
            reading.piece(at, pieces)
            continue
        key, weight, special = info
        if special is not None and special[1]:  # capitalised: a name keeps its own stem ("Swift" is a singer)
            if special[2] is not None and (at > first or special[3]):
                key, weight = special[2], _NAME_WEIGHT
            capitals.append(at)
            capital_keys.append(key)
        if keep(key, weight) < weight:
            weights[key] = weight
    return reading.finish()
