"""The embedded judge never raises on any text, reads numbers in every grouping, runs in bounded time on
adversarial text, and stops at its CPU budget."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.budget import EvaluationBudgetExceeded, cpu_budget
from ragmetrics_core.evidence import EvidencePart
from ragmetrics_core.judges.base import CheckRequest
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.judges.embedded.numbers import parse_number
from ragmetrics_core.judges.embedded.segment import sentences
from ragmetrics_core.judges.embedded.terms import terms

RUSSIAN_FIGURES = "Выручка составила 286,723 213,723 210,851 172,566 175,163 тыс. рублей по годам."


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("286,723 213,723 210,851 172,566 175,163", [286723, 213723, 210851, 172566, 175163]),
        ("7,570 376.4", [7570, 376.4]),
        ("1 000 000,5", [1000000.5]),
        ("15\u00a0000\u00a0000 people", [15000000]),
        ("1,083 feet", [1083]),
        ("3.14 and 3,5", [3.14, 3.5]),
        ("١٢٣ and １２３", [123, 123]),
    ],
)
def test_numbers_in_every_grouping_are_read(text: str, values: list[float]) -> None:
    assert [number.value for number in terms(text).numbers] == pytest.approx(values)


@pytest.mark.parametrize(
    "text",
    ["1,000\u00a0000.5", "Выручка 7 570,376.4", "1," + ",".join(["000"] * 40), "9" * 500, "12,345.678.9"],
)
def test_unreadable_number_tokens_degrade_one_term(text: str) -> None:
    keys = set(terms(f"Revenue was {text} dollars").weights)
    # The words around the token are still read, whatever became of the token.
    assert any(key.startswith("reven") for key in keys)
    assert any(key.startswith("dollar") for key in keys)


def test_parse_number_returns_none_for_what_it_cannot_read() -> None:
    assert parse_number("1.000.000.5") is None
    assert parse_number("1,000,000") == 1_000_000
    assert parse_number("2,5") == 2.5


def test_a_russian_context_with_grouped_figures_keeps_every_score() -> None:
    sample = RagSample(
        user_input="Какая выручка?", retrieved_contexts=[RUSSIAN_FIGURES],
        response="Выручка составила 286,723 тыс. рублей.", reference="Выручка составила 286,723 тыс. рублей.",
    )
    result = Evaluator().evaluate(sample)
    assert not result.evidence.errors
    assert result.values()["faithfulness"] is not None


@pytest.mark.timeout(60)
@pytest.mark.parametrize("run", ["." * 200_000, "…" * 200_000, ".!?…。！？；" * 25_000])
def test_sentence_splitting_is_linear_on_runs_of_marks(run: str) -> None:
    # Quadratic before: 25k dots took 15 s, so 200k would take about 15 minutes.
    assert len(sentences(f"Start. {run} End.")) <= 4000


@pytest.mark.parametrize("unit", ["Paris London Berlin ", "U.S. ", "Life Insurance Corporation of India "])
def test_a_run_of_capitalised_words_gives_a_bounded_number_of_terms(unit: str) -> None:
    # Quadratic before: every prefix of the run's initials was a term (2,000 words gave about 2,000 terms, each
    # up to 2,000 characters: 200k characters took 526 MB). The run is kept under the term cache's length cap
    # so that the measure is of the terms themselves.
    short, long = terms(unit * 30), terms(unit * 300)
    assert len(long.weights) == len(short.weights) <= 20
    assert max(map(len, long.weights)) <= 64


def test_the_initials_of_a_long_run_still_match_a_short_acronym() -> None:
    assert "lic" in terms("Life Insurance Corporation " * 50).weights


_numberish = st.from_regex(
    r"[0-9٠-٩０-９]{1,5}([ ,.\u00a0\u202f\u2009][0-9٠-٩]{1,4}){0,6}(e[0-9]{1,6})?", fullmatch=True
)
_text = st.lists(st.one_of(st.text(max_size=40), _numberish), max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(question=_text, contexts=st.lists(_text, max_size=3), response=_text, reference=st.one_of(st.none(), _text))
def test_the_evaluator_never_raises_on_any_text(
    question: str, contexts: list[str], response: str, reference: str | None
) -> None:
    result = Evaluator().evaluate(
        RagSample(user_input=question, retrieved_contexts=contexts, response=response, reference=reference)
    )
    assert not result.evidence.errors, result.evidence.errors
    for score in result.scores.values():
        assert score.score is not None or score.reason, score  # determined, or undetermined with a reason


def test_the_judge_stops_at_its_cpu_budget() -> None:
    judge = EmbeddedJudge()
    request = CheckRequest(
        response="x", reference=None, contexts=["The tower was built in 1889. " * 20_000] * 4,
        response_claims=[], reference_claims=[], reference_entities=[],
        want=frozenset({EvidencePart.ENTITIES_IN_CONTEXTS}),
    )

    async def run() -> None:
        with cpu_budget(0.05):
            await judge.check(request)

    with pytest.raises(EvaluationBudgetExceeded):
        asyncio.run(run())
