"""Fail fast on a dead endpoint: after a few connection failures in a row the endpoint is not called again."""

from __future__ import annotations

import time

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.judges.openai.client import _Circuit
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import FakeOpenAIServer, server_error
from tests.llm.samples import ENGLISH


def test_a_hundred_samples_against_a_closed_port_finish_within_seconds() -> None:
    judge = OpenAIJudge(OpenAIJudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-test-123456789"))
    started = time.monotonic()
    results = Evaluator(judge=judge, metrics=["faithfulness"]).evaluate_many(
        [ENGLISH.model_copy(update={"id": str(i)}) for i in range(100)], concurrency=4, progress=False
    )
    assert time.monotonic() - started < 10
    reasons = [result.scores["faithfulness"].reason for result in results]
    assert all(result.score("faithfulness") is None for result in results)
    assert sum("endpoint unreachable" in reason for reason in reasons) >= 90  # most never call it at all
    assert all("sk-test" not in reason for reason in reasons)


def test_the_circuit_opens_on_connection_failures_and_a_later_success_closes_it() -> None:
    clock = [0.0]
    circuit = _Circuit(threshold=3, cool_down_s=30.0, now=lambda: clock[0])
    for _ in range(2):
        circuit.connection_failed()
    assert circuit.refusal() is None  # two failures: still calling
    circuit.connection_failed()
    refusal = circuit.refusal()
    assert refusal is not None and "endpoint unreachable" in refusal
    clock[0] = 31.0
    assert circuit.refusal() is None  # one probe after the cool-down
    assert circuit.refusal() is not None  # the others wait for the probe's outcome
    circuit.answered()
    assert circuit.refusal() is None  # the probe answered: closed
    circuit.connection_failed()
    assert circuit.refusal() is None  # the count starts over


async def test_http_errors_prove_the_endpoint_is_there_and_never_open_the_circuit(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("any", *[server_error(503) for _ in range(4)])  # more than the threshold, all answered
    judge = make_judge(retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0))
    evaluator = Evaluator(judge=judge, metrics=["faithfulness"])
    for _ in range(2):
        failed = await evaluator.aevaluate(ENGLISH)
        assert "HTTP 503" in failed.scores["faithfulness"].reason
    answered = await evaluator.aevaluate(ENGLISH)
    assert answered.score("faithfulness") is not None  # still called: no "endpoint unreachable"
