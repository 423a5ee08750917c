"""Explanations agree with what they explain: pieces set aside are shown with their reason and counted nowhere,
a claim that counts 0.04 is not called a hallucination, a refusal is not "empty", and response_relevancy ranks
short answers (a correct one-word answer above an off-topic one)."""

from __future__ import annotations

import pytest

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.aggregate import RunningAggregate
from ragmetrics_core.evidence import Check, Claim, Evidence, Verdict
from ragmetrics_core.explain import metric_explanations

OPERA = "Who designed the Sydney Opera House?"
CONTEXTS = ["The Sydney Opera House was designed by the Danish architect Jørn Utzon. It opened in 1973."]
REFERENCE = "Jørn Utzon designed the Sydney Opera House."


def _evaluate(response: str, question: str = OPERA) -> tuple[dict[str, float | None], dict[str, str], list[str]]:
    result = Evaluator().evaluate(
        RagSample(user_input=question, retrieved_contexts=CONTEXTS, response=response, reference=REFERENCE)
    )
    skipped = [f"{claim.text} ({claim.rationale})" for claim in result.explanations if claim.set_aside]
    return result.values(), metric_explanations(result), skipped


def test_courtesy_is_shown_as_set_aside_and_counts_nowhere() -> None:
    values, lines, skipped = _evaluate(
        "Great question! Jørn Utzon designed the Sydney Opera House. I hope this helps, let me know if you need "
        "anything else."
    )
    assert values["faithfulness"] == values["overall_precision"] == 1.0
    assert values["hallucination"] == 0.0
    assert skipped == [
        "Great question (not a claim: praise of the question)",
        "I hope this helps, let me know if you need anything else. (not a claim: wish)",
    ]
    assert lines["faithfulness"] == (
        "all 1 response claims supported by the contexts; not counted as claims: praise of the question, wish"
    )
    assert "not counted" not in lines["overall_recall"]  # the reference set nothing aside


def test_set_aside_entries_are_numbered_after_the_claims_of_their_text() -> None:
    result = Evaluator().evaluate(RagSample(
        user_input=OPERA, retrieved_contexts=CONTEXTS, response="Hi! Jørn Utzon.", reference="Thanks! " + REFERENCE
    ))
    entries = [(claim.source, claim.index, claim.category, claim.set_aside) for claim in result.explanations]
    assert entries == [("response", 0, "correct_grounded", None), ("reference", 0, None, None),
                       ("response", 1, None, "greeting"), ("reference", 1, None, "thanks")]
    running = RunningAggregate()
    running.add(0, result)
    assert running.response_claims == {"correct_grounded": 1}  # what is set aside is no claim


def test_a_claim_that_counts_a_little_is_not_called_a_hallucination() -> None:
    def graded(support: float) -> Check:
        return Check(verdict=Verdict.ENTAILED if support >= 0.5 else Verdict.NEUTRAL, support=support)

    evidence = Evidence(
        response_claims=[Claim(text="Jørn Utzon designed the Sydney Opera House")],
        reference_claims=[Claim(text="Jørn Utzon designed the Sydney Opera House")],
        response_vs_reference=[graded(0.97)],
        response_vs_chunks=[[graded(0.97)]],
        reference_vs_chunks=[[graded(1.0)]],
    )
    sample = RagSample(user_input=OPERA, response="x", reference="y", retrieved_contexts=["c"])
    result = Evaluator().score(sample, evidence)
    hallucination = result.score("hallucination")
    assert hallucination is not None and 0 < hallucination < 0.5
    line = metric_explanations(result)["hallucination"]
    assert line.startswith("no response claim is mostly hallucination; partly: 1 of 1")
    assert f"(counts {hallucination:.2f})" in line


def test_a_refusal_is_explained_as_declining_not_as_empty() -> None:
    values, lines, _ = _evaluate("I don't know.")
    assert values["overall_recall"] == 0.0
    assert "the response declines to answer" in lines["overall_recall"]
    assert "empty" not in lines["overall_recall"]
    assert lines["response_relevancy"] == "the response is noncommittal (it declines to answer)"


@pytest.mark.parametrize(
    ("question", "correct", "off_topic"),
    [
        (OPERA, "Jørn Utzon.", "Bananas are rich in potassium."),
        ("What is the capital of Australia?", "Canberra.", "Bananas are rich in potassium."),
        ("Кто написал «Войну и мир»?", "Лев Толстой.", "Бананы богаты калием."),
        ("谁设计了悉尼歌剧院？", "约恩·乌松。", "香蕉富含钾。"),
    ],
)
def test_relevancy_ranks_a_correct_short_answer_above_an_off_topic_one(
    question: str, correct: str, off_topic: str
) -> None:
    relevant, relevant_lines, _ = _evaluate(correct, question)
    unrelated, unrelated_lines, _ = _evaluate(off_topic, question)
    assert (relevant["response_relevancy"] or 0.0) >= 0.5 > (unrelated["response_relevancy"] or 0.0)
    assert relevant_lines["response_relevancy"].startswith("the questions the response answers are close to")
    assert unrelated_lines["response_relevancy"].startswith("the questions the response answers are far from")
