"""Entities for context_entity_recall; noncommittal detection, generated questions and similarity."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import questions
from ragmetrics_core.judges.embedded.entail import Premise
from ragmetrics_core.judges.embedded.entities import entity_found, extract_entities
from ragmetrics_core.judges.embedded.normalize import terms
from ragmetrics_core.judges.embedded.questions import generate_questions, is_noncommittal, similarity


def test_english_entities_names_places_dates_numbers() -> None:
    assert extract_entities(
        "Albert Einstein was born in Ulm, Germany on March 14, 1879. He won the Nobel Prize in Physics in 1921."
    ) == ["Albert Einstein", "Ulm", "Germany", "March 14, 1879", "Nobel Prize in Physics", "1921"]
    assert extract_entities("The Great Wall is 21,196 kilometers long and drew 50,000 spectators.") == [
        "Great Wall", "21,196 kilometers", "50,000 spectators",
    ]


def test_russian_entities() -> None:
    found = extract_entities("Альберт Эйнштейн родился 14 марта 1879 года в Ульме.")
    assert found == ["Альберт Эйнштейн", "14 марта 1879 года", "Ульме"]


def test_chinese_entities() -> None:
    found = extract_entities("印度人寿保险公司(LIC)成立于 1956 年。《红楼梦》的作者是曹雪芹。")
    assert "印度人寿保险公司" in found
    assert "LIC" in found
    assert "红楼梦" in found
    assert any("1956" in entity for entity in found)


def test_entities_empty() -> None:
    assert extract_entities(None) == []
    assert extract_entities("") == []
    assert extract_entities("it is what it is.") == []


@pytest.mark.parametrize(
    ("entity", "context", "found"),
    [
        ("Париж", "Эйфелева башня стоит в Париже.", True),
        ("Eiffel Tower", "The Eiffel Tower, located in Paris, is iconic.", True),
        ("March 14, 1879", "He was born on 14 March 1879.", True),
        ("Nobel Prize in Physics", "Physics studies matter and energy.", False),
        ("1889", "It opened in 1890.", False),
        ("印度人寿保险公司", "印度人寿保险公司成立于1956年。", True),
    ],
)
def test_entity_lookup_is_stem_aware(entity: str, context: str, found: bool) -> None:
    assert entity_found(terms(entity), [Premise.from_text(context).keys]) is found


@pytest.mark.parametrize(
    "response",
    [
        "I don't know what the capital of France is.",
        "I’m not sure, sorry.",
        "There is no information about this in the context.",
        "Не знаю.",
        "Затрудняюсь ответить на этот вопрос.",
        "我不知道。",
        "无法回答这个问题。",
    ],
)
def test_noncommittal(response: str) -> None:
    assert is_noncommittal(response)
    assert all(question.noncommittal for question in generate_questions(response, 3))


@pytest.mark.parametrize(
    "response",
    ["Paris is the capital of France.", "Столица Франции — Париж.", "法国的首都是巴黎。", ""],
)
def test_committal(response: str) -> None:
    assert not is_noncommittal(response)


def test_questions_remove_the_answer_slot() -> None:
    questions = generate_questions("France is located in Western Europe, and its capital is Paris.", 3)
    assert len(questions) == 3
    assert questions[0].text == "Where is France located and what is France's capital?"
    assert all("Paris" not in question.text and "Europe" not in question.text for question in questions)
    assert generate_questions("Эйфелева башня была построена в 1889 году.", 1)[0].text == (
        "Когда была построена Эйфелева башня?"
    )
    assert generate_questions("", 3) == []


def test_similarity_rewards_the_same_question() -> None:
    asked = "Where is France located and what is its capital?"
    assert similarity(asked, "Where is France located and what is France's capital?") == pytest.approx(1.0)
    partial = similarity(asked, "Where is France located?")
    assert 0.5 <= partial <= 0.8
    assert similarity(asked, "Who wrote Hamlet?") < 0.3
    assert similarity("", "Where is France?") == 0.0


def test_a_statement_that_something_is_unknown_is_an_answer() -> None:
    assert not is_noncommittal("The author of the poem is unknown.")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_word_split_matches_the_unicode_one_on_casefolded_ascii(text: str) -> None:
    lowered = text.casefold()
    assert questions._ASCII_WORD_SPLIT_RE.findall(lowered) == questions._WORD_SPLIT_RE.findall(lowered)
    assert questions._words(lowered) == questions._WORD_SPLIT_RE.findall(lowered)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"aZ9 '-_?.,\t", "\u00a0", "é", "что", "什么"]), max_size=30).map("".join))
def test_words_are_the_patterns_words_on_any_casefolded_text(text: str) -> None:
    lowered = text.casefold()
    assert questions._words(lowered) == questions._WORD_SPLIT_RE.findall(lowered)


def test_ascii_word_split_on_everyday_questions() -> None:
    for text in ("What's the capital, and who-knows when?", "how_many? 3-4 o'clock", "WHERE is it", "Where: 1890's"):
        lowered = text.casefold()
        assert questions._ASCII_WORD_SPLIT_RE.findall(lowered) == questions._WORD_SPLIT_RE.findall(lowered)
        assert questions._words(lowered) == questions._WORD_SPLIT_RE.findall(lowered)


def _weighted_cosine(left: dict[str, float], right: dict[str, float]) -> float:
    """The cosine of weighted features written out: the reference for the set form."""
    if not left or not right:
        return 0.0
    dot = sum(weight * right[key] for key, weight in left.items() if key in right)
    norm = math.sqrt(sum(w * w for w in left.values())) * math.sqrt(sum(w * w for w in right.values()))
    return dot / norm if norm else 0.0


@settings(max_examples=300, deadline=None)
@given(st.sets(st.sampled_from([*"abcdefghij", "?what", "?when", "#1889"]), max_size=11),
       st.sets(st.sampled_from([*"abcdefghij", "?what", "?when", "#1889"]), max_size=11))
def test_set_cosine_is_the_weighted_cosine_at_weight_one(left: set[str], right: set[str]) -> None:
    expected = _weighted_cosine(dict.fromkeys(left, 1.0), dict.fromkeys(right, 1.0))
    assert questions._cosine(left, right) == expected  # bit for bit, not approximately
