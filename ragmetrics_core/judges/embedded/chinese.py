"""Chinese terms: character bigrams of a run of Chinese characters, function characters removed, negation read.

Chinese has no spaces and the judge no word segmenter: a run is cut at function characters and words
(:data:`.lexicon.ZH_STOP_CHARS`, :data:`.lexicon.ZH_STOPWORDS`) and every two adjacent characters of a piece make
a term (a lone character, a weaker one).
"""

from __future__ import annotations

import re
from itertools import pairwise

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.knobs import KNOBS

_ZH_STOPWORD_RE = re.compile("|".join(sorted(lexicon.ZH_STOPWORDS, key=len, reverse=True)))
_SPEAKERS = ("我", "你", "您")
NAME_TAIL = 10
"""The characters of a Chinese name before its Latin acronym ("印度人寿保险公司(LIC)") that hand it their weight."""


def add(weights: dict[str, float], key: str, weight: float) -> None:
    """Add a term, or raise its weight (a term keeps the highest weight it is given)."""
    if weights.setdefault(key, weight) < weight:
        weights[key] = weight


def names_speaker(run: str) -> bool:
    """Whether a run names the speaker or the listener ("我", "你", "您")."""
    return any(speaker in run for speaker in _SPEAKERS)


def cjk_terms(run: str, weights: dict[str, float], negated_keys: set[str] | None = None) -> bool:
    """Add character bigrams (unigrams for lone content characters); return whether the run negates.

    What follows a negation character ("不", "没", "未", ...) up to the end of the run is recorded as negated.
    """
    negated = _zh_negated(run)
    if negated:
        for friend in lexicon.ZH_NEGATION_FALSE_FRIENDS:
            run = run.replace(friend, friend[0] + "\u200b" + friend[1:])
    run = _ZH_STOPWORD_RE.sub("|", run)
    segment: list[str] = []
    in_scope = False
    for char in run + "|":
        if char == "\u200b":
            continue
        if char == "|" or char in lexicon.ZH_STOP_CHARS or char in lexicon.NEGATIONS_ZH:
            added = _segment_terms(segment, weights)
            if in_scope and negated_keys is not None:
                negated_keys.update(added)
            if char in lexicon.NEGATIONS_ZH and negated:
                in_scope = True
            segment = []
        else:
            segment.append(char)
    return negated


def name_terms(name: str) -> dict[str, float]:
    """The terms of the tail of a Chinese name (see :data:`NAME_TAIL`)."""
    found: dict[str, float] = {}
    cjk_terms(name[-NAME_TAIL:], found)
    return found


def _segment_terms(segment: list[str], weights: dict[str, float]) -> list[str]:
    if not segment:
        return []
    if len(segment) == 1:
        add(weights, segment[0], KNOBS.zh_unigram_weight)
        return [segment[0]]
    for char in segment:
        # Weightless unigrams let a claim's lone content character (a one-character segment, which weighs) be
        # found inside a longer run of the premise: "外" of "…组织以外" in "政府以外的".
        add(weights, char, 0.0)
    bigrams = [first + second for first, second in pairwise(segment)]
    for bigram in bigrams:
        add(weights, bigram, KNOBS.weak_weight if bigram in lexicon.ZH_WEAK else KNOBS.zh_bigram_weight)
    return bigrams


def _zh_negated(run: str) -> bool:
    if not any(char in run for char in lexicon.NEGATIONS_ZH):
        return False
    for friend in lexicon.ZH_NEGATION_FALSE_FRIENDS:
        run = run.replace(friend, "")
    return any(char in run for char in lexicon.NEGATIONS_ZH)
