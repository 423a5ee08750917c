"""Answers read with their question: short answers, yes/no and leading pronouns become statements.

A RAG answer often leans on the question: "Paris." to "What is the capital of France?", "Yes." to "Is Paris the
capital of France?", "It was built in 1889." to "When was the Eiffel Tower built?". Read alone, such an answer
states nothing checkable (or states it about "it"), so it could neither be supported by a context nor match a
reference that says the same in full. :func:`complete_answer` rewrites the answer as statements that stand on
their own, for the response and the reference alike; an answer that declines ("I don't know", "не знаю",
"我不知道", "the context does not mention it") states nothing and becomes empty.

The rewriting is lexical, by question word and auxiliary (English), by replacing the question word (Russian,
Chinese); an answer that already stands on its own is left as it is.
"""

from __future__ import annotations

import re

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.normalize import prepare
from ragmetrics_core.judges.embedded.segment import sentences

SHORT_ANSWER_WORDS = 6
"""A one-sentence answer is completed from a wh-question when it is a fragment: at most three words, or at most
this many words none of which the question holds (a full answer repeats the question's words)."""

_EN_BE = frozenset({"is", "are", "was", "were"})
_EN_DO = frozenset({"do", "does", "did"})
_EN_AUX = _EN_BE | _EN_DO | frozenset({"has", "have", "had", "can", "could", "will", "would", "should", "may"})
_EN_WH = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "how", "why"})
_EN_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those"})
_EN_CONNECTORS = frozenset({"of", "de", "von", "van", "the", "and", "la", "le", "del", "da"})
_EN_PRONOUNS = frozenset({"it", "he", "she", "they", "this", "that"})
_PERSON_PRONOUNS = frozenset({"he", "she", "they"})
_VAGUE = frozenset({"it", "he", "she", "they", "this", "that", "these", "those", "there", "you", "i", "we", "what"})
_YES = frozenset(
    {"yes", "yeah", "yep", "correct", "right", "true", "indeed", "да", "верно", "是", "是的", "对", "对的"}
)
_NO = frozenset({"no", "nope", "incorrect", "false", "нет", "неверно", "不", "不是", "不对", "没有"})
_RU_WH = re.compile(
    r"\b(?:кто|что|когда|где|куда|откуда|какой|какая|какое|какие|какого|каком|какую|сколько|чей|чья|чьё|чьи)\b",
    re.IGNORECASE,
)
_RU_PRONOUN = re.compile(r"^(?:он|она|оно|они|это)\b\s*", re.IGNORECASE)
_ZH_WH = re.compile("什么时候|什么|哪里|哪儿|哪个|哪一|何时|谁|多少|多长|多大|多高|多远|多久|几")
_ZH_TAIL = re.compile("[吗呢嘛]?[？?]*$")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_CLAUSE_BREAK = re.compile(r"[,;:，；：]|\bbut\b|\bно\b|但")
_LEADING_YES_NO = re.compile(
    r"^\s*([^\W\d_]+|是的|是|对的|对|不是|不对|没有|不)\s*(?:[,.!;:，。！；：]+\s*|$)", re.IGNORECASE
)


def complete_answer(question: str, answer: str) -> str:
    """``answer`` rewritten to stand on its own given ``question`` (unchanged when it already does)."""
    if not answer or not answer.strip():
        return answer
    kept = [sentence for sentence in sentences(answer) if not _declines(sentence)]
    if not kept:
        return ""
    asked = _question(question)
    if asked is None:
        return " ".join(kept)
    first = kept[0]
    verdict = _LEADING_YES_NO.match(first)
    if verdict is not None and _yes_or_no(verdict.group(1)) is not None:
        rest = first[verdict.end() :].strip()
        if len(_WORD.findall(rest)) <= 3 and len(kept) == 1 and _is_yes_no_question(asked):
            # A bare "Yes." / "No." asserts what the question asks (a longer answer says it in its own words).
            statement = _statement(asked, negated=_yes_or_no(verdict.group(1)) is False)
            if statement is not None:
                return statement
        first = rest
    if len(kept) == 1 and _is_fragment(asked, first):
        filled = _fill(asked, first.strip().rstrip(".!。！"))
        if filled is not None:
            return filled
    return " ".join(filter(None, [_resolve_pronoun(asked, first), *kept[1:]]))


def _is_fragment(question: str, answer: str) -> bool:
    """An answer that names only the answer ("Paris.", "In 1889", "Лев Толстой"), not a statement of its own."""
    words = [word.casefold() for word in _WORD.findall(answer)]
    if not words or words[0] in _EN_PRONOUNS or _RU_PRONOUN.match(answer):
        return False
    if len(words) <= 3:
        return True
    asked = {word.casefold() for word in _WORD.findall(question)} - _EN_DETERMINERS - _EN_AUX
    return len(words) <= SHORT_ANSWER_WORDS and asked.isdisjoint(words)


def _declines(sentence: str) -> bool:
    """A sentence that only declines to answer: a noncommittal phrase and no statement after it ("I'm not sure,
    but it was built in 1889" and "Not sure, I do know that X" state something)."""
    lowered = prepare(sentence).casefold()
    for phrase in lexicon.NONCOMMITTAL_PHRASES:
        at = lowered.find(phrase)
        if at >= 0:
            after = _CLAUSE_BREAK.split(lowered[at + len(phrase) :], maxsplit=1)
            return len(after) < 2 or len(_WORD.findall(after[1])) < 3
    return False


def _question(text: str) -> str | None:
    """The last question of the user input, without its question mark."""
    if not text or not text.strip():
        return None
    found = [sentence for sentence in sentences(text) if sentence.rstrip().endswith(("?", "？"))]
    if not found:
        return None
    return _ZH_TAIL.sub("", found[-1].strip()).strip()


def _yes_or_no(word: str) -> bool | None:
    lowered = word.casefold()
    if lowered in _YES:
        return True
    if lowered in _NO:
        return False
    return None


def _is_yes_no_question(question: str) -> bool:
    words = _WORD.findall(question.casefold())
    if not words:
        return False
    if words[0] in _EN_AUX:
        return True
    if _RU_WH.search(question) or _ZH_WH.search(question):
        return False
    return words[0] not in _EN_WH and not question.isascii()


def _statement(question: str, *, negated: bool) -> str | None:
    """A yes/no question as the statement it asks about ("Is Paris the capital?" → "Paris is the capital")."""
    words = question.split()
    if words and words[0].casefold() in _EN_AUX:
        aux = words[0].casefold()
        subject_length = _subject_length(words[1:])
        subject = " ".join(words[1 : 1 + subject_length])
        if not subject or subject.split()[0].casefold() in _VAGUE:
            return None  # "Is it true …?", "Is that so?", "Is there …?": nothing to state
        predicate = " ".join(words[1 + subject_length :])
        return f"{subject} {aux}{' not' if negated else ''} {predicate}".strip() + "."
    if question.isascii():
        return question + "."
    plain = re.sub(r"\s+ли\b", "", question, flags=re.IGNORECASE)
    chinese = re.search("[\u4e00-\u9fff]", plain) is not None
    if not negated:
        return plain + ("。" if chinese else ".")
    if chinese:
        return (plain.replace("是", "不是", 1) if "是" in plain else "不" + plain) + "。"
    return "Неверно, что " + plain + "."


def _subject_length(words: list[str]) -> int:
    """How many leading words form the subject: a determiner with the capitalised name after it, a run of
    capitalised words (with connectors such as "of"), or one word."""
    if not words:
        return 0
    position = 1 if words[0].casefold() in _EN_DETERMINERS and len(words) > 1 else 0
    if not words[position][:1].isupper():
        return position + 1
    end = position + 1
    while end < len(words) and (words[end][:1].isupper() or (
        words[end].casefold() in _EN_CONNECTORS and end + 1 < len(words) and words[end + 1][:1].isupper()
    )):
        end += 1
    return end


def _fill(question: str, answer: str) -> str | None:
    """A short answer put into its wh-question ("What is the capital of France?" + "Paris" → "The capital of
    France is Paris."); ``None`` when the question has no question word this reads."""
    if question.isascii():
        return _fill_english(question, answer)
    if _RU_WH.search(question):
        return _RU_WH.sub(answer, question, count=1) + "."
    if _ZH_WH.search(question):
        return _ZH_WH.sub(answer, question, count=1) + "。"
    return None


def _fill_english(question: str, answer: str) -> str | None:
    words = question.split()
    if not words or words[0].casefold() not in _EN_WH:
        return None
    wh = words[0].casefold()
    rest = words[1:]
    if wh == "how" and rest and rest[0].casefold() in {"many", "much"}:
        noun_end = 2 if len(rest) > 1 and rest[1].casefold() not in _EN_AUX else 1
        noun = " ".join(rest[1:noun_end])
        tail = rest[noun_end:]
        if tail and tail[0].casefold() in _EN_AUX:
            tail = tail[1:] if tail[0].casefold() in _EN_DO else tail
        return _sentence(f"{' '.join(tail)} {answer} {noun}")
    if not rest:
        return _sentence(answer)
    aux = rest[0].casefold()
    if wh in {"what", "which", "who", "whom", "whose"}:
        if aux in _EN_BE:
            return _sentence(f"{' '.join(rest[1:])} {aux} {answer}")
        return _sentence(f"{answer} {' '.join(rest)}")  # "Who wrote War and Peace?" + "Tolstoy"
    if aux in _EN_BE and len(rest) > 2:
        return _sentence(f"{' '.join(rest[1:-1])} {aux} {rest[-1]} {_located(wh, answer)}")
    if aux in _EN_AUX:
        return _sentence(f"{' '.join(rest[1:])} {_located(wh, answer)}")
    return _sentence(f"{' '.join(rest)} {_located(wh, answer)}")


def _located(wh: str, answer: str) -> str:
    """A bare time or place answer with the preposition the question implies ("1889" → "in 1889")."""
    first = answer.split()[0].casefold() if answer.split() else ""
    if wh in {"when", "where"} and first not in {"in", "on", "at", "by", "from", "during", "since", "near"}:
        return f"in {answer}"
    return answer


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return (text[:1].upper() + text[1:] + ".") if text else text


def _resolve_pronoun(question: str, sentence: str) -> str:
    """A leading pronoun ("It was built in 1889.") replaced by what the question asks about."""
    if not sentence:
        return sentence
    if question.isascii():
        words = sentence.split()
        pronoun = words[0].casefold().strip(",") if words else ""
        if pronoun not in _EN_PRONOUNS:
            return sentence
        topic = _english_topic(question)
        if topic is None or topic.split()[0].casefold() in _VAGUE or (
            pronoun in _PERSON_PRONOUNS and not all(word[:1].isupper() for word in topic.split())
        ):
            return sentence  # no topic, a vague one, or "he" for something that is not a name
        return _sentence(f"{topic} {' '.join(words[1:])}".rstrip("."))
    if _RU_PRONOUN.match(sentence):
        names = re.findall(r"(?<!^)\b[А-ЯЁ][а-яё]+(?:\s+[а-яё]+)?", question)
        topic = " ".join(names) if names else None
        return sentence if topic is None else _RU_PRONOUN.sub(topic + " ", sentence, count=1)
    return sentence


def _english_topic(question: str) -> str | None:
    """What a question with an auxiliary asks about ("When was the Eiffel Tower built" → "the Eiffel Tower",
    "Did Tolstoy write War and Peace" → "Tolstoy")."""
    words = question.split()
    if len(words) >= 2 and words[0].casefold() in _EN_AUX:
        return " ".join(words[1 : 1 + _subject_length(words[1:])])
    if len(words) < 3 or words[0].casefold() not in _EN_WH or words[1].casefold() not in _EN_AUX:
        return None
    rest = words[2:]
    if words[0].casefold() in {"what", "which", "who"} and words[1].casefold() in _EN_BE:
        return " ".join(rest)  # "What is the capital of France" → "the capital of France"
    length = _subject_length(rest)
    return " ".join(rest[:length]) if length else None
