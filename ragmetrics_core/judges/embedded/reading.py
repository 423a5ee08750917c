"""The term reading of one text, piece by piece (see :func:`.terms.read`), and the :class:`Terms` it gives.

A piece is a whitespace-separated part of the text, or, when the parts cannot be read alone (Chinese, digit
groups across a space such as "1 889"), a token of :data:`.tokens.TOKEN_RE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.acronyms import add_acronyms, may_form_a_name
from ragmetrics_core.judges.embedded.chinese import add, cjk_terms, name_terms, names_speaker
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import (
    MAX_NUMBER_CHARS,
    NUMBER_FOLLOWERS,
    Number,
    day_or_count,
    number_word,
    read_number,
    time_of_day,
)
from ragmetrics_core.judges.embedded.tokens import (
    HAS_CJK_RE,
    MAX_TOKEN_CHARS,
    NEGATION,
    SCALE,
    SPACED_DIGITS_RE,
    STOP,
    WEAK,
    Token,
    known_word,
    part_tokens,
    scan_tokens,
    tokens,
    word_key,
)

SPEAKER = "@dialogue"
"""Term standing for the speaker or listener ("I", "you", "я", "我"): a claim about them needs a premise
that talks about them too."""
CLAUSE_BREAK_RE = re.compile(r"[,;:.!?()—]")
_NOT_NEGATING_FOLLOWERS = lexicon.EN.set("not_negating_followers")
"""Words after a cue that make it an idiom rather than a negation: "not only", "no doubt X" and "no wonder X"
assert X, "no matter" concedes."""
_NUMBER_WEIGHT = KNOBS.number_weight
_NAME_WEIGHT = KNOBS.name_weight
_NO_KEYS: frozenset[str] = frozenset()
"""Shared by every text without negated terms (most): one object less to allocate and for the collector to track."""


class DigitGroups(Exception):
    """The whitespace parts cannot be read alone: digit groups may form one number across a space."""


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


class Reading:
    """What has been read of one text: terms (in the order of the weights' keys), numbers, negation and its
    scope, capitalised words. Offsets are in-piece; a piece's place in the text is worked out only when a rule
    needs it (a negation's scope, a Chinese name's acronym). :meth:`piece` reads a piece token by token, looking
    at the tokens around it where a rule needs them (the unit after a number, the word after a negation cue)."""

    __slots__ = ("after_number", "aliased", "capital_keys", "capitals", "first", "matches", "negated",
                 "negated_keys", "numbers", "pieces", "previous_end", "scope", "starts", "text", "weights")

    def __init__(self, text: str, by_tokens: bool = False) -> None:
        self.text = text
        self.weights: dict[str, float] = {}
        self.numbers: list[Number] = []
        self.negated = False
        self.negated_keys: set[str] = set()
        self.scope = 0
        """Content terms still to come that the last negation cue negates."""
        self.previous_end = 0
        """Where the last token read inside a negation's scope ends (a clause break after it ends the scope)."""
        self.capitals: list[int] = []
        """The pieces of capitalised content words (a piece once per such word)."""
        self.capital_keys: list[str] = []
        self.after_number = (-1, 0)
        """The (piece, token) of a unit or scale word right after a number: a scale word there multiplied it."""
        self.aliased: list[str] = []
        """Chinese names followed by their Latin acronym in parentheses."""
        self.matches: list[Token] | None = None
        """The text's tokens when they are the pieces."""
        self.starts: list[int] | None = None
        if by_tokens or (not text.isascii() and HAS_CJK_RE.search(text)):
            self.matches = scan_tokens(text)
            self.pieces = [token for _, token, _, _ in self.matches]
            self.starts = [start for _, _, start, _ in self.matches]
            self.first = 0
        else:
            pieces = self.pieces = text.split()
            first = 0  # the piece of the first token (text may start with bare punctuation)
            while first < len(pieces) and not pieces[first].isalpha() and not part_tokens(pieces[first], 0):
                first += 1
            self.first = first

    def tokens_of(self, at: int) -> list[Token]:
        """The tokens of piece ``at``, offsets within the piece."""
        if self.matches is not None:
            return [(self.matches[at][0], self.pieces[at], 0, len(self.pieces[at]))]
        return part_tokens(self.pieces[at], 0)

    def start_of(self, at: int) -> int:
        """Where piece ``at`` starts in the text (a scope ends at a clause break, which only offsets show)."""
        if self.starts is None:
            self.starts = starts = []
            position = 0
            for raw in self.pieces:
                position = self.text.find(raw, position)
                starts.append(position)
                position += len(raw)
        return self.starts[at]

    def piece(self, at: int, rest: Iterator[tuple[int, str]]) -> None:
        """Read piece ``at`` by tokens, then the pieces after it (from ``rest``) while a negation's scope is open."""
        self._tokens(at)
        while self.scope:
            following = next(rest, None)
            if following is None:
                return
            self._tokens(following[0])

    def _tokens(self, at: int) -> None:
        found = self.tokens_of(at)
        for index, (kind, token, start, end) in enumerate(found):
            if self.scope and CLAUSE_BREAK_RE.search(self.text, self.previous_end, self.start_of(at) + start):
                self.scope = 0
            if kind == "word":
                self._word(at, index, token, found)
            elif kind == "num":
                self.number(at, index, token, end, found)
            elif kind == "mixed":
                self._mixed(token)
            else:
                self._chinese(at, token)
            if self.scope:
                self.previous_end = self.start_of(at) + end

    def _word(self, at: int, index: int, token: str, found: list[Token]) -> None:
        info = known_word(token)
        if info is None:  # a plain function word, the commonest token
            return
        key, weight, special = info
        if special is not None:
            word_kind, capitalised, as_name, upper_name = special
            if word_kind == NEGATION:
                following = self._following(at, index, found)
                self.negation(following[1].casefold() if following else "")
                return
            if word_kind < WEAK:
                self._function_word(word_kind, key, token, self.after_number == (at, index))
                return
            if capitalised:
                if as_name is not None and (at > self.first or index or upper_name):
                    key, weight = as_name, _NAME_WEIGHT  # names keep their own stem: "Swift" is a singer
                self.capitals.append(at)
                self.capital_keys.append(key)
        self.add_content(key, weight)

    def number(self, at: int, index: int, token: str, end: int, found: list[Token] | None) -> None:
        """Number token ``index`` of piece ``at`` (whose tokens are ``found``, None when the token is the piece),
        read with the tokens around it."""
        follower = after = ""
        following = self._following(at, index, found)
        if following is not None:
            _, next_token, next_at, next_index, next_start = following
            after = next_token.casefold()
            if after in NUMBER_FOLLOWERS:  # a unit or a scale counts when only whitespace separates it
                if self._adjacent(at, end, next_at, next_start):
                    follower = after
                self.after_number = (next_at, next_index)
            elif (next_token[0].isdigit() and self.matches is None and self._adjacent(at, end, next_at, next_start)
                  and SPACED_DIGITS_RE.search(self.text)):
                raise DigitGroups  # perhaps one number across the space ("1 889"): the token list joins them
        # A whole whitespace-separated part has whitespace after it, never "%".
        percent = (found is not None or self.matches is not None) and self._char_after(at, end) == "%"
        number = read_number(token[:MAX_NUMBER_CHARS], follower, percent)
        if number is None:
            return  # unreadable as a number: this one token is left out
        if number.kind == "count" and number.value <= 31:
            number = day_or_count(number, self._before(at, index), after)
        self.numbers.append(number)
        self.add_content(number.key, _NUMBER_WEIGHT)

    def _mixed(self, token: str) -> None:
        number = time_of_day(token)  # a time of day, written so by rewrite_ranges_and_times
        if number is not None:
            self.numbers.append(number)
            add(self.weights, number.key, _NUMBER_WEIGHT)
        else:
            add(self.weights, word_key(token[:MAX_TOKEN_CHARS].casefold()), _NAME_WEIGHT)

    def _chinese(self, at: int, token: str) -> None:
        if names_speaker(token):
            add(self.weights, SPEAKER, _NAME_WEIGHT)
        self.negated = cjk_terms(token, self.weights, self.negated_keys) or self.negated
        matches, following = self.matches, at + 1
        if (
            matches is not None
            and following < len(matches)
            and matches[following][0] == "word"
            and self.pieces[following].isupper()
            and self.text[self.start_of(at) + len(token) : self.start_of(following)].strip() == "("
        ):
            self.aliased.append(token)

    def _following(self, at: int, index: int, found: list[Token] | None) -> tuple[str, str, int, int, int] | None:
        """The token after token ``index`` of piece ``at`` (tokens ``found``): (kind, text, piece, index, start)."""
        if found is not None and index + 1 < len(found):
            kind, token, start, _ = found[index + 1]
            return kind, token, at, index + 1, start
        pieces = self.pieces
        for later in range(at + 1, len(pieces)):
            if self.matches is None and pieces[later].isalpha():
                return "word", pieces[later], later, 0, 0
            later_found = self.tokens_of(later)
            if later_found:
                kind, token, start, _ = later_found[0]
                return kind, token, later, 0, start
        return None

    def _before(self, at: int, index: int) -> str:
        """The casefolded token before token ``index`` of piece ``at`` ("" for the first token)."""
        if index:
            return self.tokens_of(at)[index - 1][1].casefold()
        for earlier in range(at - 1, -1, -1):
            found = self.tokens_of(earlier)
            if found:
                return found[-1][1].casefold()
        return ""

    def _adjacent(self, at: int, end: int, next_at: int, next_start: int) -> bool:
        """Whether only whitespace (or nothing) separates a token ending at ``end`` of piece ``at`` from the next."""
        if next_at == at:
            return next_start == end
        if self.matches is not None:
            return not self.text[self.start_of(at) + end : self.start_of(next_at) + next_start].strip()
        return next_at == at + 1 and end == len(self.pieces[at]) and next_start == 0

    def _char_after(self, at: int, end: int) -> str:
        after = self.pieces[at][end : end + 1]
        if after or self.matches is None:
            return after  # whitespace follows a whitespace-separated part
        start = self.start_of(at) + end
        return self.text[start : start + 1]

    def add_content(self, key: str, weight: float) -> None:
        """A content word or a number: negated while a negation's scope lasts."""
        if self.weights.setdefault(key, weight) < weight:
            self.weights[key] = weight
        if self.scope:
            self.negated_keys.add(key)
            self.scope -= 1

    def _function_word(self, word_kind: int, key: str, token: str, after_number: bool) -> None:
        """A stop word (the speaker's pronouns add :data:`SPEAKER`), a scale word or a number word."""
        if word_kind == STOP or (word_kind == SCALE and after_number):
            if key in lexicon.DIALOGUE_PRONOUNS:
                add(self.weights, SPEAKER, _NAME_WEIGHT)
        else:  # a number word or a scale word ("three", "million"): never in a negation's scope
            number = number_word(key, token)
            self.numbers.append(number)
            add(self.weights, number.key, _NUMBER_WEIGHT)

    def negation(self, following: str) -> None:
        """A negation cue, followed by the casefolded token ``following`` ("" at the end)."""
        if following not in _NOT_NEGATING_FOLLOWERS:
            self.negated = True
            self.scope = KNOBS.negation_scope

    def finish(self) -> Terms:
        weights = self.weights
        if len(self.capitals) >= 2 and may_form_a_name(self.pieces, self.capitals):
            self._acronyms()
        order = tuple(weights)  # every key was added in order of appearance, and only ever reweighted after
        for name in self.aliased:
            # "印度人寿保险公司(LIC)": the acronym carries the name's weight, as for Latin-script names.
            for key in name_terms(name):
                weights[key] = 0.0
        capital_keys = self.capital_keys
        proper: tuple[str, ...]
        if len(capital_keys) == 1:  # the commonest case: only the sentence's first word
            proper = (capital_keys[0],) if capital_keys[0] else ()
        else:
            proper = tuple(dict.fromkeys(filter(None, capital_keys))) if capital_keys else ()
        negated_keys = frozenset(self.negated_keys) if self.negated_keys else _NO_KEYS
        # tuple.__new__ is what the named tuple's own constructor calls, without its Python-level frame.
        return tuple.__new__(Terms, (weights, order, tuple(self.numbers), self.negated, negated_keys, proper,
                                     sum(weights.values()), self.text))

    def _acronyms(self) -> None:
        """Initials of capitalised names (:mod:`.acronyms`), from the text's token list."""
        matches = self.matches or tokens(self.text)
        keys_at: list[str | None] = [None] * len(matches)
        capitals: list[int] = []
        for index, (kind, token, _, _) in enumerate(matches):
            info = known_word(token) if kind == "word" else None
            if info is None or (info[2] is not None and info[2][0] < WEAK):
                continue
            key, _, special = info
            if special is not None and special[1]:
                if special[2] is not None and (index or special[3]):
                    key = special[2]
                capitals.append(index)
            keys_at[index] = key
        add_acronyms(self.text, matches, keys_at, capitals, self.weights)

