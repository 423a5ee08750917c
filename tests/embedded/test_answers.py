"""Answers read with their question: short answers, yes/no, leading pronouns and refusals (issue cases)."""

from __future__ import annotations

import pytest

from ragmetrics_core import Evaluator, RagSample, aggregate
from ragmetrics_core.judges.embedded.answers import complete_answer


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("What is the capital of France?", "Paris.", "The capital of France is Paris."),
        ("What is the capital of Australia?", "Canberra.", "The capital of Australia is Canberra."),
        ("When was the Eiffel Tower built?", "It was built in 1889.", "The Eiffel Tower was built in 1889."),
        ("When was the Eiffel Tower built?", "1889", "The Eiffel Tower was built in 1889."),
        ("Where was Marie Curie born?", "Warsaw", "Marie Curie was born in Warsaw."),
        ("Who wrote War and Peace?", "Leo Tolstoy", "Leo Tolstoy wrote War and Peace."),
        ("Is Paris the capital of France?", "Yes.", "Paris is the capital of France."),
        ("Is Paris the capital of France?", "No.", "Paris is not the capital of France."),
        ("When was Marie Curie born?", "She was born in 1867.", "Marie Curie was born in 1867."),
        ("Когда была построена Эйфелева башня?", "В 1889 году.", "В 1889 году была построена Эйфелева башня."),
        ("Когда родился Пушкин?", "Он родился в 1799 году.", "Пушкин родился в 1799 году."),
        ("埃菲尔铁塔是什么时候建成的？", "1889年。", "埃菲尔铁塔是1889年建成的。"),
        ("巴黎是法国的首都吗？", "不是。", "巴黎不是法国的首都。"),
    ],
)
def test_an_answer_that_leans_on_its_question_becomes_a_statement(question: str, answer: str, statement: str) -> None:
    assert complete_answer(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("What is the capital of France?", "The capital of France is Paris.", "The capital of France is Paris."),
        ("Tell me about Paris.", "Paris is the capital of France.", "Paris is the capital of France."),
        # Chat: the "yes" is a discourse marker, the rest says it in its own words; "they" has no named topic.
        ("Do you like dogs?", "Yes, they are great companions.", "they are great companions."),
        ("Is it true he died young?", "Yes.", ""),  # a vague subject: nothing checkable to state
    ],
)
def test_answers_that_stand_on_their_own_or_have_nothing_to_complete_are_kept(
    question: str, answer: str, expected: str
) -> None:
    assert complete_answer(question, answer) == expected


@pytest.mark.parametrize(
    "answer", ["I don't know.", "Не знаю.", "我不知道。", "The context does not mention the author."]
)
def test_a_refusal_states_nothing(answer: str) -> None:
    assert complete_answer("Who wrote War and Peace?", answer) == ""


def test_a_hedge_followed_by_a_statement_keeps_the_statement() -> None:
    assert "Tolstoy" in complete_answer("Who wrote War and Peace?", "I'm not sure, but I think Tolstoy wrote it.")


def _scores(question: str, contexts: list[str], response: str, reference: str | None) -> dict[str, float | None]:
    sample = RagSample(user_input=question, retrieved_contexts=contexts, response=response, reference=reference)
    return Evaluator().evaluate(sample).values()


def test_a_correct_answer_with_a_pronoun_gets_recall() -> None:
    scores = _scores("When was the Eiffel Tower built?", ["The Eiffel Tower was built in 1889 for the World's Fair."],
                     "It was built in 1889.", "The Eiffel Tower was built in 1889.")
    assert scores["overall_recall"] == pytest.approx(1.0)
    assert scores["faithfulness"] == pytest.approx(1.0)


def test_a_full_answer_against_a_short_reference_and_the_reverse() -> None:
    contexts = ["Paris is the capital of France."]
    full = _scores("What is the capital of France?", contexts, "The capital of France is Paris.", "Paris.")
    short = _scores("What is the capital of France?", contexts, "Paris", "The capital of France is Paris.")
    assert full["overall_precision"] == pytest.approx(1.0)
    assert short["overall_recall"] == pytest.approx(1.0)


def test_yes_to_a_yes_no_question_is_judged() -> None:
    scores = _scores("Is Paris the capital of France?", ["Paris is the capital of France."], "Yes.",
                     "Yes, Paris is the capital of France.")
    assert scores["faithfulness"] == pytest.approx(1.0)
    assert scores["overall_recall"] == pytest.approx(1.0)


def test_a_refusal_is_noncommittal_not_a_hallucination() -> None:
    scores = _scores("Who wrote War and Peace?", ["War and Peace is a novel by Leo Tolstoy."], "I don't know.",
                     "Leo Tolstoy wrote War and Peace.")
    assert scores["hallucination"] is None
    assert scores["faithfulness"] is None
    assert scores["overall_recall"] == 0.0
    assert scores["response_relevancy"] == 0.0


QA_FILE = [
    ("What is the capital of France?", ["Paris is the capital and largest city of France."],
     "The capital of France is Paris.", "Paris"),
    ("When was the Eiffel Tower completed?", ["The Eiffel Tower was completed in 1889."], "It was completed in 1889.",
     "1889"),
    ("Who wrote War and Peace?", ["War and Peace is a novel by the Russian author Leo Tolstoy."],
     "Leo Tolstoy wrote War and Peace.", "Leo Tolstoy"),
    ("How many moons does Mars have?", ["Mars has two moons, Phobos and Deimos."], "Mars has two moons.", "Two"),
    ("Какая столица России?", ["Москва — столица России."], "Столица России — Москва.", "Москва"),
    ("Когда родился Пушкин?", ["Александр Пушкин родился в 1799 году в Москве."], "Пушкин родился в 1799 году.",
     "В 1799 году"),
    ("中国的首都是哪里？", ["北京是中国的首都。"], "中国的首都是北京。", "北京"),
    ("长城有多长？", ["长城全长约21196公里。"], "长城全长约21196公里。", "约21196公里"),
]


def test_a_ragas_style_qa_file_with_short_references_scores_its_correct_answers_as_correct() -> None:
    samples = [RagSample(user_input=q, retrieved_contexts=c, response=r, reference=ref) for q, c, r, ref in QA_FILE]
    results = Evaluator(metrics=["overall_precision", "overall_recall", "overall_f1"]).evaluate_many(samples)
    means = aggregate(results).means()
    assert means["overall_f1"] > 0.8  # 0.10 before answers were read with their question
    assert means["overall_recall"] > 0.9
