"""A user's judge that raises is logged like the judge's own failures: rate-limited, one line, no secret."""

from __future__ import annotations

import logging

import pytest

from ragmetrics_core import Evaluator, RagSample, engine
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, SimilarityResult

KEY = "sk-live-THISISASECRETKEY1234567890"


class LeakyJudge:
    """Fails every extraction with a message that quotes its API key, as some HTTP clients do."""

    name = "custom"

    async def extract(self, request: ExtractionRequest) -> Extraction:
        raise RuntimeError(f"upstream said 401 for Authorization: Bearer {KEY}")

    async def check(self, request: CheckRequest) -> CheckResult:
        raise AssertionError("not reached")

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        raise AssertionError("not reached")


@pytest.fixture(autouse=True)
def fresh_failure_log() -> None:
    engine._failures.reset()  # the limiter is per process: earlier tests must not have used up the interval


def test_a_thousand_failing_samples_log_a_handful_of_lines_and_no_key(caplog: pytest.LogCaptureFixture) -> None:
    samples = [RagSample(user_input=f"q{i}", response=f"a{i}", retrieved_contexts=["c"]) for i in range(1000)]
    with caplog.at_level(logging.WARNING, logger="ragmetrics_core"):
        results = Evaluator(judge=LeakyJudge()).evaluate_many(samples, concurrency=8, progress=False)
    assert len(results) == 1000
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert 1 <= len(warnings) <= 3
    assert all(record.exc_info is None for record in warnings)  # no traceback at warning level
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert KEY not in logged
    assert "RuntimeError" in logged
    for result in results:
        reasons = [score.reason for score in result.scores.values()]
        assert all(KEY not in reason for reason in reasons)
        assert any("RuntimeError" in reason and "[redacted]" in reason for reason in reasons)


def test_the_traceback_is_kept_at_debug_level_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="ragmetrics_core"):
        Evaluator(judge=LeakyJudge()).evaluate(RagSample(user_input="q", response="a", retrieved_contexts=["c"]))
    debug = [record.getMessage() for record in caplog.records if record.levelno == logging.DEBUG]
    assert any("Traceback" in message for message in debug)
    assert all(KEY not in message for message in debug)
