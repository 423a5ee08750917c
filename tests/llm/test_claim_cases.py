"""The LLM judge on the claim case table: its extraction prompt states the rules a person follows (what is no
claim, when a fragment is completed, what a pronoun stands for) with an example, and the claims a model that
follows them returns (scripted on the fake endpoint, row by row) come through the real client as the table
expects, in English, Russian and Chinese."""

from __future__ import annotations

import json

import pytest

from ragmetrics_core.engine import Evaluator
from tests.claim_cases import Case, cases, claim_problems
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import Answer, FakeOpenAIServer, Fault

CASES = cases()
METRICS = ["faithfulness", "overall_precision", "overall_recall"]


def _following_the_rules(case: Case) -> Fault:
    """The extraction answer of a model that writes the claims down as the prompt says: the table's claims."""

    def rewrite(answer: Answer) -> str:
        return json.dumps({**answer, "response_claims": case.row["response_claims"],
                           "reference_claims": case.row["reference_claims"]}, ensure_ascii=False)

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
