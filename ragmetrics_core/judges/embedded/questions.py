"""Questions a response could be answering, noncommittal detection, and question similarity.

Without a language model, a question is made from each claim by removing its answer slot (each language's rule in
:mod:`.answer_rules`); the question word follows the removed phrase (a place → where, a year → when, a number → how
many). Similarity is the cosine of the content-term sets of two questions, with the question word as one more term,
so a question asking only half of what the user asked scores well below 1.
"""

from __future__ import annotations

import math
import re

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Claim, GeneratedQuestion
from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules import chinese, english, russian
from ragmetrics_core.judges.embedded.answer_rules.chinese import HAN_RE, YEAR_RE
from ragmetrics_core.judges.embedded.answer_rules.nonclaims import set_aside
from ragmetrics_core.judges.embedded.claims import extract_claims
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.segment import language, sentences
from ragmetrics_core.judges.embedded.terms import terms
from ragmetrics_core.judges.embedded.tokens import prepare

CLAIMS_PER_QUESTION = KNOBS.claims_per_question
_new_question = builder(GeneratedQuestion)
_NONCOMMITTAL_SENTENCES = 2
_NUMBER_RE = re.compile(r"\d")
_ZH_QUESTION_WORDS = sorted((word for word in lexicon.QUESTION_WORDS if not word.isascii() and
                             all("\u4e00" <= char <= "\u9fff" for char in word)), key=len, reverse=True)
_WORD_SPLIT_RE = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")
_ASCII_NONCOMMITTAL = tuple(phrase for phrase in lexicon.NONCOMMITTAL_PHRASES if phrase.isascii())
"""The phrases an ASCII text can hold: the Russian and Chinese ones are not even looked for in English."""
_ASCII_NONCOMMITTAL_CUES = tuple(sorted({max(phrase.split(), key=len) for phrase in _ASCII_NONCOMMITTAL}))
"""The longest word of every English noncommittal phrase: a text holds a phrase only if it holds one of these."""


def is_noncommittal(response: str) -> bool:
    """Whether the response declines to answer ("I don't know", "не знаю", "我不知道"): a hedge in its first sentence,
    or anywhere in a response of at most two sentences."""
    if not response or not response.strip():
        return False
    # Courtesy is no answer: "… Not sure that helps!" closes an answer, and "I'm not sure, but I think X" states X.
    found = [rest for rest in (set_aside(sentence, language(sentence))[0] for sentence in sentences(response)) if rest]
    if not found:
        return False
    head = found[0] if len(found) > _NONCOMMITTAL_SENTENCES else " ".join(found)
    normalized = prepare(head).casefold()
    phrases: tuple[str, ...] = lexicon.NONCOMMITTAL_PHRASES
    if normalized.isascii():
        for cue in _ASCII_NONCOMMITTAL_CUES:
            if cue in normalized:
                break
        else:
            return False  # most answers: no cue, so none of the phrases either
        phrases = _ASCII_NONCOMMITTAL
    return any(phrase in normalized for phrase in phrases)


def generate_questions(response: str, n_questions: int) -> list[GeneratedQuestion]:
    """``n_questions`` questions, each covering up to three claims, rotating which claims come first."""
    if not response or not response.strip():
        return []
    if is_noncommittal(response):
        # The question a hedge leaves open is what remains once the hedge is removed.
        return [GeneratedQuestion(text=_without_hedge(response), noncommittal=True)] * n_questions
    claims = extract_claims(response)
    if not claims:
        return [GeneratedQuestion(text=response.strip(), noncommittal=False)] * n_questions
    per_claim = [_question(claim) for claim in claims]
    questions: list[GeneratedQuestion] = []
    for variant in range(n_questions):
        start = variant % len(per_claim)
        chosen = (per_claim[start:] + per_claim[:start])[:CLAIMS_PER_QUESTION]
        questions.append(_new_question({"text": _join(chosen), "noncommittal": False}))
    return questions


def _without_hedge(response: str) -> str:
    text = prepare(response).strip()
    lowered = text.casefold()
    for phrase in sorted(lexicon.NONCOMMITTAL_PHRASES, key=len, reverse=True):
        position = lowered.find(phrase)
        if position >= 0:
            text = (text[:position] + text[position + len(phrase) :]).strip(" ,.;:!?。，")
            break
    return (text[:1].upper() + text[1:] + "?") if text else "?"


def _join(questions: list[str]) -> str:
    if len(questions) == 1:
        return questions[0]
    if any(not question.isascii() and HAN_RE.search(question) for question in questions):
        return "".join(question.rstrip("?？") + "，" for question in questions[:-1]) + questions[-1]
    joined = " and ".join(question.rstrip("?") for question in questions[:-1])
    last = questions[-1]
    return f"{joined} and {last[:1].lower()}{last[1:]}"


def _question(claim: Claim) -> str:
    text = claim.text.strip().rstrip(".!?。！？")
    lang = language(text)
    if lang == "zh":
        return chinese.ask(text)
    if lang == "ru":
        return russian.ask(text.split(), answer_kind)
    return english.ask(text.split(), answer_kind)


def answer_kind(answer: list[str]) -> str:
    """What an answer slot holds, as the English question word that asks for it."""
    text = " ".join(answer)
    if YEAR_RE.search(text):
        return "when"
    if _NUMBER_RE.search(text):
        return "how many"
    if answer and answer[0].casefold() in lexicon.PLACE_PREPOSITIONS and len(answer) > 1 and answer[1][:1].isupper():
        return "where"
    return "what"


def _features(text: str) -> set[str]:
    """Content terms plus the question words of ``text`` as ``?where``-style features, each of weight 1."""
    prepared = prepare(text)
    features = set(terms(prepared).weights)
    lowered = prepared.casefold()
    for word in _WORD_SPLIT_RE.findall(lowered):
        kind = lexicon.QUESTION_WORDS.get(word)
        if kind is not None and (word not in {"как", "что"} or "?" in lowered):
            features.add("?" + kind)
    if lowered.isascii():
        return features  # the Chinese question words below cannot occur
    for word in _ZH_QUESTION_WORDS:
        if word in lowered:
            features.add("?" + lexicon.QUESTION_WORDS[word])
    if "哪一年" in lowered:
        features.add("?when")
    return features


def similarity(first: str, second: str) -> float:
    """Cosine similarity of two questions' feature sets, in [0, 1]."""
    return similarities(first, [second])[0]


def similarities(first: str, others: list[str]) -> list[float]:
    """:func:`similarity` of ``first`` with each of ``others`` (``first`` analysed once)."""
    left = _features(first)
    found = {other: _features(other) for other in set(others)}  # one answer's questions are often one question
    return [_cosine(left, found[other]) for other in others]


def _cosine(left: set[str], right: set[str]) -> float:
    """Cosine of two feature sets, every feature weighing 1: shared features / (√|left| · √|right|)."""
    if not left or not right:
        return 0.0
    return len(left & right) / (math.sqrt(len(left)) * math.sqrt(len(right)))
