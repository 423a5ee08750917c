"""No exception from an evaluator kills the online worker, and a CPU-bound judge cannot starve the queue."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.budget import checkpoint, metered
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, SimilarityResult
from ragmetrics_core.online import CallbackEmitter, EvaluationRecord, OnlinePipeline
from ragmetrics_core.online.types import Origin
from ragmetrics_core.results import EvaluationResult
from tests.online.conftest import paris_draft
from tests.online.judges import ScriptedJudge

POISON = "poison"


class Raising:
    """An evaluator that raises ``error`` for the poisoned sample and scores the others normally."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.inner = Evaluator(judge=ScriptedJudge(), metrics=["faithfulness"])
        self.metrics = self.inner.metrics

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        if sample.user_input == POISON:
            raise self.error
        return await self.inner.aevaluate(sample)


@pytest.mark.parametrize(
    "error",
    [SystemExit(3), KeyboardInterrupt(), GeneratorExit(), asyncio.CancelledError()],
    ids=["SystemExit", "KeyboardInterrupt", "GeneratorExit", "CancelledError"],
)
def test_the_worker_survives_any_exception_and_records_a_failed_sample(error: BaseException) -> None:
    records: list[EvaluationRecord] = []
    online = OnlinePipeline(Raising(error), emitters=[CallbackEmitter(records.append)])
    try:
        online.submit(paris_draft(user_input=POISON), Origin(run_id="bad"))
        for i in range(5):
            online.submit(paris_draft(), Origin(run_id=f"good-{i}"))
        assert online.flush(10)  # nothing stays in flight
        stats = online.stats()
        assert stats.completed == 5 and stats.failed == 1
        [failed] = [record for record in records if not record.ok]
        assert type(error).__name__ in (failed.error or "")
        online.submit(paris_draft(), Origin(run_id="later"))  # the worker is still alive
        assert online.flush(10) and online.stats().completed == 6
    finally:
        assert online.shutdown(timeout_s=5)  # nothing was lost: a truthful True


class Spinning:
    """A CPU-bound in-process judge: the poisoned sample's extraction never ends on its own (it checks its budget
    between steps, as the embedded judge does); the others are answered at once."""

    name = "spinning"

    def __init__(self) -> None:
        self.inner = ScriptedJudge()

    async def extract(self, request: ExtractionRequest) -> Extraction:
        if request.user_input == POISON:
            with metered():
                while True:
                    sum(range(2000))
                    checkpoint()
        return await self.inner.extract(request)

    async def check(self, request: CheckRequest) -> CheckResult:
        return await self.inner.check(request)

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        return await self.inner.similarity(question, candidates)


def test_a_cpu_bound_sample_stops_at_the_timeout_and_does_not_starve_the_queue() -> None:
    records: list[EvaluationRecord] = []
    evaluator = Evaluator(judge=Spinning(), metrics=["faithfulness"])
    online = OnlinePipeline(evaluator, emitters=[CallbackEmitter(records.append)], evaluation_timeout_s=0.3)
    try:
        online.submit(paris_draft(user_input=POISON), Origin(run_id="spinner"))
        for i in range(50):
            online.submit(paris_draft(), Origin(run_id=f"good-{i}"))
        assert online.flush(30)
        by_id = {record.sample_id: record for record in records}
        assert all(by_id[f"good-{i}"].ok for i in range(50))
        spinner = by_id["spinner"]
        assert spinner.result is not None
        assert "evaluation budget exceeded" in spinner.result.scores["faithfulness"].reason
    finally:
        online.shutdown(timeout_s=2)


def test_shutdown_stops_a_judge_busy_in_synchronous_work() -> None:
    evaluator = Evaluator(judge=Spinning(), metrics=["faithfulness"])
    online = OnlinePipeline(evaluator, evaluation_timeout_s=None)  # no budget: only shutdown can stop it
    earlier = set(threading.enumerate())  # e.g. the integrations' shared default pipeline, up for the whole process
    online.submit(paris_draft(user_input=POISON), Origin(run_id="spinner"))
    time.sleep(0.3)
    started = time.monotonic()
    assert online.shutdown(timeout_s=2) is False  # the sample was cut short: reported, not hidden
    assert time.monotonic() - started < 2.5
    assert online.stats().failed == 1
    time.sleep(0.2)
    # The judge stopped at its next checkpoint: no worker thread is left burning CPU after shutdown returned.
    started_here = set(threading.enumerate()) - earlier
    assert not any(thread.name == "ragmetrics-online" and thread.is_alive() for thread in started_here)


def test_the_evaluator_takes_a_cpu_budget_of_its_own() -> None:
    result = Evaluator(judge=Spinning(), metrics=["faithfulness"], cpu_budget_s=0.2).evaluate(
        RagSample(user_input=POISON, response="r", retrieved_contexts=["c"])
    )
    assert result.score("faithfulness") is None
    assert "evaluation budget exceeded" in result.scores["faithfulness"].reason
    with pytest.raises(ValueError):
        Evaluator(cpu_budget_s=0)


def test_scoring_never_waits_on_a_blocking_exporter() -> None:
    """The app's SimpleSpanProcessor exports on the thread that ends a span; with the collector unreachable each
    export blocks for seconds. The RAG spans ragmetrics creates for untraced runs are ended on the emitter's
    thread, so the 100 samples are all scored within seconds (0 of 100 were, when the worker ended them)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from ragmetrics_core.online import OtelEmitter

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint="http://127.0.0.1:9/v1/traces",
                                                                     timeout=3)))
    evaluator = Evaluator(judge=ScriptedJudge(), metrics=["faithfulness"])
    online = OnlinePipeline(evaluator, emitters=[OtelEmitter(tracer_provider=provider, log_events=False)])
    try:
        for i in range(100):
            online.submit(paris_draft(), Origin(run_id=str(i)))  # no trace id: ragmetrics creates the RAG span
        deadline = time.monotonic() + 5
        while online.stats().completed < 100 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert online.stats().completed == 100
    finally:
        online.shutdown(timeout_s=1)
