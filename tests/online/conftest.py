"""Fixtures for the online pipeline: real OpenTelemetry SDK providers with in-memory exporters."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline
from ragmetrics_core.online.types import ContextDraft, SampleDraft
from tests.online.judges import ScriptedJudge

METRICS = ("faithfulness", "overall_precision", "context_recall", "hallucination")


@dataclass
class Telemetry:
    tracer_provider: TracerProvider
    logger_provider: LoggerProvider
    spans: InMemorySpanExporter
    logs: InMemoryLogRecordExporter


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    yield Telemetry(tracer_provider, logger_provider, spans, logs)
    tracer_provider.shutdown()
    logger_provider.shutdown()


def paris_draft(**overrides: Any) -> SampleDraft:
    """Two response claims, one grounded in the context and the reference, one not."""
    values: dict[str, Any] = {
        "user_input": "Where is Paris?",
        "contexts": [ContextDraft("Paris is in France.", id="doc-1", score=0.9), ContextDraft("Rome is in Italy.")],
        "response": "Paris is in France. Paris has ten million cats.",
        "reference": "Paris is in France.",
    }
    values.update(overrides)
    return SampleDraft(**values)


@pytest.fixture
def make_online() -> Iterator[Callable[..., OnlinePipeline]]:
    """Build OnlinePipelines around the real engine with a scripted judge; all are shut down afterwards."""
    made: list[OnlinePipeline] = []

    def make(judge: ScriptedJudge | None = None, metrics: tuple[str, ...] = METRICS, **kwargs: Any) -> OnlinePipeline:
        evaluator = Evaluator(judge=judge or ScriptedJudge(), metrics=list(metrics))
        online = OnlinePipeline(evaluator, **kwargs)
        made.append(online)
        return online

    yield make
    for online in made:
        online.shutdown(timeout_s=2.0)
