"""A dead endpoint fails fast and says so (issue #27.7); one sample's calls keep a per-sample deadline (#28.5)."""

from __future__ import annotations

import socket
import time

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from tests.llm.fake_openai_server import FakeOpenAIServer, server_error
from tests.llm.samples import ENGLISH


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_refused_connection_is_not_retried_for_seconds_and_the_result_says_why() -> None:
    config = OpenAIJudgeConfig(
        model="m", base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key="sk-test-dead-000000000",
        embedding_model="e",
    )
    assert config.retry.max_attempts == 5 and config.retry.initial_delay_s == 2.0  # the defaults: 2+4+8 s before
    started = time.monotonic()
    result = Evaluator(judge=OpenAIJudge(config)).evaluate(ENGLISH)
    elapsed = time.monotonic() - started
    assert elapsed < 2.0, elapsed  # was 15.7 s: backoff 2 + 4 + 8 s on a port where nothing listens
    assert all(score.score is None for score in result.scores.values())
    assert result.error is not None  # was None: the scores were missing without a word
    assert "connection refused" in result.error and "check the URL" in result.error
    assert "sk-test-dead" not in result.error


def test_server_errors_are_still_retried() -> None:
    with FakeOpenAIServer() as server:
        server.inject("extract", server_error(503), server_error(502))
        config = OpenAIJudgeConfig(
            model="m", base_url=server.base_url, api_key="sk-test-retry-0000000",
            retry=RetryPolicy(initial_delay_s=0.01),
        )
        result = Evaluator(judge=OpenAIJudge(config), metrics=["faithfulness"]).evaluate(ENGLISH)
        assert len(server.calls("extract")) == 3
    assert result.score("faithfulness") is not None and result.error is None


def test_the_default_per_sample_bound_is_the_one_documented() -> None:
    config = OpenAIJudgeConfig(model="m", timeout_s=10.0, retry=RetryPolicy(max_attempts=3, initial_delay_s=1.0))
    assert config.sample_deadline_s == 10.0 * 3 + (1.0 + 2.0)
    assert OpenAIJudgeConfig(model="m", sample_timeout_s=7.5).sample_deadline_s == 7.5


def test_one_samples_calls_together_keep_the_per_sample_deadline() -> None:
    # Every answer takes 1 s: extraction, then the checks, then the embeddings make 3 s for one sample, each call
    # well inside its own 3 s timeout. The sample's deadline, 1.5 s, stops it.
    with FakeOpenAIServer(latency_s=1.0) as server:
        config = OpenAIJudgeConfig(
            model="m", base_url=server.base_url, api_key="sk-test-deadline-00000", timeout_s=3.0,
            sample_timeout_s=1.5, embedding_model="e", retry=RetryPolicy(max_attempts=2, initial_delay_s=0.1),
        )
        started = time.monotonic()
        result = Evaluator(judge=OpenAIJudge(config)).evaluate(ENGLISH)
        elapsed = time.monotonic() - started
    assert elapsed < 1.5 + 0.7, elapsed  # was 3 s and more
    assert result.evidence.response_claims  # the extraction, inside the deadline, is kept
    reasons = " ".join(result.evidence.errors.values())
    assert "sample deadline" in reasons


def test_a_sample_within_its_deadline_is_untouched() -> None:
    with FakeOpenAIServer(latency_s=0.05) as server:
        config = OpenAIJudgeConfig(
            model="m", base_url=server.base_url, api_key="sk-test-deadline-00001", timeout_s=3.0,
            sample_timeout_s=3.0, embedding_model="e",
        )
        evaluator = Evaluator(judge=OpenAIJudge(config))
        results = evaluator.evaluate_many([ENGLISH] * 3, concurrency=3, progress=False)
    assert all(result.error is None and not result.evidence.errors for result in results)
