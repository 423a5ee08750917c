"""The span a captured run belongs to: the app's active span, or OpenInference's span for the run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.retrievers import BaseRetriever
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_langchain import RagMetricsCallbackHandler, instrument, uninstrument
from tests.langchain.conftest import ANSWER, RecordingSink, rag_chain

QUESTION = "Where is the Eiffel Tower?"


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def test_no_active_span_gives_no_ids(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler]})
    origin = sink.only().origin
    assert origin is not None
    assert origin.span is None


def test_app_span_is_captured_and_the_context_left_alone(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    provider: TracerProvider,
) -> None:
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("handle-request") as app_span:
        before = otel_context.get_current()
        rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler]})
        assert otel_context.get_current() == before  # we never attach a context
    origin = sink.only().origin
    expected = app_span.get_span_context()
    assert origin is not None
    assert origin.span is not None
    assert (origin.span.trace_id, origin.span.span_id, origin.span.trace_flags) == (
        expected.trace_id,
        expected.span_id,
        int(expected.trace_flags),
    )
    assert origin.span.trace_flags & trace.TraceFlags.SAMPLED


async def test_app_span_is_captured_for_async_and_batched_runs(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    provider: TracerProvider,
) -> None:
    tracer = provider.get_tracer("app")
    chain = rag_chain(retriever, responses=[ANSWER] * 4)
    with tracer.start_as_current_span("async-request") as first:
        await chain.ainvoke(QUESTION, config={"callbacks": [handler]})
    with tracer.start_as_current_span("batch-request") as second:
        chain.batch([QUESTION, QUESTION], config={"callbacks": [handler]})  # runs in worker threads
    span_ids = [item.origin.span.span_id for item in sink.items if item.origin and item.origin.span]
    assert span_ids == [first.get_span_context().span_id] + [second.get_span_context().span_id] * 2


def test_unsampled_app_span_keeps_its_flags(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    tracer = TracerProvider(sampler=ALWAYS_OFF).get_tracer("app")
    with tracer.start_as_current_span("not-sampled") as span:
        rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler]})
    origin = sink.only().origin
    assert origin is not None
    assert origin.span is not None and origin.span.span_id == span.get_span_context().span_id
    assert not origin.span.trace_flags & trace.TraceFlags.SAMPLED


@pytest.fixture
def openinference(provider: TracerProvider) -> Iterator[Any]:
    instrumentation = pytest.importorskip("openinference.instrumentation.langchain")
    instrumentor = instrumentation.LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield instrumentor
    finally:
        instrumentor.uninstrument()


def _root_chain_span(exporter: InMemorySpanExporter) -> Any:
    """OpenInference's span for the top-level run: the LangChain span whose parent is not a LangChain span."""
    spans = exporter.get_finished_spans()
    langchain_ids = {s.context.span_id for s in spans if s.attributes and "openinference.span.kind" in s.attributes}
    (root,) = [
        s
        for s in spans
        if s.context.span_id in langchain_ids and (s.parent is None or s.parent.span_id not in langchain_ids)
    ]
    assert root.name == "RunnableSequence"
    return root


@pytest.mark.usefixtures("openinference")
def test_openinference_run_span_is_used_when_the_app_has_no_span(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    exporter: InMemorySpanExporter,
) -> None:
    assert not trace.get_current_span().get_span_context().is_valid
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler]})
    origin = sink.only().origin
    root = _root_chain_span(exporter)
    assert origin is not None and origin.span is not None
    assert (origin.span.trace_id, origin.span.span_id) == (root.context.trace_id, root.context.span_id)


@pytest.mark.usefixtures("openinference")
def test_openinference_run_span_under_an_app_span_with_global_instrument(
    retriever: BaseRetriever, sink: RecordingSink, exporter: InMemorySpanExporter, provider: TracerProvider
) -> None:
    # Registered through the configure hook, our handler comes after OpenInference's tracer.
    instrument(sink)
    try:
        with provider.get_tracer("app").start_as_current_span("handle-request") as app_span:
            rag_chain(retriever).invoke(QUESTION)
    finally:
        uninstrument()
    origin = sink.only().origin
    root = _root_chain_span(exporter)
    assert root.parent is not None and root.parent.span_id == app_span.get_span_context().span_id
    assert origin is not None and origin.span is not None
    assert (origin.span.trace_id, origin.span.span_id) == (root.context.trace_id, root.context.span_id)
