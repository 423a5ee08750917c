"""The sample carries the OpenTelemetry span active when the user's query started."""

from __future__ import annotations

from llama_index.core import VectorStoreIndex
from llama_index.core.llms import MockLLM
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import get_current_span

from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import RecordingSink


def tracer_with_memory() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_origin_has_the_active_span_ids_and_our_capture_creates_no_span(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    provider, exporter = tracer_with_memory()
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("handle-request") as request_span:
        index.as_query_engine(llm=MockLLM(max_tokens=2)).query("capital of Italy")
        context = request_span.get_span_context()
    _, origin = sink.only()
    assert origin.span is not None
    assert (origin.span.trace_id, origin.span.span_id, origin.span.trace_flags) == (
        context.trace_id,
        context.span_id,
        int(context.trace_flags),
    )
    assert [span.name for span in exporter.get_finished_spans()] == ["handle-request"]
    assert not get_current_span().get_span_context().is_valid, "we never attach a context"


async def test_concurrent_requests_keep_their_own_span(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    import asyncio

    provider, _ = tracer_with_memory()
    tracer = provider.get_tracer("app")
    engine = index.as_query_engine(llm=MockLLM(max_tokens=2))
    expected: dict[str, int] = {}

    async def request(question: str) -> None:
        with tracer.start_as_current_span(f"request {question}") as span:
            expected[question] = span.get_span_context().span_id
            await engine.aquery(question)

    await asyncio.gather(*(request(q) for q in ["capital of France", "capital of Spain", "capital of Italy"]))
    assert {d.user_input: o.span.span_id for d, o in sink.items if o is not None and o.span} == expected
