"""Word lists the embedded judge reads: stopwords, abbreviations, negations, synonyms, hedges, question words.

The lists are data, one file per language (``lexicon_en.json``, ``lexicon_ru.json``, ``lexicon_zh.json``), read once at
import and frozen: :data:`EN`, :data:`RU` and :data:`ZH` give one language's lists, and the names below the lists the
judge reads, several languages merged where a rule reads them all. Everything is lower-case (``casefold``) and ``ё`` is
written ``е``, matching :func:`.tokens.prepare` (the Russian answer rules, which read answers as written, list "её"
beside "ее"). The lists are small on purpose: the function words of each language and the handful of paraphrases a
purely lexical checker would otherwise count as missing content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import Any


class Words:
    """One language's word lists (its data file), read-only."""

    def __init__(self, lang: str) -> None:
        text = resources.files(__package__).joinpath(f"lexicon_{lang}.json").read_text(encoding="utf-8")
        self._lists: dict[str, Any] = json.loads(text)

    def set(self, name: str) -> frozenset[str]:
        return frozenset(self._lists[name])  # a list the file lacks is a KeyError at import, never an empty list

    def sequence(self, name: str) -> tuple[Any, ...]:
        """A list whose order matters (longest-first scans, replacements made in turn)."""
        return tuple(self._lists[name])

    def table(self, name: str) -> Mapping[str, Any]:
        return MappingProxyType(self._lists[name])

    def has(self, name: str) -> bool:
        return name in self._lists


EN, RU, ZH = Words("en"), Words("ru"), Words("zh")
_ALL = (EN, RU, ZH)


def _every_set(name: str) -> frozenset[str]:
    """The list of every language that has one (a list need not exist in every language)."""
    return frozenset().union(*(language.set(name) for language in _ALL if language.has(name)))


def _every_sequence(name: str) -> tuple[Any, ...]:
    return tuple(item for language in _ALL if language.has(name) for item in language.sequence(name))


def _every_table(name: str) -> Mapping[str, Any]:
    return MappingProxyType(
        {key: value for language in _ALL if language.has(name) for key, value in language.table(name).items()}
    )


EN_STOPWORDS = EN.set("stopwords")
RU_STOPWORDS = RU.set("stopwords")
ZH_STOPWORDS = ZH.set("stopwords")
ZH_STOP_CHARS = ZH.set("stop_chars")
"""Chinese function characters, removed before character n-grams are built."""
DIALOGUE_PRONOUNS = _every_set("dialogue_pronouns")
"""Pronouns of the dialogue ("I", "you"): a claim about the speaker or the listener needs a premise about them."""
OPINION_WORDS = _every_set("opinion_words")
"""Evaluative words: an opinion the premise does not state is not attributable, so they weigh like names."""
EN_WEAK, RU_WEAK, ZH_WEAK = EN.set("weak_words"), RU.set("weak_words"), ZH.set("weak_words")
"""Words that carry little evidential weight in a claim ("include", "usually", "闻名") but are not function words."""
EN_RELATIVES = EN.set("relatives")
"""People a name stands beside without being them ("Curie's father" is not Curie; see relations.py)."""
EN_PERSON_NOUNS = EN_RELATIVES | EN.set("person_nouns")
"""Nouns for a person: "He" after "Curie's father was …" is the father, after "Morris's car was …" it is Morris."""
OPENERS = _every_set("openers")
"""Words that open a phrase set off by a comma before the subject ("However, …", "In 1889, …"): connectives,
sentence adverbs and prepositions, never the subject."""

NEGATIONS_EN, NEGATIONS_RU = EN.set("negations"), RU.set("negations")
NEGATIONS_ZH: tuple[str, ...] = ZH.sequence("negation_chars")
ZH_NEGATION_FALSE_FRIENDS = ZH.sequence("negation_false_friends")
"""Chinese words that contain a negation character but do not negate (removed in this order)."""

ABBREVIATIONS = _every_set("abbreviations")
"""Period-terminated tokens that do not end a sentence (lower-case, without the final period)."""
SENTENCE_FINAL_ABBREVIATIONS = _every_set("sentence_final_abbreviations")
"""Abbreviations that usually close a sentence when an upper-case word follows ("… and so on, etc. Then")."""

NUMBER_WORDS: Mapping[str, int] = _every_table("number_words")
"""Ordinals match their digits ("third" = "3rd"), but not "first"/"second", as often adverbs or a unit."""
NUMBER_SCALES: Mapping[str, int] = _every_table("number_scales")
"""Multipliers written after a number: "5 million", "3 млн", "2 тыс.", "3万"."""
MONTHS: Mapping[str, int] = _every_table("months")

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = tuple(tuple(group) for group in _every_sequence("synonym_groups"))
"""Groups of interchangeable words (first word is the canonical form), matched after stemming, so one inflected
form per word is enough. Kept to paraphrases a retrieval answer routinely makes ("swift" is not "fast": far more
often a name, Taylor Swift, than speed)."""
PHRASES: Mapping[str, str] = _every_table("phrases")
"""Multi-word names rewritten to one token before tokenising, so both spellings match."""
NONCOMMITTAL_PHRASES: tuple[str, ...] = _every_sequence("noncommittal_phrases")
"""Phrases by which a response declines to answer (checked on normalised text)."""
QUESTION_WORDS: Mapping[str, str] = _every_table("question_words")
"""Question words, read as one feature each so "where …?" and "what …?" questions differ."""
PLACE_PREPOSITIONS = _every_set("place_prepositions")
"""Prepositions that introduce a place (for "where" questions)."""

EN_CLAUSE_VERBS = EN.set("clause_verbs")
"""Past-tense and present verbs that open a second predicate after "and" ("… has a generator and fights …")."""
EN_AUXILIARIES = EN.set("auxiliaries")
RU_COPULAS = RU.set("copulas")
EN_PRONOUN_SUBJECTS, RU_PRONOUN_SUBJECTS = EN.set("pronoun_subjects"), RU.set("pronoun_subjects")
BACK_REFERENCES = EN_PRONOUN_SUBJECTS | RU_PRONOUN_SUBJECTS | _every_set("back_references")
"""Words that point back to a subject named before ("Queen Elizabeth II opened it in 1973"): a sentence holding one
may speak of the claim's subject whatever else it names."""
EN_PARTICIPLE_OPENERS = EN.set("participle_openers")
"""Past participles that open a clause about the sentence subject: "X, known for Y" → "X is known for Y"."""
ZH_ENTITY_SUFFIXES = ZH.sequence("entity_suffixes")
"""Chinese suffixes that end an organisation or place name."""
