"""Every billed token reaches the sample's usage, failed attempts included, so cost lines and budgets see it."""

from __future__ import annotations

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, Sampler
from ragmetrics_core.online.types import ContextDraft, Origin, SampleDraft
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import FakeOpenAIServer, malformed
from tests.llm.samples import ENGLISH


async def test_unusable_answers_are_charged_to_the_sample(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    server.inject("extract", malformed(), malformed())  # 200 with tokens, twice unusable
    judge = make_judge()
    result = await Evaluator(judge=judge, metrics=["faithfulness"]).aevaluate(ENGLISH)
    assert result.score("faithfulness") is None
    billed = server.calls("extract")
    assert len(billed) == 2
    assert result.usage.calls == 2
    assert result.usage.prompt_tokens == sum(call.prompt_tokens for call in billed) > 0
    assert result.usage.completion_tokens == sum(call.completion_tokens for call in billed) > 0
    assert judge.usage.prompt_tokens == result.usage.prompt_tokens  # the judge's own total agrees


async def test_a_failed_check_charges_the_concurrent_call_that_answered(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("check_chunks", malformed(), malformed())
    result = await Evaluator(judge=make_judge(), metrics=["faithfulness", "overall_precision"]).aevaluate(ENGLISH)
    paid = server.calls()
    assert result.usage.prompt_tokens == sum(call.prompt_tokens for call in paid)
    assert result.usage.calls == len([call for call in paid if call.task != "embeddings"])


def test_the_online_token_budget_is_charged_for_bad_answers(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    server.inject("any", *[malformed() for _ in range(100)])  # every answer unusable, every answer billed
    online = OnlinePipeline(
        Evaluator(judge=make_judge(), metrics=["faithfulness"]), sampler=Sampler(token_budget_per_hour=3000)
    )
    try:
        decisions = []
        for i in range(6):
            contexts = [ContextDraft(text) for text in ENGLISH.context_texts]
            draft = SampleDraft(user_input=f"q{i}", contexts=contexts, response=ENGLISH.response)
            decisions.append(online.submit(draft, Origin(run_id=str(i))))
            assert online.flush(30)
        stats = online.stats()
        assert stats.usage.prompt_tokens > 0  # failed samples' tokens are counted
        assert stats.over_budget > 0, decisions  # later samples refused once the bad answers spent the budget
        assert stats.budget_remaining is not None and stats.budget_remaining < 3000
    finally:
        online.shutdown(timeout_s=5)
