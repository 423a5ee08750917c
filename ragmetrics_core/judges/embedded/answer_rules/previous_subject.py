"""A sentence's leading pronoun read as the subject of the sentence before it (English and Russian)."""

from __future__ import annotations

import re

from ragmetrics_core.judges.embedded import lexicon

_OWNER_RE = re.compile(r"^(.+?)['’]s\s+\S")
"""The owner in a possessive subject ("Tony Morris's car" → Tony Morris)."""


def names_something(subject: str | None) -> bool:
    """Whether a sentence subject can stand for a later pronoun: a short phrase with a capitalised word."""
    return subject is not None and len(subject.split()) <= 8 and any(word[:1].isupper() for word in subject.split())


def resolve_leading_pronoun(sentence: str, previous_subject: str | None, *, ru: bool) -> str:
    """A sentence that opens with a pronoun (he/she/it/they, its/his/her/their; он/она/оно/они) about the previous
    sentence's subject; a person's pronoun about the owner of a possessive subject."""
    if previous_subject is None:
        return sentence
    words = sentence.split(maxsplit=1)
    if len(words) < 2:
        return sentence
    first = words[0].casefold()
    if ru and first in {"он", "она", "оно", "они"}:
        return f"{previous_subject} {words[1]}"
    if not ru and first in {"he", "she", "his", "her"}:
        # A person: of "Tony Morris's blue Volvo was caught …", "He says …" is Tony Morris, not the Volvo.
        owner = _OWNER_RE.match(previous_subject)
        if owner is not None and previous_subject.split()[-1].casefold() not in lexicon.EN_PERSON_NOUNS:
            previous_subject = owner.group(1)
    if not ru and first in {"it", "he", "she", "they"}:
        return f"{previous_subject} {words[1]}"
    if not ru and first in {"its", "his", "her", "their"}:
        return f"{previous_subject}'s {words[1]}"
    return sentence
