"""Turn a piece of text into weighted content terms: the one representation every check compares.

A term is a string key: a stem (``invest``), a number (``#1889``), or a Chinese character bigram (``#`` never
starts a word key, so numbers never collide with words). Function words are dropped per language, numbers are
normalised across formats ("1,889", "1 889", "1889-го", "1889 году", "1889年" → ``#1889``), and each term gets
a weight for how much evidence it carries: numbers and names weigh most, hedging verbs least.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.stem import stem

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LETTER = rf"[^\W\d_{_CJK}]"
_TOKEN_RE = re.compile(
    rf"(?P<mixed>\d*{_LETTER}+\d[^\W_{_CJK}]*)"
    r"|(?P<num>\d{1,3}(?:(?:,|[\u00a0\u202f\u2009 ])\d{3})+(?:\.\d+)?(?!\d)|\d+(?:[.,]\d+)?)"
    rf"|(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>[^\W\d_{_CJK}]+(?:['\-][^\W\d_{_CJK}]+)*)"
)
_THOUSANDS_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_ZH_DATE_UNIT_RE = re.compile(r"(?<=\d)\s*[年月日号]")
_PHRASE_RE = re.compile(
    "|".join(re.escape(phrase) for phrase in sorted(lexicon.PHRASES, key=len, reverse=True)), re.IGNORECASE
)
_ZH_STOPWORD_RE = re.compile("|".join(sorted(lexicon.ZH_STOPWORDS, key=len, reverse=True)))
_ZH_SYNONYMS = {
    word: group[0]
    for group in lexicon.SYNONYM_GROUPS
    for word in group
    if all("\u4e00" <= char <= "\u9fff" for char in word)
}
_ZH_SYNONYM_RE = re.compile("|".join(sorted(_ZH_SYNONYMS, key=len, reverse=True)))

NUMBER_WEIGHT = 3.0
NAME_WEIGHT = 2.0
WORD_WEIGHT = 1.0
LONG_WORD_WEIGHT = 1.3
WEAK_WEIGHT = 0.4
ZH_BIGRAM_WEIGHT = 1.0
ZH_UNIGRAM_WEIGHT = 0.5
_LONG_WORD = 9
_ZH_NAME_TAIL = 10
_SPAN_CONNECTORS = frozenset({"of", "the", "and", "for", "de", "du", "la", "von", "van", "&"})
_NUMBER_WORD_EXCLUDED = frozenset({"one", "один", "одна", "одно"})
_UNITS = frozenset(
    "% percent per cent km kilometers kilometres miles mile m meters metres cm mm kg kilograms g grams t tons "
    "tonnes lb pounds ft feet inches $ usd eur dollars euros rubles км м см мм кг г т тонн процентов процента "
    "рублей долларов 公里 米 公斤 吨 元 美元".split()
)


def _canonical_forms() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in lexicon.SYNONYM_GROUPS:
        canonical = _word_key(group[0])
        for word in group:
            mapping[_word_key(word)] = canonical
    return mapping


def _word_key(word: str) -> str:
    return stem(word.casefold().replace("ё", "е"))


_CANONICAL = _canonical_forms()


@dataclass(frozen=True, slots=True)
class Number:
    """A number found in text; ``kind`` separates years from other quantities for contradiction checks."""

    value: float
    kind: str
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Terms:
    """The content of one span of text."""

    weights: dict[str, float]
    order: tuple[str, ...]
    names: frozenset[str]
    numbers: tuple[Number, ...]
    negated: bool

    @property
    def total(self) -> float:
        return sum(self.weights.values())


def prepare(text: str) -> str:
    """Unicode and spelling normalisation shared by segmentation and term extraction."""
    text = unicodedata.normalize("NFKC", text)
    if "ё" in text or "Ё" in text:
        text = text.replace("ё", "е").replace("Ё", "Е")
    if "’" in text or "`" in text:
        text = text.replace("’", "'").replace("`", "'")
    return text


def word_key(word: str) -> str:
    """The term key of one word (stemmed, synonyms merged)."""
    key = _word_key(word)
    return _CANONICAL.get(key, key)


def number_key(value: float) -> str:
    return "#" + (str(int(value)) if value.is_integer() else repr(round(value, 6)))


def parse_number(raw: str) -> float:
    compact = raw.replace("\u00a0", "").replace("\u202f", "").replace("\u2009", "").replace(" ", "")
    if "," in compact:
        compact = compact.replace(",", "") if _THOUSANDS_RE.fullmatch(compact) else compact.replace(",", ".")
    return float(compact)


def terms(text: str) -> Terms:
    """Weighted content terms of ``text`` (already :func:`prepare`-d or not: preparing twice is harmless)."""
    text = prepare(text)
    text = _PHRASE_RE.sub(lambda match: lexicon.PHRASES[match.group(0).casefold()], text)
    if "年" in text or "月" in text or "日" in text or "号" in text:
        text = _ZH_DATE_UNIT_RE.sub(" ", text)
    weights: dict[str, float] = {}
    order: list[str] = []
    names: set[str] = set()
    numbers: list[Number] = []
    negated = False
    matches = list(_TOKEN_RE.finditer(text))
    keys_at: list[str | None] = [None] * len(matches)
    aliased: list[str] = []
    for index, match in enumerate(matches):
        kind = match.lastgroup
        token = match.group(0)
        if kind == "num":
            value = parse_number(token)
            follower = ""
            if index + 1 < len(matches) and not text[match.end() : matches[index + 1].start()].strip():
                follower = matches[index + 1].group(0).casefold()
            scale = lexicon.NUMBER_SCALES.get(follower)
            if scale is not None:
                value *= scale
            unit = "%" if text[match.end() : match.end() + 1] == "%" else (follower if follower in _UNITS else "")
            raw_int = token.isdigit()
            number_kind = "year" if raw_int and 1000 <= value <= 2100 and not unit else (unit or "count")
            key = number_key(value)
            numbers.append(Number(value=value, kind=number_kind, key=key, text=token))
            _add(weights, order, key, NUMBER_WEIGHT)
        elif kind == "mixed":
            _add(weights, order, word_key(token.casefold()), NAME_WEIGHT)
        elif kind == "cjk":
            negated = _cjk_terms(token, weights, order) or negated
            follower_match = matches[index + 1] if index + 1 < len(matches) else None
            if (
                follower_match is not None
                and text[match.end() : follower_match.start()].strip() == "("
                and follower_match.group(0).isupper()
                and follower_match.lastgroup == "word"
            ):
                aliased.append(token)
        else:
            lower = token.casefold()
            if lower in lexicon.NEGATIONS_EN or lower in lexicon.NEGATIONS_RU or lower.endswith("n't"):
                negated = True
                continue
            if lower in lexicon.NUMBER_SCALES and index > 0 and matches[index - 1].lastgroup == "num":
                continue
            if lower in lexicon.NUMBER_WORDS and lower not in _NUMBER_WORD_EXCLUDED:
                value = float(lexicon.NUMBER_WORDS[lower])
                key = number_key(value)
                numbers.append(Number(value=value, kind="count", key=key, text=token))
                _add(weights, order, key, NUMBER_WEIGHT)
                continue
            if lower in lexicon.EN_STOPWORDS or lower in lexicon.RU_STOPWORDS or lower in lexicon.NUMBER_SCALES:
                continue
            if len(lower) == 1 and not token.isupper():
                continue
            key = word_key(lower)
            if lower in lexicon.EN_WEAK or lower in lexicon.RU_WEAK:
                weight = WEAK_WEIGHT
            elif _is_name(token, index):
                weight = NAME_WEIGHT
                names.add(key)
            elif len(lower) >= _LONG_WORD:
                weight = LONG_WORD_WEIGHT
            else:
                weight = WORD_WEIGHT
            keys_at[index] = key
            _add(weights, order, key, weight)
    if len(matches) > 2:
        _add_acronyms(text, matches, keys_at, weights, order)
    for name in aliased:
        # "印度人寿保险公司(LIC)": the acronym carries the name's weight, as for Latin-script names.
        name_weights: dict[str, float] = {}
        _cjk_terms(name[-_ZH_NAME_TAIL:], name_weights, [])
        for key in name_weights:
            weights[key] = 0.0
    return Terms(weights=weights, order=tuple(order), names=frozenset(names), numbers=tuple(numbers),
                 negated=negated)


def _add_acronyms(
    text: str, matches: list[re.Match[str]], keys_at: list[str | None], weights: dict[str, float], order: list[str]
) -> None:
    """Let "LIC" and "Life Insurance Corporation" match each other.

    Every capitalised span of two or more words also yields its initials (weight 0: they help a premise
    match, they never make a claim harder to cover). A span followed by its own acronym in parentheses,
    "Life Insurance Corporation of India (LIC)", hands its weight to the acronym, so a premise that only
    says "LIC" still covers the claim.
    """
    index = 0
    while index < len(matches):
        span: list[int] = []
        probe = index
        while probe < len(matches):
            token = matches[probe].group(0)
            if probe > index and text[matches[probe - 1].end() : matches[probe].start()].strip():
                break
            if matches[probe].lastgroup == "word" and token[:1].isupper() and keys_at[probe] is not None:
                span.append(probe)
            elif not (span and token.casefold() in _SPAN_CONNECTORS):
                break
            probe += 1
        if len(span) < 2:
            index = max(probe, index + 1)
            continue
        initials = "".join(matches[position].group(0)[0].casefold() for position in span)
        for length in range(3 if len(initials) > 2 else 2, len(initials) + 1):
            _add(weights, order, initials[:length], 0.0)
        follower = matches[probe] if probe < len(matches) else None
        if (
            follower is not None
            and "(" in text[matches[span[-1]].end() : follower.start()]
            and follower.group(0).isupper()
            and len(follower.group(0)) >= 2
            and initials.startswith(follower.group(0).casefold())
        ):
            acronym = word_key(follower.group(0).casefold())
            elsewhere = {key for position, key in enumerate(keys_at) if key and position not in span}
            for position in span:
                key = keys_at[position]
                if key and key not in elsewhere and key != acronym:
                    weights[key] = 0.0
        index = probe


def _is_name(token: str, index: int) -> bool:
    if len(token) >= 2 and token.isupper():
        return True
    return index > 0 and token[0].isupper()


def _add(weights: dict[str, float], order: list[str], key: str, weight: float) -> None:
    previous = weights.get(key)
    if previous is None:
        weights[key] = weight
        order.append(key)
    elif weight > previous:
        weights[key] = weight


def _cjk_terms(run: str, weights: dict[str, float], order: list[str]) -> bool:
    """Add character bigrams (unigrams for lone content characters); return whether the run negates."""
    negated = _zh_negated(run)
    run = _ZH_SYNONYM_RE.sub(lambda match: _ZH_SYNONYMS[match.group(0)], run)
    run = _ZH_STOPWORD_RE.sub("|", run)
    segment: list[str] = []
    for char in run + "|":
        if char == "|" or char in lexicon.ZH_STOP_CHARS or char in lexicon.NEGATIONS_ZH:
            _segment_terms(segment, weights, order)
            segment = []
        else:
            segment.append(char)
    return negated


def _segment_terms(segment: list[str], weights: dict[str, float], order: list[str]) -> None:
    if len(segment) == 1:
        _add(weights, order, segment[0], ZH_UNIGRAM_WEIGHT)
        return
    for char in segment:
        # Weightless unigrams let a bigram split by other characters in the premise earn part credit.
        _add(weights, order, char, 0.0)
    for first, second in zip(segment, segment[1:], strict=False):
        bigram = first + second
        _add(weights, order, bigram, WEAK_WEIGHT if bigram in lexicon.ZH_WEAK else ZH_BIGRAM_WEIGHT)


def _zh_negated(run: str) -> bool:
    if not any(char in run for char in lexicon.NEGATIONS_ZH):
        return False
    for friend in lexicon.ZH_NEGATION_FALSE_FRIENDS:
        run = run.replace(friend, "")
    return any(char in run for char in lexicon.NEGATIONS_ZH)
