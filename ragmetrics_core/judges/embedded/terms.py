"""Text → weighted content terms: the one representation every check compares.

A term is a string key: a stem (``invest``), a number (``#1889``), or a Chinese character bigram (``#`` never
starts a word key, so numbers never collide with words). Function words are dropped per language, numbers are
normalised across formats (:mod:`.numbers`), and each term gets a weight for how much evidence it carries
(:class:`.knobs.Knobs`): numbers and names weigh most, hedging verbs least.

One reading, two feeders. :class:`_Reading` holds what is read and settles numbers and words; the token feeder
(:func:`read_tokens`) reads every text from its token list, and the part feeder (:func:`read_parts`) reads a
text without Chinese from its whitespace-separated parts without building that list, adding the commonest parts
(function words, known lower-case words) inline: the judge's hottest loop, about twice as fast per sentence. It
gives up (``None``) on what only the token list reads (mixed tokens such as "CO2", "1.5", "50%", digit groups
"1 889", a name with its acronym in parentheses); ``tests/embedded/test_terms_paths.py`` checks both feeders agree.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.acronyms import add_acronyms, may_form_a_name
from ragmetrics_core.judges.embedded.chinese import add, cjk_terms, name_terms, names_speaker
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.numbers import (
    MAX_NUMBER_CHARS,
    NUMBER_FOLLOWERS,
    Number,
    day_or_count,
    number_word,
    read_number,
    rewrite_ranges_and_times,
    time_of_day,
)
from ragmetrics_core.judges.embedded.tokens import (
    EDGE_PUNCTUATION,
    HAS_CJK_RE,
    MAX_TOKEN_CHARS,
    NEGATION,
    PLAIN_WORD,
    SCALE,
    STOP,
    TOKEN_INFOS,
    WEAK,
    Token,
    TokenInfo,
    known_word,
    prepare,
    tokens,
    word_key,
)

SPEAKER = "@dialogue"
"""Term standing for the speaker or listener ("I", "you", "я", "我"): a claim about them needs a premise
that talks about them too."""
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
_CLAUSE_BREAK_RE = re.compile(r"[,;:.!?()—]")
_NOT_NEGATING_FOLLOWERS = frozenset(
    {"only", "just", "really", "sure", "quite", "bad", "least", "surprisingly", "doubt", "wonder", "matter"}
)
"""Words after a cue that make it an idiom rather than a negation: "not only", "no doubt X" and "no wonder X"
assert X, "no matter" concedes."""
_NUMBER_WEIGHT = KNOBS.number_weight
_NAME_WEIGHT = KNOBS.name_weight
_NEGATION_SCOPE = KNOBS.negation_scope
_NO_KEYS: frozenset[str] = frozenset()
"""Shared by every text without negated terms (most): one object less to allocate and for the collector to track."""
_UNSEEN: Any = object()


class Terms(NamedTuple):
    """The content of one span of text."""

    weights: dict[str, float]
    order: tuple[str, ...]
    numbers: tuple[Number, ...]
    negated: bool
    negated_keys: frozenset[str]
    """Content terms within the scope of a negation ("not [built in 1889]")."""
    proper: tuple[str, ...]
    """Capitalised content terms in order, sentence-initial ones included (for swapped-role checks)."""
    total: float
    """Sum of the weights: the claim content a premise must cover."""
    text: str
    """The text as read (prepared): relation checks (:mod:`.relations`) look at its words in order."""


@text_cache(maxsize=8192, max_chars=2_000)
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


class _Reading:
    """What has been read of one text: terms in order, numbers, negation and its scope, capitalised words."""

    __slots__ = ("capitals", "negated", "negated_keys", "numbers", "order", "scope", "text", "weights")

    def __init__(self, text: str) -> None:
        self.text = text
        self.weights: dict[str, float] = {}
        self.order: list[str] = []
        self.numbers: list[Number] = []
        self.negated = False
        self.negated_keys: set[str] = set()
        self.scope = 0
        """Content terms still to come that the last negation cue negates."""
        self.capitals: list[int] = []

    def add_content(self, key: str, weight: float) -> None:
        """A content word or a number: negated while a negation's scope lasts."""
        previous = self.weights.get(key)
        if previous is None:
            self.weights[key] = weight
            self.order.append(key)
        elif weight > previous:
            self.weights[key] = weight
        if self.scope:
            self.negated_keys.add(key)
            self.scope -= 1

    def add_number(self, number: Number) -> None:
        self.numbers.append(number)
        key = number.key
        if key not in self.weights:  # a number key only ever weighs _NUMBER_WEIGHT
            self.weights[key] = _NUMBER_WEIGHT
            self.order.append(key)
        if self.scope:
            self.negated_keys.add(key)
            self.scope -= 1

    def function_word(self, word_kind: int, key: str, token: str, after_number: bool) -> None:
        """A stop word (the speaker's pronouns add :data:`SPEAKER`), a scale word or a number word."""
        if word_kind == STOP or (word_kind == SCALE and after_number):
            if key in lexicon.DIALOGUE_PRONOUNS:
                add(self.weights, self.order, SPEAKER, _NAME_WEIGHT)
        else:  # a number word or a scale word ("three", "million"): never in a negation's scope
            number = number_word(key, token)
            self.numbers.append(number)
            add(self.weights, self.order, number.key, _NUMBER_WEIGHT)

    def negation(self, following: str) -> bool:
        """A negation cue, followed by the casefolded token ``following`` ("" at the end); whether it negates."""
        if following in _NOT_NEGATING_FOLLOWERS:
            return False
        self.negated = True
        self.scope = _NEGATION_SCOPE
        return True

    def result(self, order: tuple[str, ...], capital_keys: list[str]) -> Terms:
        weights = self.weights
        proper: tuple[str, ...]
        if len(capital_keys) == 1:  # the commonest case: only the sentence's first word
            proper = (capital_keys[0],) if capital_keys[0] else ()
        else:
            proper = tuple(dict.fromkeys(filter(None, capital_keys))) if capital_keys else ()
        negated_keys = frozenset(self.negated_keys) if self.negated_keys else _NO_KEYS
        # tuple.__new__ is what the named tuple's own constructor calls, without its Python-level frame.
        return tuple.__new__(Terms, (weights, order, tuple(self.numbers), self.negated, negated_keys, proper,
                                     sum(weights.values()), self.text))


# ------------------------------------------------------------------------------------------- token feeder


def read_tokens(text: str, matches: list[Token]) -> Terms:
    """:func:`terms` from the token list: every text, Chinese included."""
    reading = _TokenReading(text, matches)
    scope_end = 0
    for index, (kind, token, start, end) in enumerate(matches):
        if reading.scope and _CLAUSE_BREAK_RE.search(text, scope_end, start):
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


class _TokenReading(_Reading):
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


# -------------------------------------------------------------------------------------------- part feeder

_NOTHING_WAITS, _NEGATION_WAITS, _NUMBER_WAITS = range(3)


def read_parts(text: str) -> Terms | None:
    """:func:`terms` of a text without Chinese characters from its whitespace-separated parts, or ``None`` when a
    part needs the token list (see the module's docstring). Function words and known lower-case words are added
    here; every other part goes to :meth:`_PartReading.part`. Every part gives exactly one token (or none, for
    bare punctuation), so a part's index stands for its token's."""
    reading = _PartReading(text)
    get = TOKEN_INFOS.get
    weights = reading.weights
    keep = weights.setdefault
    watch = False  # a token waits for the next one, or a negation's scope is open: every part goes to part()
    capitals, capital_keys, first = reading.capitals, reading.capital_keys, reading.first
    for at, raw in enumerate(reading.parts):
        info = get(raw, _UNSEEN)
        if not watch and info is _UNSEEN and raw.isdigit():  # a number: settled at the next part
            reading.waiting, reading.waiting_at, reading.waiting_token = _NUMBER_WAITS, at, raw
            watch = True
            continue
        if not watch and info is not _UNSEEN:
            if info is None:
                continue  # a plain function word, the commonest part
            key, weight, special = info
            if special is not None:
                if special[0] < WEAK:
                    read = reading.part(at, raw, info)
                    if read is None:
                        return None
                    watch = read
                    continue
                if special[1]:  # capitalised: a name keeps its own stem ("Swift" is a singer, not "fast")
                    if special[2] is not None and (at > first or special[3]):
                        key, weight = special[2], _NAME_WEIGHT
                    capitals.append(at)
                    capital_keys.append(key)
            if keep(key, weight) < weight:
                weights[key] = weight
            continue
        read = reading.part(at, raw, info)
        if read is None:
            return None
        watch = read
    return reading.finish()


class _PartReading(_Reading):
    """The part feeder's state: a negation cue or a number is settled at the next token, which decides what it
    means; offsets are worked out only inside a negation's scope."""

    __slots__ = (
        "capital_keys",
        "first",
        "number_before",
        "parts",
        "previous_end",
        "starts",
        "untokened",
        "waiting",
        "waiting_at",
        "waiting_token",
    )

    def __init__(self, text: str) -> None:
        super().__init__(text)
        parts = self.parts = text.split()
        first = 0  # the part of the first token (text may start with bare punctuation)
        while first < len(parts) and not parts[first].strip(EDGE_PUNCTUATION):
            first += 1
        self.first = first
        self.waiting = _NOTHING_WAITS
        self.waiting_at = 0
        self.waiting_token = ""
        self.number_before = -1  # the part after a number (a scale word there multiplies it)
        self.starts: list[int] | None = None
        self.previous_end = 0
        self.untokened: list[int] = []
        self.capital_keys: list[str] = []

    def part(self, at: int, raw: str, info: TokenInfo | None) -> bool | None:
        """Read one part; whether the next must come here too, or ``None`` when the token list must decide."""
        token = raw
        is_number = False
        if info is _UNSEEN:
            if raw.isalpha():
                info = known_word(raw)
            else:
                token = raw.strip(EDGE_PUNCTUATION)
                if not token:
                    self.untokened.append(at)
                    return self._watching()
                is_number = token.isdigit()
                info = None if is_number else self._known(token)
                if info is _UNSEEN:
                    return None
        if (self.waiting != _NOTHING_WAITS or self.scope) and not self._settle(at, raw, token, is_number):
            return None
        if is_number:
            self.waiting, self.waiting_at, self.waiting_token = _NUMBER_WAITS, at, token
        elif info is not None:
            self._word(at, raw, info)
        return self.waiting != _NOTHING_WAITS or self.scope > 0

    @staticmethod
    def _known(token: str) -> Any:
        """A stripped part's word info; a known word ("end." at a sentence's end, the commonest case) at once."""
        info = TOKEN_INFOS.get(token, _UNSEEN)
        if info is _UNSEEN and token.isalpha():
            return known_word(token)
        return info

    def _watching(self) -> bool:
        return self.waiting != _NOTHING_WAITS or self.scope > 0

    def _word(self, at: int, raw: str, info: TokenInfo) -> None:
        key, weight, special = info
        if special is not None:  # not a plain lower-case content word
            word_kind, capitalised, as_name, upper_name = special
            if word_kind == NEGATION:
                # The token is the part without edge punctuation (a known word has none).
                self.waiting, self.waiting_at, self.waiting_token = _NEGATION_WAITS, at, raw.strip(EDGE_PUNCTUATION)
                return
            if word_kind < WEAK:
                self.function_word(word_kind, key, raw.strip(EDGE_PUNCTUATION), self.number_before == at)
                return
            if capitalised:
                if as_name is not None and (at > self.first or upper_name):
                    key, weight = as_name, _NAME_WEIGHT  # names keep their own stem: "Swift" is a singer
                self.capitals.append(at)
                self.capital_keys.append(key)
        self.add_content(key, weight)

    def _settle(self, at: int, raw: str, token: str, is_number: bool) -> bool:
        """Settle what waits for this token, and end a negation's scope at a clause break before it; ``False``
        when the token list must decide (digit groups)."""
        if self.waiting == _NEGATION_WAITS:
            if self.negation(token.casefold()):
                self.previous_end = self._start(self.waiting_at, self.waiting_token) + len(self.waiting_token)
        elif self.waiting == _NUMBER_WAITS:
            if is_number and len(token) == 3 and len(self.waiting_token) <= 3:
                return False  # perhaps digit groups ("1 889"): the token list joins them
            after = token.casefold()
            # A scale or unit counts when only whitespace separates it from the number.
            waited = self.parts[self.waiting_at]
            adjacent = (after in NUMBER_FOLLOWERS and at == self.waiting_at + 1
                        and waited.endswith(self.waiting_token) and raw.startswith(token))
            if not self._settle_number(after if adjacent else "", after):
                return False
            self.number_before = at
        self.waiting = _NOTHING_WAITS
        if self.scope:
            start = self._start(at, token)
            if _CLAUSE_BREAK_RE.search(self.text, self.previous_end, start):
                self.scope = 0
            self.previous_end = start + len(token)
        return True

    def _start(self, at: int, token: str) -> int:
        """The offset of ``token`` within part ``at``."""
        if self.starts is None:
            self.starts = _part_starts(self.text, self.parts)
        return self.starts[at] + self.parts[at].find(token)

    def _settle_number(self, follower: str, after: str) -> bool:
        number = read_number(self.waiting_token[:MAX_NUMBER_CHARS], follower, False)
        if number is None:
            return False  # the token list leaves the unreadable token out
        if number.kind == "count" and number.value <= 31:
            number = day_or_count(number, self._token_before(self.waiting_at), after)
        self.add_number(number)
        return True

    def _token_before(self, at: int) -> str:
        """The casefolded token before the one of part ``at`` ("" for the first token)."""
        for index in range(at - 1, self.first - 1, -1):
            core = self.parts[index].strip(EDGE_PUNCTUATION)
            if core:
                return core.casefold()
        return ""

    def finish(self) -> Terms | None:
        if self.waiting == _NEGATION_WAITS:
            self.negated = True  # nothing follows the cue
        elif self.waiting == _NUMBER_WAITS and not self._settle_number("", ""):
            return None
        capitals = self.capitals
        if len(capitals) >= 2 and may_form_a_name(self.parts, capitals):
            if "(" in self.text:
                return None  # "Life Insurance Corporation of India (LIC)": the acronym rule reads every token's key
            if self.untokened:
                capitals = [at - sum(1 for gap in self.untokened if gap < at) for at in capitals]  # part → token
            add_acronyms(self.text, tokens(self.text), None, capitals, self.weights, [])
        # Every key was added in order of appearance, and only ever reweighted after: the order is the dict's.
        return self.result(tuple(self.weights), self.capital_keys)


def _part_starts(text: str, parts: list[str]) -> list[int]:
    starts: list[int] = []
    position = 0
    for raw in parts:
        position = text.find(raw, position)
        starts.append(position)
        position += len(raw)
    return starts
