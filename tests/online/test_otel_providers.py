"""The OTel emitter with whatever processors the app chose: it runs on its own thread, so neither the SDK's batch
queue filling up nor an exporter that blocks ever holds up scoring, and it uses the SDK through its API only."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, InMemoryLogRecordExporter
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import ragmetrics_core.online.emitters as emitters_package
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from ragmetrics_core.online.types import Origin, SpanRef
from tests.online.conftest import paris_draft

MakeOnline = Callable[..., OnlinePipeline]


def _emitter_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("ragmetrics-emit-")}


def test_batch_processors_receive_spans_and_logs_from_the_emitters_own_thread(make_online: MakeOnline) -> None:
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(spans))
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(logs))
    online = make_online(emitters=[OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider)])
    try:
        for i in range(5):
            online.submit(paris_draft(), Origin(run_id=str(i)))  # no span: the RAG span is created too
        assert online.flush(timeout_s=10)
        assert "ragmetrics-emit-otel" in _emitter_threads()
        assert online.stats().emitters["otel"].emitted == 5
        assert online.stats().emitters["otel"].dropped == 0
        names = [span.name for span in spans.get_finished_spans()]
        assert names.count("ragmetrics.evaluation") == 5 and len(names) == 10
        assert len(logs.get_finished_logs()) == 5 * 4  # one event per metric
    finally:
        online.shutdown(timeout_s=5)
        tracer_provider.shutdown()
        logger_provider.shutdown()


class _HeldExporter(SpanExporter):
    """Blocks every export until released, so the processor's queue fills up."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.exporting = threading.Event()
        self.exported = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.exporting.set()
        self.release.wait(10)
        self.exported += len(spans)
        return SpanExportResult.SUCCESS


def test_a_full_sdk_queue_neither_stalls_scoring_nor_loses_our_count(make_online: MakeOnline) -> None:
    exporter = _HeldExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(exporter, max_queue_size=2, max_export_batch_size=1, schedule_delay_millis=60_000)
    )
    online = make_online(emitters=[OtelEmitter(tracer_provider=provider, log_events=False)], concurrency=1)
    try:
        online.submit(paris_draft(), Origin(run_id="0", span=SpanRef(0xABC, 1)))
        assert exporter.exporting.wait(10)
        for i in range(1, 10):
            online.submit(paris_draft(), Origin(run_id=str(i), span=SpanRef(0xABC, i + 1)))
        assert online.flush(timeout_s=0.5) is False  # the exporter holds on
        stats = online.stats()
        assert stats.completed == 10  # scored although the SDK's queue is full
        assert stats.emitters["otel"].emitted == 10  # handed over: what the SDK drops it counts in its own metrics
        exporter.release.set()
        assert online.flush(timeout_s=10)
        assert 1 <= exporter.exported <= 10
    finally:
        exporter.release.set()
        online.shutdown(timeout_s=5)
        provider.shutdown()


def test_no_emitter_reads_a_private_attribute_of_another_library() -> None:
    """Every ``obj._name`` read in the emitters is on ``self`` or on one of our own objects: the SDK's processors
    and queues (``_active_span_processor``, ``_batch_processor._queue``) are not part of its contract."""
    ours = {"self", "record", "subject", "entry", "claim", "state"}
    found = []
    for path in Path(emitters_package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value.id if isinstance(node.value, ast.Name) else ast.unparse(node.value)
                if owner not in ours:
                    found.append(f"{path.name}: {owner}.{node.attr}")
    assert found == []


def test_an_app_without_opentelemetry_providers_is_told_once_where_its_scores_did_not_go() -> None:
    """With no provider set, the API's placeholders drop every span and event; the emitter says so, once per kind,
    instead of counting them as emitted in silence. A fresh interpreter: the API's providers can be set only once."""
    root = Path(__file__).resolve().parents[2]
    script = """
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from tests.online.conftest import paris_draft
from tests.online.judges import ScriptedJudge

online = OnlinePipeline(Evaluator(judge=ScriptedJudge(), metrics=["faithfulness"]), emitters=[OtelEmitter()])
for _ in range(3):
    online.submit(paris_draft())
assert online.flush(30)
assert online.stats().emitters["otel"].emitted == 3
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "integrations")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env, cwd=root, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("ragmetrics")]
    assert len(lines) == 2, done.stderr
    assert "no OpenTelemetry tracer provider" in lines[0] and "set_tracer_provider" in lines[0]
    assert "no OpenTelemetry logger provider" in lines[1] and "log_events=False" in lines[1]


def test_providers_passed_or_set_globally_draw_no_warning(make_online: MakeOnline, caplog: Any) -> None:
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    online = make_online(emitters=[OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider)])
    try:
        with caplog.at_level("WARNING", logger="ragmetrics.online"):
            online.submit(paris_draft())
            assert online.flush(timeout_s=10)
        assert [r.getMessage() for r in caplog.records if "provider" in r.getMessage()] == []
    finally:
        online.shutdown(timeout_s=5)
        tracer_provider.shutdown()
        logger_provider.shutdown()
