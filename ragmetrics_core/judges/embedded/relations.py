"""Whom a sentence speaks of: relation checks that a bag of matched words cannot make.

Roles ("X is the R") are read in English, Russian ("Канберра — столица Австралии") and Chinese
("堪培拉是澳大利亚的首都") by each language's :mod:`.answer_rules`; the relative check reads English "X's N" only.
Parses are memoised per text: a premise sentence meets many claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import takewhile
from typing import NamedTuple

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules import chinese, english, rules, russian
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.terms import Terms, terms
from ragmetrics_core.judges.embedded.tokens import word_key

_OWNED_AFTER_RE = re.compile(r"['’]s\s+([a-z]+)")


MAX_RELATION_CHARS = 2_000
"""Sentences longer than this are not read for relations: a "sentence" that long is a list or garbage (documented
cap)."""
_BACK_REFERENCE_RE = re.compile(
    "|".join(
        re.escape(word) if chinese.HAN_RE.match(word) else rf"(?<!\w){re.escape(word)}(?!\w)"
        for word in sorted(lexicon.BACK_REFERENCES, key=len, reverse=True)
    )
)
_MONTH_KEYS = frozenset(map(word_key, lexicon.MONTHS))
"""A date opening a sentence is when, not whom it speaks of ("In July 2013, …")."""
_REPORTED_RE = re.compile(
    "|".join(rf"(?<!\w){re.escape(words)}(?!\w)" for words in lexicon.EN.sequence("reporting_words")), re.IGNORECASE
)
"""A sentence that reports someone's words ("X says …", "…, X reported"): its opening name is the speaker, not what
the number is said of. English only."""


class _Identity(NamedTuple):
    name: str
    """The name as written, casefolded."""
    role: frozenset[str]
    """The role's content keys ("capital of Australia" → capital, Australia)."""
    relation: frozenset[str]
    """The role's keys other than names ("capital of Australia" → capital; after a language's
    :data:`~.answer_rules.LanguageRules.RELATION_MARK`, such as 的, only those after its last one)."""
    role_text: str


@lru_cache(maxsize=4096)
def _identities(text: str) -> tuple[_Identity, ...]:
    """Every "X is the R" and "the R is X" of a text whose name and role both carry content."""
    if len(text) > MAX_RELATION_CHARS:
        return ()
    # The language of any Han character the text holds, else of any Cyrillic letter (not a majority of letters).
    local = rules("zh" if chinese.HAN_RE.search(text) else "ru" if russian.CYRILLIC_RE.search(text) else "en")
    found: list[_Identity] = []
    for pattern in local.ROLE_RES:
        for match in pattern.finditer(text):
            name, role = match.group("name"), match.group("role")
            if not text[match.start() : match.start("role")].strip():  # "Столица Австралии — Канберра" opens with it
                role = role[:1].lower() + role[1:]
            role_keys = _content_keys(role)
            if role_keys and terms(name).total > 0:
                mark = local.RELATION_MARK
                relation = _content_keys(role.rpartition(mark)[2] if mark else role).difference(terms(role).proper)
                found.append(_Identity(name.casefold(), role_keys, relation, role.strip()))
    return tuple(found)


def _content_keys(text: str) -> frozenset[str]:
    """The keys of ``text`` that weigh (a Chinese unigram or a stopword does not)."""
    return frozenset(key for key, weight in terms(text).weights.items() if weight > 0)


@lru_cache(maxsize=4096)
def _subject(text: str) -> str | None:
    """The name a text opens with, when it carries content (not "He" or "The")."""
    match = english.NAME_RE.match(text.lstrip())
    if match is None or _OWNED_AFTER_RE.match(text.lstrip(), match.end()) is not None:
        return None  # "Walmart's stance …" speaks of the stance
    return match.group(0) if terms(match.group(0)).total > 0 else None


def _pairs(claim: Terms, units: Sequence[Terms]) -> Iterator[tuple[Terms, _Identity, _Identity]]:
    """Every "X is the R" of the claim beside every one of a sentence of ``units``, with that sentence."""
    claimed = _identities(claim.text)
    if claimed:
        for unit in units:
            for theirs in _identities(unit.text):
                for mine in claimed:
                    yield unit, mine, theirs


def role_given_to_another(claim: Terms, units: Sequence[Terms]) -> str | None:
    """The sentence of ``units`` that gives the claim's "X is the R" role to a name other than X, if any; not one
    that names the claim's subject too."""
    for unit, mine, theirs in _pairs(claim, units):
        if mine.role <= theirs.role and theirs.name not in mine.name and mine.name not in unit.text.casefold():
            return f"the premise gives '{theirs.role_text}' to {theirs.name.title()}, not {mine.name.title()}"
    return None


def another_role(claim: Terms, units: Sequence[Terms]) -> str | None:
    """A sentence of ``units`` that says the claim's "X is the R" subject X is an R' that shares none of R's relation
    words ("Sydney is the largest city in Australia" for "Sydney is the capital of Australia": only the names match)."""
    for _, mine, theirs in _pairs(claim, units):
        if theirs.name == mine.name and mine.relation and mine.relation.isdisjoint(theirs.role):
            return f"the premise says {mine.name.title()} is the {theirs.role_text}, not the {mine.role_text}"
    return None


def said_of_a_relative(claim: Terms, units: Sequence[Terms]) -> str | None:
    """The claim's subject, when a one-sentence window mentions it only as the owner of a relative the claim does
    not mention."""
    if len(units) != 1 or "'s" not in units[0].text:
        # A window pieced from several sentences may state the subject in one and the owner in another; a sentence
        # without "'s" owns nothing (prepare() makes every apostrophe "'"): most windows stop here.
        return None
    name = _subject(claim.text)
    if name is None:
        return None
    last = name.split()[-1]
    text = units[0].text
    opening = re.match(rf"\s*(?:[Tt]he\s+)?{re.escape(name)}['’]s\s+([a-z]+)", text)
    if opening is None or not _owned_only(last, text):
        return None
    owned = opening.group(1)
    # Only relatives: other owned things ("Haidara's knee injury will keep him out", "McAlister's goal") usually
    # speak of the owner too.
    if owned in lexicon.EN_RELATIVES and terms(owned).weights.keys().isdisjoint(claim.weights):
        return f"the premise says it of {name}'s {owned}, not of {name}"
    return None


def _owned_only(word: str, text: str) -> bool:
    """Whether every occurrence of ``word`` in ``text`` is an owner ("Curie's father")."""
    occurrences = re.finditer(rf"(?<![\w'’]){re.escape(word)}(?!\w)", text)
    return all(_OWNED_AFTER_RE.match(text, match.end()) is not None for match in occurrences)


def claim_subject(claim: Terms) -> tuple[str, ...]:
    """The keys of the capitalised words a claim's content opens with, its subject ("The Eiffel Tower was …" →
    eiffel, tower); empty when the claim opens otherwise ("He died in 2018", "In 2019, X …") or is Chinese."""
    opening = tuple(takewhile(claim.proper.__contains__, claim.order))
    if opening and opening[0] in _MONTH_KEYS:
        return ()  # a date opens it ("In July 2013, Marseille detectives …"), like "In 2019, …"
    return opening


def about_another_subject(subject: tuple[str, ...], claim: Terms, unit: Terms) -> bool:
    """Whether the premise sentence ``unit`` speaks of another subject than the claim whose
    :func:`claim_subject` is ``subject`` ("The Statue of Liberty was dedicated in 1886" for "The Eiffel Tower was
    completed in 1886"). Names are capitalised content words (a sentence's first word included: whether it is a name
    cannot be told from the sentence alone)."""
    if not unit.proper:
        return False
    weights = unit.weights
    if any(key in weights for key in subject):
        return False  # the sentence names the claim's subject
    claimed = claim.weights
    if any(claimed.get(key, 0.0) >= KNOBS.name_weight and key in weights for key in claim.proper):
        return False  # the sentence names someone the claim names ("… the 36-year-old passenger, Gary Terry")
    if not any(weights.get(key, 0.0) >= KNOBS.name_weight and key not in claimed for key in unit.proper):
        return False  # the sentence names nothing the claim does not
    own = claim_subject(unit)
    if not own or any(key in claimed for key in own):
        return False  # the sentence does not open with a name of its own ("In July 2013, …", "The couple married …")
    if _REPORTED_RE.search(unit.text) is not None:
        return False  # the name is whoever reports it ("Attorney Andrew Spinnell says the couple married in 2009")
    return _BACK_REFERENCE_RE.search(unit.text.casefold()) is None
