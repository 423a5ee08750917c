"""How a text is written, language by language: each language's rules in a module of its own (:mod:`.english`,
:mod:`.russian`, :mod:`.chinese`) with the same names, its word lists in ``*_<lang>.json``; their readers
(:mod:`.nonclaims`, :mod:`.reactions`, :mod:`..claims`, :mod:`..answers`, :mod:`..relations`) are language-neutral.
"""

from __future__ import annotations

import re
from typing import Protocol

from ragmetrics_core.judges.embedded.answer_rules import chinese, english, russian


class LanguageRules(Protocol):
    """What every language module provides."""

    YES: frozenset[str]
    NO: frozenset[str]
    PERSON_PRONOUNS: frozenset[str]
    ROLE_RES: tuple[re.Pattern[str], re.Pattern[str]]
    """"X is the R" and "the R is X" (:mod:`..relations`), with the groups ``name`` and ``role``."""
    RELATION_MARK: str | None
    """The word whose last occurrence a role's relation follows; without one, the relation is the role but names."""

    def topic(self, question: str) -> str | None: ...
    def is_fragment(self, question: str, answer: str) -> bool: ...
    def fill(self, question: str, answer: str) -> str | None: ...
    def comparative(self, question: str, answer: str) -> str | None: ...
    def is_yes_no_question(self, question: str) -> bool: ...
    def statement(self, question: str, *, negated: bool) -> str | None: ...
    def names_someone(self, text: str) -> bool: ...
    def resolve_things(self, text: str, name: str) -> str: ...


class ClauseRules(Protocol):
    """What claim extraction reads of a language that writes words apart (English, Russian)."""

    CLAUSE_SPLIT_RE: re.Pattern[str]
    SPLIT_CUES: tuple[str, ...]
    PRONOUN_SUBJECTS: frozenset[str]
    POSSESSIVES: frozenset[str]

    def is_verb(self, lower: str, before: str) -> bool: ...
    def opens_clause(self, words: list[str], head: list[str]) -> bool: ...
    def starts_with_verb(self, words: list[str]) -> bool: ...
    def resolve_leading_pronoun(self, sentence: str, previous_subject: str) -> str: ...


_BY_LANGUAGE: dict[str, LanguageRules] = {"en": english, "ru": russian, "zh": chinese}


def rules(lang: str) -> LanguageRules:
    """The rule module of ``lang`` (``en``, ``ru`` or ``zh``; English for anything else)."""
    return _BY_LANGUAGE.get(lang, english)
