"""The part feeder of the term reading: a text without Chinese read from its whitespace-separated parts, without
building the token list (see :mod:`.terms`)."""

from __future__ import annotations

from typing import Any

from ragmetrics_core.judges.embedded.acronyms import add_acronyms, may_form_a_name
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import MAX_NUMBER_CHARS, NUMBER_FOLLOWERS, day_or_count, read_number
from ragmetrics_core.judges.embedded.reading import CLAUSE_BREAK_RE, Reading, Terms
from ragmetrics_core.judges.embedded.tokens import (
    EDGE_PUNCTUATION,
    NEGATION,
    TOKEN_INFOS,
    WEAK,
    TokenInfo,
    known_word,
    tokens,
)

_NAME_WEIGHT = KNOBS.name_weight
_UNSEEN: Any = object()
# -------------------------------------------------------------------------------------------- part feeder

_NOTHING_WAITS, _NEGATION_WAITS, _NUMBER_WAITS = range(3)


def read_parts(text: str) -> Terms | None:
    """:func:`terms` of a text without Chinese characters from its whitespace-separated parts, or ``None`` when a
    part needs the token list. Function words and known lower-case words are added here, every other part in
    :meth:`_PartReading.part`. A part gives one token (or none, bare punctuation): its index stands for the token's."""
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


class _PartReading(Reading):
    """The part feeder's state: a negation cue or a number is settled at the next token, which decides what it
    means; offsets are worked out only inside a negation's scope."""

    __slots__ = ("capital_keys", "first", "number_before", "parts", "previous_end", "starts", "untokened", "waiting",
                 "waiting_at", "waiting_token")

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
        return self._watching()

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
            if CLAUSE_BREAK_RE.search(self.text, self.previous_end, start):
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
