"""The OTel emitter in front of the SDK's batch processors needs no queue or thread of its own."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.online import OnlineEvaluator, OtelEmitter
from ragmetrics_core.online.types import Origin, SpanRef
from tests.online.conftest import paris_draft

MakeOnline = Callable[..., OnlineEvaluator]


def _emitter_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("ragmetrics-emit-")}


def test_batch_processors_are_handed_spans_and_logs_on_the_worker_thread(make_online: MakeOnline) -> None:
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(spans))
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(logs))
    before = _emitter_threads()
    online = make_online(emitters=[OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider)])
    try:
        for i in range(5):
            online.submit(paris_draft(), Origin(run_id=str(i)))  # no span: the RAG span is created too
        assert online.flush(timeout_s=10)
        assert _emitter_threads() == before  # no thread of its own
        assert online.stats().emitters["otel"].emitted == 5
        assert online.stats().emitters["otel"].dropped == 0
        names = [span.name for span in spans.get_finished_spans()]
        assert names.count("ragmetrics.evaluation") == 5 and len(names) == 10
        assert len(logs.get_finished_logs()) == 5 * 4  # one event per metric
    finally:
        online.shutdown(timeout_s=5)
        tracer_provider.shutdown()
        logger_provider.shutdown()


def test_a_simple_processor_anywhere_keeps_the_emitter_on_its_own_thread(make_online: MakeOnline) -> None:
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(InMemorySpanExporter()))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(InMemoryLogRecordExporter()))
    simple_spans = TracerProvider()
    simple_spans.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    cases = [
        OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider, name="simple-logs"),
        OtelEmitter(tracer_provider=simple_spans, log_events=False, name="simple-spans"),
    ]
    assert all(not emitter.hands_off_without_blocking() for emitter in cases)
    assert OtelEmitter(tracer_provider=tracer_provider, log_events=False).hands_off_without_blocking()
    online = make_online(emitters=cases)
    try:
        online.submit(paris_draft(), Origin(run_id="x"))
        assert online.flush(timeout_s=10)
        assert {"ragmetrics-emit-simple-logs", "ragmetrics-emit-simple-spans"} <= _emitter_threads()
    finally:
        online.shutdown(timeout_s=5)


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


def test_what_the_sdk_queue_drops_is_counted(make_online: MakeOnline) -> None:
    exporter = _HeldExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(exporter, max_queue_size=2, max_export_batch_size=1, schedule_delay_millis=60_000)
    )
    online = make_online(emitters=[OtelEmitter(tracer_provider=provider, log_events=False)], concurrency=1)
    try:
        # The app's own span: one evaluation span per sample. The first is in export (held) before the others
        # come, so none of the others can race the export thread for a slot: 2 are queued and 7 dropped.
        online.submit(paris_draft(), Origin(run_id="0", span=SpanRef(0xABC, 1)))
        assert exporter.exporting.wait(10)
        for i in range(1, 10):
            online.submit(paris_draft(), Origin(run_id=str(i), span=SpanRef(0xABC, i + 1)))
        assert online.flush(timeout_s=0.5) is False  # the exporter holds on
        stats = online.stats().emitters["otel"]
        assert stats.emitted == 10
        assert stats.dropped == 7  # one in export, two queued: the rest were dropped by the SDK
        exporter.release.set()
        assert online.flush(timeout_s=10)
        assert exporter.exported + online.stats().emitters["otel"].dropped == 10
    finally:
        exporter.release.set()
        online.shutdown(timeout_s=5)
        provider.shutdown()
