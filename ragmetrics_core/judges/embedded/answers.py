"""Answers read with their question, as a person would write their claims down.

:func:`read_answer` turns "Great question! Jørn Utzon." to "Who designed the Sydney Opera House?" into statements
that stand on their own: what is no claim is set aside with its reason (:mod:`.answer_rules.nonclaims`), a sentence
that only declines states nothing, a *fragment* (no verb of its own) is put into its question, and "it"/"he"/"she"
take what the question asks about (each language's rules in :mod:`.answer_rules`). Memoised per (question, answer):
the judge reads the same pair for the claims, the questions and both checks of a sample.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules import LanguageRules, english, rules
from ragmetrics_core.judges.embedded.answer_rules.chinese import HAN_RE
from ragmetrics_core.judges.embedded.answer_rules.nonclaims import Skipped, set_aside
from ragmetrics_core.judges.embedded.segment import language, sentences
from ragmetrics_core.judges.embedded.tokens import prepare

_MEMO_CHARS = 20_000
"""Pairs longer than this are read afresh each time (a cache must not keep huge texts alive)."""
_CLAUSE_BREAK = re.compile(r"[,;:，；：]|\bbut\b|\bно\b|但")
_LEADING_YES_NO = re.compile(
    r"^\s*([^\W\d_]+|是的|是|对的|对|不是|不对|没有|不)\s*(?:[,.!;:，。！；：]+\s*|$)", re.IGNORECASE
)
_NONCOMMITTAL_RE = re.compile(
    "|".join(re.escape(phrase) for phrase in sorted(lexicon.NONCOMMITTAL_PHRASES, key=len, reverse=True))
)
"""The first noncommittal phrase of a sentence, the longest where several start at one place."""
_QUESTION_TAIL = re.compile("[吗呢嘛]?[？?]*$")
_BARE_VERDICT_WORDS = 3


@dataclass(frozen=True, slots=True)
class ReadAnswer:
    """An answer read with its question."""

    text: str
    """The statements it makes, each standing on its own (``""`` when it only declines or says nothing)."""
    topic: str | None
    """What the question asks about (what "it" stands for), if the question names it."""
    skipped: tuple[Skipped, ...]
    """The pieces set aside as no claim, in order."""
    declined: bool
    """Whether a sentence declined to answer."""
    question: str | None = None
    """The question the answer was read with (the last one of the user input)."""
    completed: bool = False
    """Whether the answer was a fragment (an entity, a number, yes/no, a pick) put into :attr:`question`."""


def complete_answer(question: str, answer: str) -> str:
    """``answer`` rewritten to stand on its own given ``question`` (:attr:`ReadAnswer.text`)."""
    return read_answer(question, answer).text


def read_answer(question: str, answer: str) -> ReadAnswer:
    """``answer`` read with ``question``: its statements, the question's topic and what was set aside."""
    if len(question) + len(answer) <= _MEMO_CHARS:
        return _read_memoised(question, answer)
    return _read(question, answer)


@lru_cache(maxsize=512)
def _read_memoised(question: str, answer: str) -> ReadAnswer:
    return _read(question, answer)


def _read(question: str, answer: str) -> ReadAnswer:
    asked = _question(question)
    lang = language(asked) if asked else "en"
    local = rules(lang)
    topic = local.topic(asked) if asked else None
    if not answer or not answer.strip():
        return ReadAnswer(answer, topic, (), declined=False)
    kept: list[str] = []
    skipped: list[Skipped] = []
    declined = False
    for sentence in sentences(answer):
        rest, aside = set_aside(sentence, language(sentence))
        skipped.extend(aside)
        if not rest:
            continue
        if _declines(rest):
            declined = True
            continue
        kept.append(rest)
    text, completed = _complete(asked, kept, local, topic) if kept else ("", False)
    return ReadAnswer(text, topic, tuple(skipped), declined, asked, completed)


def _complete(asked: str | None, kept: list[str], local: LanguageRules, topic: str | None) -> tuple[str, bool]:
    """The kept sentences as statements (a fragment put into the question, pronouns resolved), and whether the
    answer was a fragment."""
    if asked is None:
        return " ".join(kept), False
    first = kept[0]
    verdict = _LEADING_YES_NO.match(first)
    said = _yes_or_no(verdict.group(1), local) if verdict is not None else None
    if verdict is not None and said is not None:
        rest = first[verdict.end() :].strip()
        if _is_bare(rest) and len(kept) == 1 and local.is_yes_no_question(asked):
            # A bare "Yes." / "No." asserts what the question asks (a longer answer says it in its own words).
            made = local.statement(asked, negated=not said)
            if made is not None:
                return made, True
        first = rest
    if len(kept) == 1:
        bare = first.strip().rstrip(".!。！")
        picked = local.comparative(asked, bare)
        if picked is not None:
            return picked, True
        if local.is_fragment(asked, bare):
            filled = local.fill(asked, bare)
            if filled is not None:
                return filled, True
    statements = [first, *kept[1:]] if first else kept[1:]
    if topic is not None:
        statements = [local.resolve_things(statement, topic) for statement in statements]
        statements[:1] = [_resolve_person(statements[0], topic, local)] if statements else []
    return " ".join(statements), False


def _is_bare(rest: str) -> bool:
    """Whether what follows a "yes"/"no" adds no statement of its own ("Yes, it is.", "Нет."), unlike "Да, Москва —
    столица России" or "不，长城在中国北方"."""
    return len(english.answer_words(rest)) < _BARE_VERDICT_WORDS and len(HAN_RE.findall(rest)) < _BARE_VERDICT_WORDS


def _resolve_person(sentence: str, topic: str, local: LanguageRules) -> str:
    """A leading "he"/"she" (он/она, 他/她) about the name the question asks about ("When was Marie Curie born?" +
    "She was born in 1867.")."""
    parts = sentence.split(maxsplit=1)
    if not parts or not local.names_someone(topic):
        return sentence
    head = parts[0].casefold().strip(",")
    if head in local.PERSON_PRONOUNS:
        return " ".join([f"{topic}'s" if head in english.POSSESSIVES else topic, *parts[1:]])
    for pronoun in local.PERSON_PRONOUNS:
        if len(pronoun) == 1 and sentence.startswith(pronoun):  # Chinese: no space after the pronoun
            return topic + sentence[1:]
    return sentence


def _declines(sentence: str) -> bool:
    """A sentence that only declines to answer: a noncommittal phrase and no statement after it ("I'm not sure,
    but it was built in 1889" and "Not sure, I do know that X" state something)."""
    lowered = prepare(sentence).casefold()
    found = _NONCOMMITTAL_RE.search(lowered)
    if found is None:
        return False
    after = _CLAUSE_BREAK.split(lowered[found.end() :], maxsplit=1)
    return len(after) < 2 or len(english.answer_words(after[1])) < 3


def _question(text: str) -> str | None:
    """The last question of the user input, without its question mark."""
    found = [sentence for sentence in sentences(text) if sentence.rstrip().endswith(("?", "？"))]
    if not found:
        return None
    return _QUESTION_TAIL.sub("", found[-1].strip()).strip()


def _yes_or_no(word: str, local: LanguageRules) -> bool | None:
    lowered = word.casefold()
    return True if lowered in local.YES else False if lowered in local.NO else None
