"""Russian: what a question asks about, what a fragment answer states, where a sentence splits, how roles read.

A fragment has no verb ("Лев Толстой.") and takes the place of the question word ("Кто написал «Войну и мир»?" →
"Лев Толстой написал «Войну и мир»."); a comparative pick ("Что выше, A или B?" + "A.") becomes "A выше, чем B.".
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragmetrics_core.judges.embedded.answer_rules.nonclaims import alternatives
from ragmetrics_core.judges.embedded.lexicon import RU, RU_COPULAS, RU_PRONOUN_SUBJECTS

YES, NO = RU.set("yes"), RU.set("no")
_WH_RE = re.compile(
    r"\b(?:кто|что|когда|где|куда|откуда|какой|какая|какое|какие|какого|каком|какую|сколько|чей|чья|чье|чьи)\b",
    re.IGNORECASE,
)
_VERB_RE = re.compile(
    r"^(?:[^\W\d_]{2,}(?:л|ла|ло|ли|лся|лась|лось|лись|ется|ится|ются|ятся)|является|являются|был|была|было|были|это|—|-)$"
)
"""A past or reflexive verb form (or a copula, or the dash that stands for one): a sentence, not a fragment.
Present forms in "-ет"/"-ит" are left out: too many names end so ("Египет", "Кувейт")."""
_NOT_VERBS = RU.set("answer_not_verbs")
_SHORT_FRAGMENT_WORDS = 3
_FRAGMENT_WORDS = 6
_WORD_RE = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_COMPARATIVE_RE = re.compile(
    r"^(?:что|кто|какой|какая|какое|какие|который|которая|которое)(?:\s+[^\s,:]+)?\s+(?P<quality>[^\s,:]+)\s*[,:]\s*"
    r"(?P<first>.+?),?\s+или\s+(?P<second>.+)$",
    re.IGNORECASE,
)
_QUOTED_RE = re.compile(r"«[^»]+»|\"[^\"]+\"")
_NAME_RE = re.compile(r"(?<!^)(?<![.!?]\s)\b[А-ЯЕЁ][а-яёА-ЯЁ-]+(?:\s+[А-ЯЁ][а-яё-]+)*(?:\s+[а-яё]+(?=$|\s))?")
_WHO_RE = re.compile(r"^(?:кто|чей|чья|чье|чьи)\b", re.IGNORECASE)
THING_PRONOUNS, PERSON_PRONOUNS = RU.set("thing_pronouns"), RU.set("person_pronouns")
_VERB_LI_RE = re.compile(r"^(?P<verb>\S+)\s+ли\s+(?P<subject>[А-ЯЁ][^\s,]*(?:\s+[А-ЯЁ][^\s,]*)*)\s*(?P<rest>.*)$")
_PREPOSITION_WH_RE = re.compile(
    r"\b(?P<preposition>в|на|с|до|после)\s+(?:каком|какой|какую|каких)\s+\S+", re.IGNORECASE
)
_NAME_CONNECTORS = RU.set("answer_name_connectors")
# Clause splitting (:mod:`..claims`): where a sentence splits, which words end its subject.
CLAUSE_SPLIT_RE = re.compile(
    r",\s+(?P<conj>а|но|однако|зато|причем|и|хотя)\s+|,\s+(?P<rel>который|которая|которое|которые|где)\s+",
    re.IGNORECASE,
)
SPLIT_CUES: tuple[str, ...] = (",",)
PRONOUN_SUBJECTS = RU_PRONOUN_SUBJECTS
POSSESSIVES: frozenset[str] = frozenset()
_CLAUSE_VERB_RE = re.compile(
    r"(?:л|ла|ло|ли|лся|лась|лось|лись|ет|ит|ют|ут|ат|ят|ется|ится|ются|ятся|ено|ена|ен|ан|ана|ано)$"
)
"""Verb endings where a clause may split, present ones included (unlike :data:`_VERB_RE` of the fragment test)."""
_PAST_RE = re.compile(r"[^\W\d_]{3,}(?:ли|ла|ло|лся|лась|лось|лись)$")
# Roles (:mod:`..relations`): a name of capitalised words; a role opening with a lower-case word (a common noun or
# adjective, in any case: "столица", "столицей", "крупнейший город"), so that "Столица Австралии — Канберра" is read
# role first.
CYRILLIC_RE = re.compile(r"[а-яёА-ЯЁ]")
_ROLE_NAME = r"[А-ЯЁ][а-яё-]+(?:\s+[А-ЯЁ][а-яё-]+)*"
_ROLE_COPULA = "(?:—|–|" + "|".join(RU.sequence("role_copulas")) + ")"
_ROLE = r"[^,;:.!?()\"«»—–]{1,120}?"
_ROLE_CLAUSE_START = r"(?:^|(?<=[,;:(])|(?<=\sи)|(?<=\sно)|(?<=\sа)|(?<=\sчто))\s*"
_ROLE_ADVERB = "(?:" + "|".join(RU.sequence("role_adverbs")) + ")"
_NAME_IS_ROLE_RE = re.compile(
    rf"{_ROLE_CLAUSE_START}(?P<name>{_ROLE_NAME})\s+{_ROLE_COPULA}\s+(?:{_ROLE_ADVERB}\s+)?"
    rf"(?P<role>[а-яё]{_ROLE})(?=[,;:.!?()\"«»]|$)"
)
_ROLE_IS_NAME_RE = re.compile(
    rf"{_ROLE_CLAUSE_START}(?P<role>[А-ЯЁа-яё][а-яё]+(?:\s+[А-ЯЁа-яё][а-яё-]*){{0,6}}?)\s+{_ROLE_COPULA}\s+"
    rf"(?P<name>{_ROLE_NAME})\s*(?=[,;:.!?()]|$)"
)
ROLE_RES = (_NAME_IS_ROLE_RE, _ROLE_IS_NAME_RE)
RELATION_MARK: str | None = None
DISCOURSE_MARKERS = alternatives("ru", "discourse_markers")
HEDGES = r"(?:я думаю|мне кажется|я считаю|по-моему)(?:,? что)?[\s,]+"
REACTIONS = "это (?:правда|интересно|здорово|верно)|интересно|согласен|согласна|точно|конечно"
_ASKED_VERB_RE = re.compile(r"(?:ла|ло|ли|ен|ена|ено|ены|ан|ана|ано|аны|ет|ит|ется|ится)$")
_QUESTION_WORDS = {"when": "когда", "how many": "сколько", "where": "где", "what": "что"}


def answer_words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD_RE.findall(text)]


def has_verb(answer: str) -> bool:
    return any(
        _VERB_RE.search(word) and word not in _NOT_VERBS
        for word in (part.strip(".,!?;:«»\"()") or part for part in answer.casefold().replace("ё", "е").split())
    )


def is_fragment(question: str, answer: str) -> bool:
    """An answer without a verb that can fill the question: for "кто"/"чей" a name ("Лев Толстой", not "Бананы
    богаты калием": Russian states a quality without a verb)."""
    found = answer_words(answer)
    if not found or found[0] in THING_PRONOUNS | PERSON_PRONOUNS | {"они", "это"} or has_verb(answer):
        return False
    if _WHO_RE.search(question) and not names_someone(answer.strip(" .!")):
        return False
    if len(found) <= _SHORT_FRAGMENT_WORDS:
        return True
    return len(found) <= _FRAGMENT_WORDS and set(answer_words(question)).isdisjoint(found)


def comparative(question: str, answer: str) -> str | None:
    """"Что выше, A или B?" + "A." → "A выше, чем B."."""
    match = _COMPARATIVE_RE.match(question.strip())
    if match is None or "чем" in answer_words(answer):
        return None
    first, second = match.group("first").strip(), match.group("second").strip()
    picked = answer_words(answer)
    for chosen, other in ((first, second), (second, first)):
        chosen_words = answer_words(chosen)
        if chosen_words and picked[: len(chosen_words)] == chosen_words:
            if picked[len(chosen_words) :] not in ([], answer_words(match.group("quality"))):
                return None
            return f"{chosen} {match.group('quality')}, чем {other}."
    return None


def is_yes_no_question(question: str) -> bool:
    return _WH_RE.search(question) is None


def statement(question: str, *, negated: bool) -> str | None:
    """"Является ли Москва столицей России?" → "Москва является столицей России." ("Москва не является …" for
    "нет"); a question without "ли" is read as the statement it asks about."""
    inverted = _VERB_LI_RE.match(question.strip())
    if inverted is not None:
        verb, subject, rest = inverted.group("verb"), inverted.group("subject"), inverted.group("rest")
        return f"{subject} {'не ' if negated else ''}{verb.lower()} {rest}".strip() + "."
    plain = re.sub(r"\s+ли\b", "", question, flags=re.IGNORECASE).strip()
    if not plain:
        return None
    return ("Неверно, что " + plain[:1].lower() + plain[1:] if negated else plain) + "."


def fill(question: str, answer: str) -> str | None:
    """The fragment in place of the question word; "В каком году …?" + "В 1147 году" replaces the whole
    "в каком году"."""
    asked = _PREPOSITION_WH_RE.search(question)
    opening = answer.split()[0].casefold() if answer.split() else ""
    if asked is not None and opening == asked.group("preposition").casefold():
        return (question[: asked.start()] + answer + question[asked.end() :]).strip() + "."
    if not _WH_RE.search(question):
        return None
    return _WH_RE.sub(answer, question, count=1) + "."


def topic(question: str) -> str | None:
    """A quoted title («Война и мир»), else the first run of capitalised words after the question word with the
    noun after it ("Эйфелева башня")."""
    quoted = _QUOTED_RE.search(question)
    if quoted is not None:
        return quoted.group(0)
    name = _NAME_RE.search(question.strip())
    return name.group(0).strip() if name is not None else None


def names_someone(text: str) -> bool:
    parts = [part for part in text.split() if part not in _NAME_CONNECTORS]
    return bool(parts) and all(part[:1].isupper() or part[:1] in "«\"" for part in parts)


def resolve_things(text: str, name: str) -> str:
    """A sentence that opens with "Оно", or with "Его"/"Её" before its verb ("Его опубликовали в 1869 году"),
    about ``name``; a possessive "его" ("его жена") is left alone."""
    parts = text.split(maxsplit=2)
    if not parts:
        return text
    first = parts[0].casefold().replace("ё", "е")
    if first == "оно" or (first in {"его", "ее"} and len(parts) > 1 and has_verb(parts[1])):
        return " ".join([name, *parts[1:]])
    return text


def resolve_leading_pronoun(sentence: str, previous_subject: str) -> str:
    """A sentence that opens with он/она/оно/они about the previous sentence's subject."""
    words = sentence.split(maxsplit=1)
    if len(words) == 2 and words[0].casefold() in {"он", "она", "оно", "они"}:
        return f"{previous_subject} {words[1]}"
    return sentence


def is_verb(lower: str, before: str) -> bool:
    return lower in RU_COPULAS or lower == "—" or (bool(before) and _CLAUSE_VERB_RE.search(lower) is not None)


def opens_clause(words: list[str], head: list[str]) -> bool:
    return head[0] in PRONOUN_SUBJECTS or any(
        _CLAUSE_VERB_RE.search(word) or word in RU_COPULAS or word == "—" for word in head
    )


def starts_with_verb(words: list[str]) -> bool:
    if len(words) > 1 and _PAST_RE.search(words[1].casefold()):
        return False  # "роман опубликовали …": a noun in "-ан" with its own verb after it is the subject
    first = words[0].casefold()
    return bool(_CLAUSE_VERB_RE.search(first)) or first in RU_COPULAS


def ask(words: list[str], kind: Callable[[list[str]], str]) -> str:
    """The question a claim answers, its answer slot removed ("Эйфелева башня была построена в 1889 году" →
    "Когда была построена Эйфелева башня?")."""
    for index, word in enumerate(words[:12]):
        lower = word.casefold()
        if index > 0 and (lower in RU_COPULAS or _ASKED_VERB_RE.search(lower)):
            subject = " ".join(words[:index])
            rest = words[index + 1 :]
            if rest and _ASKED_VERB_RE.search(rest[0].casefold()):
                return f"{_QUESTION_WORDS[kind(rest[1:])].capitalize()} {lower} {rest[0]} {subject}?"
            return f"{_QUESTION_WORDS[kind(rest)].capitalize()} {lower} {subject}?"
    return "Что известно о том, что " + " ".join(words) + "?"
