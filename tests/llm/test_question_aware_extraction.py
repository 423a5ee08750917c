"""The LLM judge's extraction prompt asks for short answers completed from the question, and the claims the
model returns that way flow through to the verdicts."""

from __future__ import annotations

import json

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.sample import RagSample
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import Answer, FakeOpenAIServer, Fault

SAMPLE = RagSample(
    user_input="What is the capital of Australia?",
    retrieved_contexts=["Canberra is the capital of Australia.", "Sydney is the largest city in Australia."],
    response="Canberra.",
    reference="The capital of Australia is Canberra.",
)


def _completing_model(answer: Answer) -> str:
    """A model that follows the rule: the bare answer comes back as the full statement."""
    completed = dict(answer)
    completed["response_claims"] = ["The capital of Australia is Canberra."]
    return json.dumps(completed)


async def test_the_extraction_prompt_says_to_complete_a_short_answer_from_the_question(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    await Evaluator(judge=make_judge(), metrics=["faithfulness"]).aevaluate(SAMPLE)
    extract = server.calls("extract")[0]
    assert '"Canberra." gives "The capital of Australia is Canberra."' in " ".join(extract.system_text.split())
    assert "declines" in extract.system_text
    assert extract.payload["user_input"] == SAMPLE.user_input
    assert extract.payload["response"] == "Canberra."


async def test_completed_claims_are_checked_against_the_contexts_and_the_reference(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", Fault(rewrite=_completing_model))
    result = await Evaluator(judge=make_judge()).aevaluate(SAMPLE)
    assert [claim.text for claim in result.evidence.response_claims or []] == ["The capital of Australia is Canberra."]
    values = result.values()
    assert values["faithfulness"] == 1.0
    assert values["overall_precision"] == 1.0
