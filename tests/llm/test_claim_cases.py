"""The LLM judge on the claim case table: its extraction prompt states the rules a person follows (what is no
claim and why, when a fragment is completed, what a pronoun stands for) with an example, and the claims and
set-aside pieces a model that follows them returns (scripted on the fake endpoint, row by row) come through the
real client as the table expects, in English, Russian and Chinese: set-aside pieces recorded with their reasons,
counted nowhere."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import EvidencePart
from ragmetrics_core.judges.base import ExtractionRequest
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.judges.openai.schemas import EXTRACTION_SCHEMA, SET_ASIDE_REASONS
from tests.claim_cases import Case, cases, claim_problems
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import Answer, FakeOpenAIServer, Fault

CASES = cases()
METRICS = ["faithfulness", "overall_precision", "overall_recall"]


def _set_aside(case: Case) -> list[dict[str, str]]:
    """What a model following the same rules sets aside in the row's response and reference, with the texts the
    embedded judge (the rules written as code) gives."""
    row = case.row
    request = ExtractionRequest(
        user_input=row["question"], response=row["response"], reference=row["reference"],
        want=frozenset({EvidencePart.RESPONSE_CLAIMS, EvidencePart.REFERENCE_CLAIMS}),
    )
    extraction = asyncio.run(EmbeddedJudge().extract(request))
    return [{"source": piece.source, "text": piece.text, "reason": piece.reason} for piece in extraction.skipped or []]


SET_ASIDE = {case.id: _set_aside(case) for case in CASES}


def _following_the_rules(case: Case, **more: Any) -> Fault:
    """The extraction answer of a model that writes the claims down as the prompt says: the table's claims, and
    what it set aside with the reasons the table expects."""

    def rewrite(answer: Answer) -> str:
        written = {"response_claims": case.row["response_claims"], "reference_claims": case.row["reference_claims"],
                   "set_aside": SET_ASIDE[case.id], **more}
        return json.dumps({**answer, **written}, ensure_ascii=False)

    return Fault(rewrite=rewrite)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_the_llm_judge_extracts_the_claims_a_person_writes_down(
    case: Case, make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", _following_the_rules(case))
    result = await Evaluator(judge=make_judge(), metrics=METRICS).aevaluate(case.sample)
    assert not claim_problems(case, result)
    extract = server.calls("extract")[0]
    assert extract.payload["user_input"] == case.row["question"]
    assert extract.payload["response"] == case.row["response"]
    # What was set aside is recorded with its reason: the table's reasons for the response, in order.
    skipped = result.evidence.skipped
    assert skipped is not None
    assert [piece.model_dump() for piece in skipped] == SET_ASIDE[case.id]
    assert [piece.reason for piece in skipped if piece.source == "response"] == case.row.get("skipped", [])
    shown = [(claim.text, claim.set_aside) for claim in result.explanations if claim.set_aside is not None]
    assert shown == [(piece.text, piece.reason) for piece in skipped]


def test_the_table_sets_aside_pieces_in_every_language() -> None:
    """The scripted answers are not empty: rows in each language set aside pieces, of most reasons."""
    by_language = {lang: sum(bool(SET_ASIDE[case.id]) for case in CASES if case.row["lang"] == lang)
                   for lang in ("en", "ru", "zh")}
    assert min(by_language.values()) >= 5, by_language
    reasons = {piece["reason"] for pieces in SET_ASIDE.values() for piece in pieces}
    assert reasons <= set(SET_ASIDE_REASONS) and len(reasons) >= 7, reasons


async def test_set_aside_pieces_count_nowhere(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    """The same claims with and without set-aside pieces score the same; only the explanations differ."""
    case = next(case for case in CASES if case.id == "en-courtesy-around-answer")
    server.inject("extract", _following_the_rules(case), _following_the_rules(case, set_aside=[]))
    judge = make_judge()
    with_pieces = await Evaluator(judge=judge, metrics=METRICS).aevaluate(case.sample)
    without = await Evaluator(judge=judge, metrics=METRICS).aevaluate(case.sample)
    assert [piece.reason for piece in with_pieces.evidence.skipped or []] == ["praise of the question", "wish"]
    assert without.evidence.skipped == []
    assert with_pieces.values() == without.values()
    assert [claim.text for claim in with_pieces.explanations if claim.set_aside is None] == \
        [claim.text for claim in without.explanations]


async def test_unreadable_or_unasked_set_aside_pieces_are_dropped_not_fatal(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    """A piece without a reason, of another shape, blank, or from a text whose claims were not asked for costs only
    itself: the claims are still read, in one call."""
    case = next(case for case in CASES if case.id == "en-courtesy-around-answer")
    pieces = [
        {"source": "response", "text": "Great question!", "reason": "praise of the question"},
        {"source": "response", "text": "Hi"},  # no reason
        "Hope this helps",  # not an object
        {"source": "response", "text": "  ", "reason": "wish"},  # blank
        {"source": "question", "text": "Who?", "reason": "greeting"},  # no such source
        {"source": "response", "text": "Sure", "reason": "a model's own reason"},  # kept as given
    ]
    server.inject("extract", _following_the_rules(case, set_aside=pieces))
    result = await Evaluator(judge=make_judge(), metrics=["faithfulness"]).aevaluate(case.sample)
    assert not result.error
    assert [(piece.text, piece.reason) for piece in result.evidence.skipped or []] == [
        ("Great question!", "praise of the question"), ("Sure", "a model's own reason"),
    ]
    assert len(server.calls("extract")) == 1
    # Only the response's claims were asked for (faithfulness): a piece of the reference is not recorded either.
    server.inject("extract", _following_the_rules(
        case, set_aside=[{"source": "reference", "text": "Indeed", "reason": "acknowledgement"}]
    ))
    only_response = await Evaluator(judge=make_judge(), metrics=["faithfulness"]).aevaluate(case.sample)
    assert only_response.evidence.skipped == []


def test_the_schema_asks_for_set_aside_pieces_with_a_reason_from_the_list() -> None:
    piece = EXTRACTION_SCHEMA["$defs"]["SetAsidePiece"]
    assert EXTRACTION_SCHEMA["properties"]["set_aside"]["items"] == {"$ref": "#/$defs/SetAsidePiece"}
    assert piece["required"] == ["source", "text", "reason"] and piece["additionalProperties"] is False
    assert piece["properties"]["reason"]["enum"] == list(SET_ASIDE_REASONS)
    assert piece["properties"]["source"]["enum"] == ["response", "reference"]


def _prompt(server: FakeOpenAIServer) -> str:
    return " ".join(server.calls("extract")[0].system_text.split())


async def test_the_extraction_prompt_states_the_rules_with_an_example(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    await Evaluator(judge=make_judge(), metrics=METRICS).aevaluate(CASES[0].sample)
    prompt = _prompt(server)
    for rule in (
        "Not claims: greetings, thanks, praise of the question",  # courtesy
        "according to the provided context",  # remarks about the sources, in each language
        "согласно предоставленным документам",
        "根据提供的资料",
        "A hedge around a claim keeps the claim",
        "a phrase that changes the meaning stays in the claim",
        "complete it from the question only when it is a fragment",
        "A sentence with its own verb is never joined to the question",
        '"it" (оно/его, 它) stands for what the question asks about',
        "a pronoun with no such antecedent stays as written",
    ):
        assert rule in prompt, rule
    # What is left out is returned with its reason, each reason named, and the example says what it sets aside.
    assert "set_aside, done with the claims tasks listed" in prompt
    assert all(reason in prompt for reason in SET_ASIDE_REASONS)
    assert '"Great question" (praise of the question), "According to the documents" (remark about the sources)' \
        in prompt
    # The worked example is the table's pronoun row, with courtesy and a remark about the sources around it.
    assert '"Jørn Utzon designed the Sydney Opera House." and "The Sydney Opera House opened in 1973."' in prompt
    assert '"The Eiffel Tower." gives "The Eiffel Tower is taller than Big Ben."' in prompt
    assert '"Bananas are rich in potassium." gives "Bananas are rich in potassium."' in prompt


async def test_claims_of_a_model_that_keeps_courtesy_are_counted_against_it(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    """The table is not met by any answer: the fake model's own sentence split keeps "Great question!" and the
    question-less fragment, and the comparison with the table says so."""
    case = next(case for case in CASES if case.id == "en-courtesy-around-answer")
    result = await Evaluator(judge=make_judge(), metrics=METRICS).aevaluate(case.sample)
    assert any("Great question" in problem for problem in claim_problems(case, result))
