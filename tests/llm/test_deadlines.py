"""Every LLM request has an overall deadline, and a 200 that is not an API answer is a fault to retry."""

from __future__ import annotations

import time

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import RetryPolicy
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import FakeOpenAIServer, html_page, trickling
from tests.llm.samples import ENGLISH


async def test_an_endpoint_that_trickles_its_answer_is_cut_at_the_deadline(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", trickling(0.2), trickling(0.2))  # each byte in time, the whole answer never
    judge = make_judge(timeout_s=1.0, retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0))
    started = time.monotonic()
    result = await Evaluator(judge=judge, metrics=["faithfulness"]).aevaluate(ENGLISH)
    elapsed = time.monotonic() - started
    assert elapsed < 2 * 1.0 + 1.5  # two attempts of one second each, plus scheduling
    assert result.score("faithfulness") is None
    assert "timed out after 1 s without a complete answer" in result.scores["faithfulness"].reason
    assert result.usage.calls == 2


async def test_a_200_with_an_html_page_is_retried_as_a_transport_fault(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", html_page())  # a proxy's error page once, then the real answer
    result = await Evaluator(judge=make_judge(), metrics=["faithfulness"]).aevaluate(ENGLISH)
    assert result.score("faithfulness") is not None
    assert len(server.calls("extract")) == 2


async def test_an_html_page_every_time_fails_the_stage_with_a_clear_reason(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", *[html_page() for _ in range(5)])
    judge = make_judge(retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0))
    result = await Evaluator(judge=judge, metrics=["faithfulness"]).aevaluate(ENGLISH)
    reason = result.scores["faithfulness"].reason
    assert "not a chat completion" in reason and "502 Bad Gateway" in reason
    assert "AttributeError" not in reason
