"""The online token budget holds under a burst, and a timed-out evaluation is charged (issue #28.2).

The real LLM judge over HTTP against the fake OpenAI-compatible server on 127.0.0.1; the server's own count of
the tokens it billed is the measure. ``docs/online.md`` states the bound: the budget plus at most ``concurrency``
evaluations' cost.
"""

from __future__ import annotations

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.online import OnlinePipeline, Sampler
from tests.llm.fake_openai_server import FakeOpenAIServer, slow
from tests.llm.samples import ENGLISH

BUDGET = 5_000
CONCURRENCY = 4


def evaluator(server: FakeOpenAIServer) -> Evaluator:
    config = OpenAIJudgeConfig(
        model="fake-judge-1", base_url=server.base_url, api_key="sk-test-budget-0000000", timeout_s=10.0,
        embedding_model="fake-embedding", retry=RetryPolicy(max_attempts=1),
    )
    return Evaluator(judge=OpenAIJudge(config))


def billed(server: FakeOpenAIServer) -> int:
    return sum(call.prompt_tokens + call.completion_tokens for call in server.calls())


def test_two_hundred_submissions_at_once_stay_within_the_documented_bound() -> None:
    with FakeOpenAIServer() as server:
        evaluator(server).evaluate(ENGLISH)
        one_sample = billed(server)  # every submission below is this sample: each evaluation costs this much
        assert one_sample > 0
        server.reset()
        online = OnlinePipeline(
            evaluator(server), sampler=Sampler(token_budget_per_hour=BUDGET), concurrency=CONCURRENCY,
            max_queue=1000,
        )
        decisions = [online.submit(ENGLISH) for _ in range(200)]
        assert online.flush(timeout_s=60)
        stats = online.stats()
        spent = billed(server)
        assert online.shutdown(timeout_s=10)
    # Before: all 200 were accepted and run, 97x the budget.
    assert spent <= BUDGET + CONCURRENCY * one_sample, (spent, one_sample, stats)
    assert stats.completed <= BUDGET // one_sample + CONCURRENCY
    assert stats.over_budget >= 200 - (BUDGET // one_sample + CONCURRENCY)
    assert stats.balanced and stats.in_flight == 0 and stats.queued == 0
    assert stats.usage.total_tokens == spent  # what the pipeline charged is what the endpoint billed
    assert len(decisions) == 200


def test_once_the_cost_is_known_a_burst_is_refused_at_submit() -> None:
    with FakeOpenAIServer() as server:
        online = OnlinePipeline(
            evaluator(server), sampler=Sampler(token_budget_per_hour=20 * 2_500), concurrency=CONCURRENCY
        )
        online.submit(ENGLISH)
        assert online.flush(timeout_s=30)
        estimate = online.sampler.estimated_cost
        assert estimate > 0
        decisions = [online.submit(ENGLISH) for _ in range(200)]
        accepted = sum(decision.value == "evaluated" for decision in decisions)
        assert online.flush(timeout_s=60)
        stats = online.stats()
        assert online.shutdown(timeout_s=10)
    # Queued submissions count against the budget at their estimated cost: the queue never takes the whole burst.
    assert accepted <= (20 * 2_500) / estimate + 1
    assert stats.balanced


def test_an_evaluation_cut_by_the_timeout_is_charged_what_it_was_billed() -> None:
    budget = 100_000
    with FakeOpenAIServer() as server:
        # Extraction answers at once (billed); both checks hang past the evaluation timeout.
        server.inject("check_texts", slow(5.0))
        server.inject("check_chunks", slow(5.0))
        online = OnlinePipeline(
            evaluator(server), sampler=Sampler(token_budget_per_hour=budget), evaluation_timeout_s=1.0
        )
        online.submit(ENGLISH)
        assert online.flush(timeout_s=20)
        stats = online.stats()
        answered = billed(server)
        assert online.shutdown(timeout_s=10)
    assert stats.failure_reasons == {"timeout": 1}
    assert answered > 0
    # Before: 0 charged. Now: the answered call's tokens, plus the estimate of the two sent and never answered.
    assert stats.usage.total_tokens >= answered
    assert stats.usage.calls >= 3
    remaining = stats.budget_remaining
    assert remaining is not None and remaining <= budget - answered + 50  # (50: what the bucket refilled meanwhile)
