"""English: what a question asks about, what a fragment answer states, where a sentence splits, how roles read.

A fragment names only the answer (an entity, a number, a date, "yes"/"no", the pick of a comparative question) and
has no verb of its own. It is put into its question ("Who wrote War and Peace?" + "Leo Tolstoy" → "Leo Tolstoy wrote
War and Peace."; "Which is taller, the Eiffel Tower or Big Ben?" + "The Eiffel Tower." → "The Eiffel Tower is taller
than Big Ben."). A sentence with a verb is never glued to the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules.nonclaims import alternatives
from ragmetrics_core.judges.embedded.lexicon import EN

BE, DO = EN.set("answer_be"), EN.set("answer_do")
AUX = BE | DO | EN.set("answer_modals")
WH = EN.set("answer_wh")
DETERMINERS = EN.set("answer_articles")
_FUNCTION_WORDS = DETERMINERS | AUX | WH | EN.set("answer_shared_words")
"""Words a fragment may share with its question ("Between 1863 and 1869" to "When did … War and Peace?")."""
_CONNECTORS = EN.set("answer_name_connectors")
VAGUE = EN.set("answer_vague")
_NOT_A_TOPIC = VAGUE | (lexicon.EN_STOPWORDS - DETERMINERS)  # "in Dakar", "his father": nothing "it" stands for
YES, NO = EN.set("yes"), EN.set("no")
THING_PRONOUNS, PERSON_PRONOUNS = EN.set("thing_pronouns"), EN.set("person_pronouns")
_VERBS = EN.set("answer_verbs")
"""Verbs that make an answer a sentence of its own (with any longer word in "-ed" after another word)."""
_WORD_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_COMPARATIVE_RE = re.compile(
    r"^(?:which|who|what)(?: one| of (?:the|these|them)(?: two)?| \w+)?\s+(?P<verb>is|are|was|were|has|have|had)\s+"
    r"(?P<quality>[^,:]{2,40}?)\s*[,:]\s*(?P<first>.+?),?\s+or\s+(?P<second>.+)$",
    re.IGNORECASE,
)
_THAN_RE = re.compile(r"\bthan\b", re.IGNORECASE)
_SHORT_FRAGMENT_WORDS = 3
SHORT_ANSWER_WORDS = 6
"""An answer of four to this many words is a fragment only if it holds none of the question's words (a full
answer repeats them)."""
_IRREGULAR_PAST: Mapping[str, str] = EN.table("irregular_past")
_IRREGULAR_PRESENT: Mapping[str, str] = EN.table("irregular_present")
_PLACE_OR_TIME_PREPOSITIONS = EN.set("place_or_time_prepositions")
_EXPLETIVE_RE = re.compile(
    r"^(?:is|was|'s|has been|seems|seemed|appears|appeared|turns out|turned out)\b(?:\s+\S+){0,4}?\s+(?:that|to)\b"
    r"|^(?:is|was|'s)\s+(?:said|known|believed|reported|thought|estimated|possible|likely|unclear|true|not clear)\b",
    re.IGNORECASE,
)
_IT_RE = re.compile(r"\b(it|its|It|Its)\b(?!['’-])")
_OWNER_RE = re.compile(r"^(.+?)['’]s\s+\S")
"""The owner in a possessive subject ("Tony Morris's car" → Tony Morris)."""
# Clause splitting (:mod:`..claims`): where a sentence splits, which words end its subject.
PARTICIPLE_OPENERS = lexicon.EN_PARTICIPLE_OPENERS
CLAUSE_SPLIT_RE = re.compile(  # the look-ahead fails most positions at one test instead of five
    r"(?=,|\s+(?:and|but)\b)(?:,\s+(?P<conj>and|but|while|whereas|yet|so|although|though)\s+"
    r"|,\s+(?P<rel>which|who)\s+"
    r"|,\s+(?P<part>" + "|".join(sorted(PARTICIPLE_OPENERS)) + r")\s+"
    r"|\s+(?P<pron>and|but)\s+(?=(?:its|his|her|their|it|he|she|they)\s)"
    r"|\s+(?P<verb>and|but)\s+(?=(?:" + "|".join(sorted(lexicon.EN_AUXILIARIES | lexicon.EN_CLAUSE_VERBS)) + r")\s))",
    re.IGNORECASE,
)
SPLIT_CUES: tuple[str, ...] = (",", "and", "but")
"""What every split point holds (lower-cased)."""
PRONOUN_SUBJECTS = lexicon.EN_PRONOUN_SUBJECTS
POSSESSIVES = frozenset({"its", "his", "her", "their"})
SUBJECT_VERBS = lexicon.EN_AUXILIARIES | EN.set("common_verbs")
"""The verbs that end a sentence's subject."""
_STATE_PARTICIPLES = EN.set("state_participles")
"""Participles describing a lasting state ("located in"), as opposed to a past event ("founded in")."""
_CLAUSE_DETERMINERS = EN.set("determiners")
_NOT_BEFORE_A_VERB = _CLAUSE_DETERMINERS | lexicon.EN_AUXILIARIES | lexicon.EN_STOPWORDS
"""Words after which an "-ed" form is an adjective or a participle, not the verb that ends a subject."""
_PAST_RE = re.compile(r"\b(?:was|were)\b", re.IGNORECASE)
# Roles (:mod:`..relations`): "Canberra is the capital of Australia", "The capital of Australia is Canberra".
_NAME_WORD = r"[A-Z]\w*(?:['’][A-Z]\w*)?"
_NAME = rf"{_NAME_WORD}(?:\s+(?:of\s+|de\s+|von\s+|van\s+)?{_NAME_WORD})*"
NAME_RE = re.compile(rf"(?<![\w'’]){_NAME}")
_ROLE_COPULA = "(?:" + "|".join(EN.sequence("role_copulas")) + ")"
_ROLE = r"[^,;:.!?()\"“”]{1,120}?"  # bounded: a lazy role scanned to the end of the text would be quadratic
# The name opens its clause ("Kilimanjaro in Tanzania is …": not Tanzania); the look-ahead halves the time on prose.
_ROLE_CLAUSE_START = r"(?=[\sA-Zt])(?:^|(?<=[,;:(—–])|(?<=\band)|(?<=\bbut)|(?<=\bwhile)|(?<=\bthat))\s*(?:[Tt]he\s+)?"
_ROLE_ADVERB = "(?:" + "|".join(EN.sequence("role_adverbs")) + ")"
_NAME_IS_ROLE_RE = re.compile(
    rf"{_ROLE_CLAUSE_START}(?P<name>{_NAME})\s+{_ROLE_COPULA}\s+(?:{_ROLE_ADVERB}\s+)?the\s+(?P<role>{_ROLE})(?=[,;:.!?()\"“”]|$)"
)
ROLE_RES = (_NAME_IS_ROLE_RE, re.compile(rf"\b[Tt]he\s+(?P<role>{_ROLE})\s+{_ROLE_COPULA}\s+(?P<name>{_NAME})"))
RELATION_MARK: str | None = None
# Chat reactions and hedges (:mod:`.reactions`): "Yes, I think that X" asserts X, "That is so true!" nothing.
DISCOURSE_MARKERS, INTERJECTIONS = alternatives("en", "discourse_markers"), alternatives("en", "interjections")
HEDGES = r"(?:i|we) (?:think|believe|guess|know|heard|read|suppose|feel)(?: that)?[\s,]+"
REACTION_TAILS, _REACTION_WORDS = alternatives("en", "reaction_tails"), alternatives("en", "reaction_words")
REACTIONS = (
    r"(?:that|this|it)(?:\s?'s|\s+is|\s+was|\s+sounds|\s+seems)(?:\s+(?:really|so|very|pretty|quite|too|"
    r"actually|definitely|super|kind of|sort of|such an?))*(?:\s+(?:" + _REACTION_WORDS + r"))?"
    r"|(?:that|this|it) (?:really|truly|sure|definitely|certainly) (?:is|was|does|did)"
    r"|(?:how|so|very|really) (?:" + _REACTION_WORDS + r")"
    r"|(?:" + _REACTION_WORDS + r")|i (?:totally |completely |really )?agree(?: with (?:you|that))?"
    r"|you(?:'re| are) (?:so |totally |absolutely )?right|good point|me too|same here|i see|i know|of course"
    r"|absolutely|exactly|definitely|totally|certainly|indeed|wow|cool|nice|thanks?(?: you)?|lol|haha"
)
FRAME_RE = re.compile(
    r"^(?:it\s?'s|it is|that\s?'s|that is) (?:(?:really|so|very|pretty|quite) )?(?:" + _REACTION_WORDS
    + r") (?:that|how) ",
    re.IGNORECASE,
)
""""It's interesting that X" asserts X."""


def answer_words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD_RE.findall(text)]


def has_verb(answer: str) -> bool:
    found = answer_words(answer)
    return any(
        word in _VERBS or (index > 0 and len(word) > 4 and word.endswith("ed") and found[index - 1] not in DETERMINERS)
        for index, word in enumerate(found)
    )


def is_fragment(question: str, answer: str) -> bool:
    """An answer that names only the answer ("Paris.", "In 1889", "Leo Tolstoy"), not a statement of its own."""
    found = answer_words(answer)
    if not found or found[0] in VAGUE or has_verb(answer):
        return False
    if len(found) <= _SHORT_FRAGMENT_WORDS:
        return True
    asked = set(answer_words(question)) - _FUNCTION_WORDS
    return len(found) <= SHORT_ANSWER_WORDS and asked.isdisjoint(found)


def comparative(question: str, answer: str) -> str | None:
    """The pick of "Which is taller, A or B?" as "A is taller than B.", from a bare pick ("A.") or an elliptic
    sentence ("A is taller."); ``None`` for any other question or answer."""
    match = _COMPARATIVE_RE.match(question.strip())
    if match is None or _THAN_RE.search(answer):
        return None
    first, second = match.group("first").strip(), match.group("second").strip()
    picked = answer_words(answer)
    for chosen, other in ((first, second), (second, first)):
        chosen_words = [word for word in answer_words(chosen) if word not in DETERMINERS]
        if chosen_words and _starts_with(picked, chosen_words):
            verb, quality = match.group("verb"), match.group("quality").strip()
            rest = picked[picked.index(chosen_words[-1]) + 1 :]
            if rest and rest != answer_words(f"{verb} {quality}"):
                return None  # "A is older but smaller": more than the pick
            name = _as_written(answer, chosen)
            return sentence(f"{name} {verb} {quality} than {other}")
    return None


def _starts_with(found: list[str], name: list[str]) -> bool:
    start = 1 if found[:1] and found[0] in DETERMINERS else 0
    return found[start : start + len(name)] == name


def _as_written(answer: str, name: str) -> str:
    """The chosen name as the answer writes it (with its article), else as the question does."""
    stripped = answer.strip().rstrip(".!")
    head = " ".join(stripped.split()[: len(name.split()) + 1])
    return head if answer_words(head)[-1:] == answer_words(name)[-1:] else name


def is_yes_no_question(question: str) -> bool:
    found = answer_words(question)
    return bool(found) and found[0] in AUX


def statement(question: str, *, negated: bool) -> str | None:
    """A yes/no question as the statement it asks about ("Is Paris the capital?" → "Paris is the capital")."""
    parts = question.split()
    if not parts or parts[0].casefold() not in AUX:
        return question + "." if question else None
    aux = parts[0].casefold()
    length = subject_length(parts[1:])
    subject = " ".join(parts[1 : 1 + length])
    if not subject or subject.split()[0].casefold() in VAGUE:
        return None  # "Is it true …?", "Is that so?", "Is there …?": nothing to state
    predicate = " ".join(parts[1 + length :])
    return f"{subject} {aux}{' not' if negated else ''} {predicate}".strip() + "."


def subject_length(parts: list[str]) -> int:
    """How many leading words form the subject: a determiner with the capitalised name after it, a run of
    capitalised words (with connectors such as "of"), or one word."""
    if not parts:
        return 0
    position = 1 if parts[0].casefold() in DETERMINERS and len(parts) > 1 else 0
    if not parts[position][:1].isupper():
        return position + 1
    end = position + 1
    while end < len(parts) and (parts[end][:1].isupper() or (
        parts[end].casefold() in _CONNECTORS and end + 1 < len(parts) and parts[end + 1][:1].isupper()
    )):
        end += 1
    return end


def fill(question: str, answer: str) -> str | None:
    """A fragment put into its wh-question ("What is the capital of France?" + "Paris" → "The capital of France
    is Paris."); ``None`` when the question has no question word this reads."""
    parts = question.split()
    if not parts or parts[0].casefold() not in WH:
        return None
    wh = parts[0].casefold()
    rest = parts[1:]
    if wh == "how" and rest and rest[0].casefold() in {"many", "much"}:
        noun_end = 2 if len(rest) > 1 and rest[1].casefold() not in AUX else 1
        noun = " ".join(rest[1:noun_end])
        tail = rest[noun_end:]
        if tail and tail[0].casefold() in DO:
            tail = _without_do(tail[0].casefold(), tail[1:])
        return sentence(f"{' '.join(tail)} {answer} {noun}")
    if not rest:
        return sentence(answer)
    aux = rest[0].casefold()
    if wh in {"what", "which", "who", "whom", "whose"}:
        if aux in BE:
            return sentence(f"{' '.join(rest[1:])} {aux} {answer}")
        return sentence(f"{answer} {' '.join(rest)}")  # "Who wrote War and Peace?" + "Tolstoy"
    if aux in BE and len(rest) > 2:
        return sentence(f"{' '.join(rest[1:-1])} {aux} {rest[-1]} {_located(wh, answer)}")
    if aux in DO:
        return sentence(f"{' '.join(_without_do(aux, rest[1:]))} {_located(wh, answer)}")
    if aux in AUX:
        return sentence(f"{' '.join(rest[1:])} {_located(wh, answer)}")
    return sentence(f"{' '.join(rest)} {_located(wh, answer)}")


def _without_do(aux: str, clause: list[str]) -> list[str]:
    """The clause of a do-question as a statement: "did Tolstoy write" → "Tolstoy wrote", "does Mars have" →
    "Mars has" (the verb after the subject takes the tense "do" carried)."""
    at = subject_length(clause)
    if aux == "do" or at >= len(clause):
        return clause
    verb = clause[at].casefold()
    if aux == "does":
        sibilant = verb.endswith(("s", "sh", "ch", "x"))
        inflected = _IRREGULAR_PRESENT.get(verb) or (verb + "es" if sibilant else verb + "s")
    else:
        inflected = _IRREGULAR_PAST.get(verb) or (verb + "d" if verb.endswith("e") else verb + "ed")
    return [*clause[:at], inflected, *clause[at + 1 :]]


def _located(wh: str, answer: str) -> str:
    """A bare time or place answer with the preposition the question implies ("1889" → "in 1889")."""
    first = answer.split()[0].casefold() if answer.split() else ""
    if first in _PLACE_OR_TIME_PREPOSITIONS:
        return first + answer[len(first) :]  # "In 1793" inside the sentence: "opened in 1793"
    if wh in {"when", "where"}:
        return f"in {answer}"
    return answer


def sentence(text: str) -> str:
    text = " ".join(text.split())
    return (text[:1].upper() + text[1:] + ".") if text else text


def topic(question: str) -> str | None:
    """What the question asks about: the subject after its auxiliary ("When was the Eiffel Tower built" → "the
    Eiffel Tower"), what a "what is" question names ("the capital of France"), or the object of a question whose
    wh-word is the subject ("Who designed the Sydney Opera House" → "the Sydney Opera House")."""
    parts = re.split(r",|\s+and\s+(?=(?:what|which|who|when|where|how|why)\b)", question, maxsplit=1)[0].split()
    if len(parts) >= 2 and parts[0].casefold() in AUX:
        found = " ".join(parts[1 : 1 + subject_length(parts[1:])])
    elif len(parts) < 3 or parts[0].casefold() not in WH:
        return None
    elif parts[1].casefold() in AUX:
        rest = parts[2:]
        if parts[0].casefold() in {"what", "which", "who"} and parts[1].casefold() in BE:
            found = " ".join(rest)  # "What is the capital of France" → "the capital of France"
        else:
            found = " ".join(rest[: subject_length(rest)])
    elif parts[0].casefold() in {"who", "what", "which"}:
        rest = parts[2:]  # "Who designed the Sydney Opera House": the object
        found = " ".join(rest[: subject_length(rest)])
    else:
        return None
    return None if not found or found.split()[0].casefold() in _NOT_A_TOPIC else found


def names_someone(text: str) -> bool:
    """A capitalised name without an article ("Marie Curie", not "the Eiffel Tower"), which "he"/"she" may stand for."""
    parts = text.split()
    if not parts or parts[0].casefold() in DETERMINERS:
        return False
    return all(part[:1].isupper() or part.casefold() in _CONNECTORS for part in parts)


def resolve_things(text: str, name: str) -> str:
    """Every "it"/"its" that stands for a thing replaced by ``name`` ("Jørn Utzon designed it, and it opened in
    1973"); an expletive "it" ("it is said that …", "it seems that …") stays."""

    def replace(match: re.Match[str]) -> str:
        if _EXPLETIVE_RE.match(text[match.end() :].lstrip()):
            return match.group(0)
        replaced = name if match.group(1).casefold() == "it" else f"{name}'s"
        at_start = match.start() == 0 or text[: match.start()].rstrip().endswith((".", "!", "?"))
        return replaced[:1].upper() + replaced[1:] if at_start else replaced

    return _IT_RE.sub(replace, text)


def resolve_leading_pronoun(sentence: str, previous_subject: str) -> str:
    """A sentence that opens with he/she/it/they or its/his/her/their about the previous sentence's subject; a
    person's pronoun about the owner of a possessive subject."""
    words = sentence.split(maxsplit=1)
    if len(words) < 2:
        return sentence
    first = words[0].casefold()
    if first in {"he", "she", "his", "her"}:
        # A person: of "Tony Morris's blue Volvo was caught …", "He says …" is Tony Morris, not the Volvo.
        owner = _OWNER_RE.match(previous_subject)
        if owner is not None and previous_subject.split()[-1].casefold() not in lexicon.EN_PERSON_NOUNS:
            previous_subject = owner.group(1)
    if first in {"it", "he", "she", "they"}:
        return f"{previous_subject} {words[1]}"
    if first in {"its", "his", "her", "their"}:
        return f"{previous_subject}'s {words[1]}"
    return sentence


def is_verb(lower: str, before: str) -> bool:
    """A listed verb, or a past form in "-ed" after a noun ("Queen Margrethe turned 80"); after a determiner, an
    auxiliary or a preposition an "-ed" form is an adjective or a participle ("the reported case")."""
    if not lower.endswith("ed"):
        return lower in SUBJECT_VERBS
    return (lower in SUBJECT_VERBS or len(lower) > 4) and before.casefold() not in _NOT_BEFORE_A_VERB


def opens_clause(words: list[str], head: list[str]) -> bool:
    """Whether the words after ", and" have a predicate of their own (``head``: the first seven, casefolded)."""
    if head[0] in PRONOUN_SUBJECTS or head[0] in {"there", "i", "we", "you"}:
        return True
    if any(word in SUBJECT_VERBS for word in head):
        return True
    if any(is_verb(word, head[index - 1]) for index, word in enumerate(head[1:5], start=1)):
        return True  # "…, and the Sydney Opera House opened in 1973": a past form after its subject
    if len(words) >= 3 and words[0][:1].islower() and head[0] not in lexicon.EN_STOPWORDS:
        return head[0] not in _CLAUSE_DETERMINERS and (head[0].endswith(("ed", "s")) or len(words) >= 4)
    return False


def starts_with_verb(words: list[str]) -> bool:
    first = words[0].casefold()
    if first in SUBJECT_VERBS:
        return True
    return words[0][:1].islower() and first not in lexicon.EN_STOPWORDS and first not in _CLAUSE_DETERMINERS


def participle_clause(subject: str, participle: str, rest: str, main_clause: str | None) -> str:
    """"X, known for Y" as "X is known for Y": the tense of the main clause (``main_clause``) when the participle
    follows it, else of the participle (a lasting state "is located", an event "was founded")."""
    if main_clause is not None:
        copula = "was" if _PAST_RE.search(main_clause) else "is"
    else:
        copula = "is" if participle.casefold() in _STATE_PARTICIPLES else "was"
    return f"{subject} {copula} {participle} {rest}"


def ask(words: list[str], kind: Callable[[list[str]], str]) -> str:
    """The question a claim answers, its answer slot removed ("France is located in Western Europe" → "Where is
    France located?"); ``kind`` tells the question word of a slot."""
    for index, word in enumerate(words[:12]):
        if word.casefold() in lexicon.EN_AUXILIARIES and index > 0:
            subject = " ".join(words[:index])
            rest = words[index + 1 :]
            verb = word.casefold()
            if rest and (rest[0].endswith("ed") or rest[0].casefold() in PARTICIPLE_OPENERS):
                return f"{kind(rest[1:]).capitalize()} {verb} {subject} {rest[0]}?"
            if len(rest) > 1 and rest[0].casefold() == "the" and verb in BE:
                # "Canberra is the capital of Australia": the definite description is what is asked about.
                return f"What {verb} {' '.join(rest)}?"
            return f"{kind(rest).capitalize()} {verb} {subject}?"
    for index, word in enumerate(words[1:12], start=1):
        if has_verb(" ".join(words[index - 1 : index + 1])):
            # No auxiliary: the verb itself ends the subject ("Jørn Utzon designed the Sydney Opera House" → "Who
            # designed the Sydney Opera House?", "The house opened in 1973" → "When the house opened?").
            subject, rest = " ".join(words[:index]), words[index + 1 :]
            wh = kind(rest)
            if wh == "what" and names_someone(subject):
                return f"Who {word} {' '.join(rest)}?"
            return f"{wh.capitalize()} {subject} {word}?"
    return f"What about {' '.join(words)}?"
