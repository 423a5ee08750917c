"""Text → weighted content terms: the one representation every check compares.

A term is a string key: a stem (``invest``), a number (``#1889``), or a Chinese character bigram (``#`` never
starts a word key, so numbers never collide with words). Function words are dropped per language, numbers are
normalised across formats (:mod:`.numbers`), and each term gets a weight for how much evidence it carries
(:class:`.knobs.Knobs`): numbers and names weigh most, hedging verbs least.

One reading, two feeders. :class:`.reading.Reading` holds what is read and settles numbers and words; the token feeder
(:func:`read_tokens`) reads every text from its token list, and the part feeder (:func:`.parts.read_parts`) reads a
text without Chinese from its whitespace-separated parts without building that list, adding the commonest parts
(function words, known lower-case words) inline: the judge's hottest loop, about twice as fast per sentence. It
gives up (``None``) on what only the token list reads (mixed tokens such as "CO2", "1.5", "50%", digit groups
"1 889", a name with its acronym in parentheses); ``tests/embedded/test_terms_paths.py`` checks both feeders agree.
"""

from __future__ import annotations

import re

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.acronyms import add_acronyms
from ragmetrics_core.judges.embedded.chinese import add, cjk_terms, name_terms, names_speaker
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.numbers import (
    MAX_NUMBER_CHARS,
    NUMBER_FOLLOWERS,
    day_or_count,
    read_number,
    rewrite_ranges_and_times,
    time_of_day,
)
from ragmetrics_core.judges.embedded.parts import read_parts
from ragmetrics_core.judges.embedded.reading import CLAUSE_BREAK_RE, SPEAKER, Reading, Terms
from ragmetrics_core.judges.embedded.tokens import (
    HAS_CJK_RE,
    MAX_TOKEN_CHARS,
    NEGATION,
    PLAIN_WORD,
    WEAK,
    Token,
    known_word,
    prepare,
    tokens,
    word_key,
)

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
_NUMBER_WEIGHT = KNOBS.number_weight
_NAME_WEIGHT = KNOBS.name_weight

__all__ = ["SPEAKER", "Terms", "read_parts", "read_tokens", "terms"]


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
    if not text.isascii():
        if "年" in text or "月" in text or "日" in text or "号" in text:
            text = _ZH_DATE_UNIT_RE.sub(" ", text)
        if HAS_CJK_RE.search(text):
            return read_tokens(text, tokens(text))
    return read_parts(text) or read_tokens(text, tokens(text))


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


# ------------------------------------------------------------------------------------------- token feeder


def read_tokens(text: str, matches: list[Token]) -> Terms:
    """:func:`terms` from the token list: every text, Chinese included."""
    reading = _TokenReading(text, matches)
    scope_end = 0
    for index, (kind, token, start, end) in enumerate(matches):
        if reading.scope and CLAUSE_BREAK_RE.search(text, scope_end, start):
            reading.scope = 0
        if kind == "word":
            reading.word(index, token)
        elif kind == "num":
            reading.number(index, token, end)
        elif kind == "mixed":
            reading.mixed(token)
        else:
            reading.chinese(index, token, end)
        scope_end = end
    return reading.finish()


class _TokenReading(Reading):
    __slots__ = ("aliased", "keys_at", "matches")

    def __init__(self, text: str, matches: list[Token]) -> None:
        super().__init__(text)
        self.matches = matches
        self.keys_at: list[str | None] = [None] * len(matches)
        """Every token's key, for the acronym rule."""
        self.aliased: list[str] = []
        """Chinese names followed by their Latin acronym in parentheses."""

    def _next(self, index: int) -> Token | None:
        return self.matches[index + 1] if index + 1 < len(self.matches) else None

    def word(self, index: int, token: str) -> None:
        info = known_word(token)
        if info is None:  # a plain function word, the commonest token
            return
        key, weight, special = info
        word_kind, capitalised, as_name, upper_name = PLAIN_WORD if special is None else special
        if word_kind >= WEAK:
            if capitalised:
                self.capitals.append(index)
                if as_name is not None and (index > 0 or upper_name):
                    key, weight = as_name, _NAME_WEIGHT  # names keep their own stem: "Swift" is a singer
            self.keys_at[index] = key
            self.add_content(key, weight)
        elif word_kind == NEGATION:
            following = self._next(index)
            self.negation(following[1].casefold() if following is not None else "")
        else:
            after_number = index > 0 and self.matches[index - 1][0] == "num"
            self.function_word(word_kind, key, token, after_number)

    def number(self, index: int, token: str, end: int) -> None:
        follower = after = ""
        following = self._next(index)
        if following is not None:
            after = following[1].casefold()
            if following[2] == end or not self.text[end : following[2]].strip():
                follower = after
        number = read_number(token[:MAX_NUMBER_CHARS], follower if follower in NUMBER_FOLLOWERS else "",
                             self.text[end : end + 1] == "%")
        if number is None:
            return  # unreadable as a number: this one token is left out
        if number.kind == "count" and number.value <= 31:
            number = day_or_count(number, self.matches[index - 1][1].casefold() if index > 0 else "", after)
        self.add_number(number)

    def mixed(self, token: str) -> None:
        number = time_of_day(token)  # a time of day, written so by rewrite_ranges_and_times
        if number is not None:
            self.numbers.append(number)
            add(self.weights, self.order, number.key, _NUMBER_WEIGHT)
        else:
            add(self.weights, self.order, word_key(token[:MAX_TOKEN_CHARS].casefold()), _NAME_WEIGHT)

    def chinese(self, index: int, token: str, end: int) -> None:
        if names_speaker(token):
            add(self.weights, self.order, SPEAKER, _NAME_WEIGHT)
        self.negated = cjk_terms(token, self.weights, self.order, self.negated_keys) or self.negated
        following = self._next(index)
        if (
            following is not None
            and self.text[end : following[2]].strip() == "("
            and following[1].isupper()
            and following[0] == "word"
        ):
            self.aliased.append(token)

    def finish(self) -> Terms:
        keys_at = self.keys_at
        if len(self.capitals) >= 2:
            add_acronyms(self.text, self.matches, keys_at, self.capitals, self.weights, self.order)
        for name in self.aliased:
            # "印度人寿保险公司(LIC)": the acronym carries the name's weight, as for Latin-script names.
            for key in name_terms(name):
                self.weights[key] = 0.0
        capital_keys = [key for key in (keys_at[position] for position in self.capitals) if key]
        return self.result(tuple(self.order), capital_keys)


