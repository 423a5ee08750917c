"""Light stemmers for English and Russian: strip one inflectional or derivational ending, then truncate.

Truncation after suffix stripping is deliberate: the checker only needs *matching* stems, and a fixed prefix
length (:class:`.knobs.Knobs`) merges word families that a pure suffix stripper misses.
"""

from __future__ import annotations

from functools import lru_cache

from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.lexicon import EN, RU

EN_SUFFIXES = tuple(sorted(EN.sequence("suffixes"), key=len, reverse=True))
RU_SUFFIXES = tuple(sorted(RU.sequence("suffixes"), key=len, reverse=True))


def _by_length(suffixes: tuple[str, ...]) -> tuple[tuple[int, frozenset[str]], ...]:
    """The suffixes grouped by length, longest first: one slice and one set lookup per length instead of an
    ``endswith`` per suffix (two suffixes of one length never both end a word, so the first match is the same)."""
    lengths = sorted({len(suffix) for suffix in suffixes}, reverse=True)
    return tuple((length, frozenset(suffix for suffix in suffixes if len(suffix) == length)) for length in lengths)


EN_GROUPS = _by_length(EN_SUFFIXES)
RU_GROUPS = _by_length(RU_SUFFIXES)
EN_MIN_STEM = 4
RU_MIN_STEM = 3
_EN_PREFIX = KNOBS.stem_prefix_en
_RU_PREFIX = KNOBS.stem_prefix_ru


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """Stem a lower-case word; Cyrillic words get the Russian rules, everything else the English ones.

    Callers pass tokens of at most ``tokens.MAX_TOKEN_CHARS`` characters, which keeps the cache small.
    """
    if len(word) <= 3:
        return word
    if is_cyrillic(word):
        return strip_ending(word, RU_GROUPS, RU_MIN_STEM)[:_RU_PREFIX]
    if not word.isascii():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("'s"):
        word = word[:-2]
    stripped = strip_ending(word, EN_GROUPS, EN_MIN_STEM)
    if len(stripped) > 6:
        stripped = strip_ending(stripped, EN_GROUPS, EN_MIN_STEM)
    if len(stripped) > 4 and stripped.endswith("e"):
        stripped = stripped[:-1]
    return stripped[:_EN_PREFIX]


def strip_ending(word: str, groups: tuple[tuple[int, frozenset[str]], ...], min_stem: int) -> str:
    """The word without its longest suffix that leaves a long enough stem ("-s" not after "s", "u" or "i")."""
    for length, suffixes in groups:
        if word[-length:] in suffixes and len(word) - length >= (min_stem if length > 1 else 3):
            if length == 1 and word[-1] == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[:-length]
    return word


def is_cyrillic(word: str) -> bool:
    first = word[0]
    return "\u0400" <= first <= "\u04ff"
