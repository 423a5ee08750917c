"""Emitters: JSONL, callbacks, and isolation of failing, hanging and unreachable ones."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ragmetrics_core.online import (
    CallbackEmitter,
    EvaluationRecord,
    JsonlEmitter,
    OnlinePipeline,
    OtelEmitter,
    PhoenixEmitter,
)
from ragmetrics_core.online.emitters.phoenix import NoSubjectSpanError
from ragmetrics_core.online.types import Origin
from tests.online.conftest import paris_draft
from tests.servers import free_port

MakeOnline = Callable[..., OnlinePipeline]


class Exploding:
    name = "exploding"

    def __init__(self) -> None:
        self.calls = 0

    def emit(self, record: EvaluationRecord) -> None:
        self.calls += 1
        raise ConnectionError("collector at http://user:sk-abcdefghijklmnopqrst@10.0.0.1 refused")

    def force_flush(self, timeout_s: float) -> bool:
        raise ConnectionError("still down")

    def shutdown(self, timeout_s: float) -> None:
        raise ConnectionError("still down")


class FlushCounting:
    name = "counting"

    def __init__(self) -> None:
        self.emitted = 0
        self.flushes = 0

    def emit(self, record: EvaluationRecord) -> None:
        self.emitted += 1

    def force_flush(self, timeout_s: float) -> bool:
        self.flushes += 1
        return True

    def shutdown(self, timeout_s: float) -> None:
        return None


class Hanging:
    name = "hanging"

    def __init__(self) -> None:
        self.release = threading.Event()

    def emit(self, record: EvaluationRecord) -> None:
        self.release.wait(30)

    def force_flush(self, timeout_s: float) -> bool:
        return True

    def shutdown(self, timeout_s: float) -> None:
        return None


def test_jsonl_writes_one_json_object_per_evaluation(make_online: MakeOnline, tmp_path: Path) -> None:
    path = tmp_path / "nested" / "scores.jsonl"
    online = make_online(emitters=[JsonlEmitter(path)])
    online.submit(paris_draft(), Origin(run_id="a", chain_name="qa", tags=("prod",)))
    online.submit(paris_draft(response=7), Origin(run_id="b"))
    assert online.shutdown(10)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    by_id = {line["sample_id"] or line["origin"]["run_id"]: line for line in lines}
    assert by_id["a"]["ok"] is True and by_id["a"]["scores"]["faithfulness"]["score"] == 0.5
    assert by_id["a"]["origin"] == {"framework": "manual", "chain_name": "qa", "run_id": "a", "tags": ["prod"]}
    assert by_id["a"]["sample"]["contexts"][0] == {"text": "Paris is in France.", "id": "doc-1", "score": 0.9}
    assert by_id["a"]["explanations"] and by_id["a"]["usage"]["calls"] == 2
    assert by_id["b"]["ok"] is False and "invalid sample" in by_id["b"]["error"]


async def test_callbacks_may_be_sync_or_async(make_online: MakeOnline) -> None:
    seen: list[str] = []

    async def async_callback(record: EvaluationRecord) -> None:
        seen.append(f"async:{record.sample_id}")

    online = make_online(
        emitters=[
            CallbackEmitter(lambda r: seen.append(f"sync:{r.sample_id}")),
            CallbackEmitter(async_callback, name="async"),
        ]
    )
    online.submit(paris_draft(), Origin(run_id="x"))
    assert await online.aflush(10)
    assert sorted(seen) == ["async:x", "sync:x"]
    assert set(online.stats().emitters) == {"callback", "async"}


def test_a_failing_emitter_never_stops_the_others(
    make_online: MakeOnline, caplog: pytest.LogCaptureFixture
) -> None:
    got: list[EvaluationRecord] = []
    exploding = Exploding()
    counting = FlushCounting()
    online = make_online(emitters=[exploding, CallbackEmitter(got.append), counting])
    for i in range(4):
        online.submit(paris_draft(), Origin(run_id=str(i)))
    assert online.flush(10) is False  # the exploding emitter could not flush, and flush says so
    assert counting.flushes == 1  # ...while the others were still flushed
    assert len(got) == 4 and exploding.calls == 4 and counting.emitted == 4
    stats = online.stats()
    assert stats.emitters["exploding"].failed == 4 and stats.emitters["callback"].emitted == 4
    assert stats.completed == 4  # the scores themselves are fine
    messages = [r.getMessage() for r in caplog.records if r.name == "ragmetrics.online"]
    assert any("exploding emit failed" in m for m in messages)
    assert sum("exploding emit failed" in m for m in messages) == 1  # rate-limited
    assert all("sk-abcdefghijklmnopqrst" not in m for m in messages)


def test_a_hanging_emitter_neither_blocks_the_others_nor_shutdown(make_online: MakeOnline) -> None:
    got: list[EvaluationRecord] = []
    hanging = Hanging()
    online = make_online(emitters=[hanging, CallbackEmitter(got.append)], emitter_queue=2)
    for i in range(6):  # one at a time, so only the hanging emitter's backlog can fill up
        online.submit(paris_draft(), Origin(run_id=str(i)))
        deadline = time.monotonic() + 10
        while len(got) <= i and time.monotonic() < deadline:
            time.sleep(0.005)
    assert len(got) == 6
    # One record stuck in emit, two queued behind it: the other three were dropped, not buffered.
    assert online.stats().emitters["hanging"].dropped == 3
    started = time.monotonic()
    assert online.shutdown(timeout_s=0.5) is False
    assert time.monotonic() - started < 1.5
    stats = online.stats()
    assert stats.completed == 6 and stats.balanced
    hanging.release.set()


def test_shutdown_with_an_unreachable_collector_returns_within_its_timeout(make_online: MakeOnline) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    dead = f"http://127.0.0.1:{free_port()}/v1/traces"  # nothing listens there
    provider = TracerProvider()
    # The exporter keeps retrying for 3 s, three times what we give shutdown.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=dead, timeout=3)))
    phoenix = PhoenixEmitter(base_url=f"http://127.0.0.1:{free_port()}")
    online = make_online(emitters=[OtelEmitter(tracer_provider=provider), phoenix])
    for i in range(20):
        online.submit(paris_draft(), Origin(run_id=str(i)))
    started = time.monotonic()
    online.shutdown(timeout_s=1.0)
    assert time.monotonic() - started < 1.8
    stats = online.stats()
    assert stats.completed == 20 and stats.balanced
    assert stats.emitters["phoenix"].failed == 20  # connection refused, counted per record
    provider.shutdown()


def test_phoenix_annotations_need_a_span_to_attach_to() -> None:
    from ragmetrics_core.online.types import SpanRef

    emitter = PhoenixEmitter(base_url="http://127.0.0.1:9", api_key="px-secret-key")
    assert "px-secret-key" not in repr(emitter)
    record = _record(subject=None)
    with pytest.raises(NoSubjectSpanError):
        emitter.annotations(record)
    payload = emitter.annotations(_record(subject=SpanRef(trace_id=1, span_id=0xBEEF)))
    assert {p["name"] for p in payload} == {"faithfulness", "context_recall"}
    faithfulness = next(p for p in payload if p["name"] == "faithfulness")
    assert faithfulness["span_id"] == "000000000000beef"
    assert faithfulness["annotator_kind"] == "CODE"  # judge "j" calls no model
    assert faithfulness["result"] == {"score": 0.75, "label": "pass", "explanation": "3 of 4 claims supported"}
    llm_judged = emitter.annotations(_record(subject=SpanRef(trace_id=1, span_id=0xBEEF), judge="openai:gpt-4o-mini"))
    assert {p["annotator_kind"] for p in llm_judged} == {"LLM"}
    ensemble = "ensemble[mean](openai:gpt-4o-mini, embedded)"
    assert {p["annotator_kind"] for p in emitter.annotations(_record(subject=SpanRef(1, 2), judge=ensemble))} == {"LLM"}
    assert {p["annotator_kind"] for p in PhoenixEmitter(annotator_kind="HUMAN").annotations(
        _record(subject=SpanRef(1, 2)))} == {"HUMAN"}
    undetermined = next(p for p in payload if p["name"] == "context_recall")
    assert undetermined["result"] == {"label": "undetermined", "explanation": "no reference"}


def _record(subject: object, judge: str = "j") -> EvaluationRecord:
    from ragmetrics_core.judges.base import Usage
    from ragmetrics_core.online.sampler import SamplingDecision
    from ragmetrics_core.results import Direction, EvaluationResult, MetricScore

    scores = {
        "faithfulness": MetricScore(
            metric="faithfulness", score=0.75, direction=Direction.HIGHER_IS_BETTER, label="pass",
            threshold=0.5, reason="3 of 4 claims supported",
        ),
        "context_recall": MetricScore(
            metric="context_recall", score=None, direction=Direction.HIGHER_IS_BETTER, reason="no reference"
        ),
    }
    return EvaluationRecord(
        record_id="r", origin=Origin(), decision=SamplingDecision.EVALUATED, route="default", rate=1.0,
        subject=subject,  # type: ignore[arg-type]
        sample_id=None, sample=None, result=EvaluationResult(judge=judge, scores=scores), error=None,
        judge=judge, usage=Usage(), submitted_ns=0, started_ns=0, finished_ns=0,
    )
