"""Entities for context_entity_recall; noncommittal detection, generated questions and similarity."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded.entail import Premise
from ragmetrics_core.judges.embedded.entities import entity_found, extract_entities
from ragmetrics_core.judges.embedded.questions import generate_questions, is_noncommittal, similarities, similarity
from ragmetrics_core.judges.embedded.terms import terms


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


QUESTION_PIECES = ["What", "where", "is", "was", "the", "capital", "of", "France", "Paris", "1889", "built", "?",
                   " ", ",", "что", "где", "столица", "什么", "哪里", "首都", "'s", "-"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(QUESTION_PIECES), max_size=12).map(" ".join),
       st.lists(st.sampled_from(QUESTION_PIECES), max_size=12).map(" ".join))
def test_similarity_is_a_symmetric_cosine_in_the_unit_interval(first: str, second: str) -> None:
    forward, backward = similarity(first, second), similarity(second, first)
    assert forward == backward
    assert 0.0 <= forward <= 1.0 + 1e-12
    if similarity(first, first) > 0:  # a question with any content is as similar as can be to itself
        assert similarity(first, first) == pytest.approx(1.0)
    assert similarities(first, [second, first]) == [forward, similarity(first, first)]


def test_similarity_counts_the_question_word_as_a_feature() -> None:
    # Same content, another question word: the features differ in one, so the two are not a perfect match.
    same = similarity("Where is the tower?", "Where is the tower?")
    assert similarity("Where is the tower?", "When is the tower?") < same == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("claim", "question"),
    [
        ("Jørn Utzon designed the Sydney Opera House.", "Who designed the Sydney Opera House?"),
        ("Canberra is the capital of Australia.", "What is the capital of Australia?"),
        ("故宫有9999间房屋。", "故宫有多少间房屋?"),
        ("长城全长约21196公里。", "长城全长约多长?"),
        ("北京是中国的首都。", "中国的首都是什么?"),
        ("埃菲尔铁塔建于1889年。", "埃菲尔铁塔建于哪一年?"),
    ],
)
def test_each_language_asks_for_the_answer_slot_its_own_way(claim: str, question: str) -> None:
    assert generate_questions(claim, 1)[0].text == question
