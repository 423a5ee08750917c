"""What is read of one text, whichever feeder reads it (:func:`.terms.read_tokens`, :func:`.parts.read_parts`):
terms in order, numbers, negation and its scope, capitalised words; and the :class:`Terms` it gives."""

from __future__ import annotations

import re
from typing import NamedTuple

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.chinese import add
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import Number, number_word
from ragmetrics_core.judges.embedded.tokens import SCALE, STOP

SPEAKER = "@dialogue"
"""Term standing for the speaker or listener ("I", "you", "я", "我"): a claim about them needs a premise
that talks about them too."""
CLAUSE_BREAK_RE = re.compile(r"[,;:.!?()—]")
_NOT_NEGATING_FOLLOWERS = lexicon.EN.set("not_negating_followers")
"""Words after a cue that make it an idiom rather than a negation: "not only", "no doubt X" and "no wonder X"
assert X, "no matter" concedes."""
_NUMBER_WEIGHT = KNOBS.number_weight
_NAME_WEIGHT = KNOBS.name_weight
_NEGATION_SCOPE = KNOBS.negation_scope
_NO_KEYS: frozenset[str] = frozenset()
"""Shared by every text without negated terms (most): one object less to allocate and for the collector to track."""


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


