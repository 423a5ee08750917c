"""Instrumented LlamaIndex engines → OnlinePipeline (embedded judge) → OpenTelemetry, in-memory exporters.

These assert what a user sees in their tracing tool: an evaluation span under the span that was active
when the query started (or a RAG span we create when there was none), and one
``gen_ai.evaluation.result`` log event per metric, parented to that span.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.llms import MockLLM
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.sample import RagSample
from ragmetrics_llamaindex import RagMetricsInstrumentor

METRICS = ["faithfulness", "response_relevancy"]
FLUSH_S = 60.0


@dataclass
class Pipeline:
    online: OnlinePipeline
    instrumentor: RagMetricsInstrumentor
    tracer_provider: TracerProvider
    spans: InMemorySpanExporter
    logs: InMemoryLogRecordExporter

    def evaluation_spans(self) -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.name == sc.EVALUATION_SPAN_NAME]

    def span_named(self, name: str) -> ReadableSpan:
        (span,) = [s for s in self.spans.get_finished_spans() if s.name == name]
        return span

    def result_logs(self) -> list[ReadableLogRecord]:
        return [
            r
            for r in self.logs.get_finished_logs()
            if (r.log_record.attributes or {}).get(sc.EVENT_NAME) == sc.EVALUATION_RESULT_EVENT
            or r.log_record.event_name == sc.EVALUATION_RESULT_EVENT
        ]


@pytest.fixture()
def pipeline() -> Iterator[Pipeline]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logs = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]  # the SDK leaves it untyped
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    online = OnlinePipeline(
        Evaluator(metrics=METRICS),
        emitters=[OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider)],
    )
    instrumentor = RagMetricsInstrumentor(online).instrument()
    try:
        yield Pipeline(online, instrumentor, tracer_provider, spans, logs)
    finally:
        instrumentor.uninstrument()
        online.shutdown(timeout_s=5)
        tracer_provider.shutdown()
        logger_provider.shutdown()


def test_scores_land_under_the_request_span_active_at_query_time(index: VectorStoreIndex, pipeline: Pipeline) -> None:
    tracer = pipeline.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("handle-request"):
        response = index.as_query_engine(llm=MockLLM(), similarity_top_k=2).query("capital of Italy")
    assert isinstance(response, Response)
    assert pipeline.online.flush(FLUSH_S)

    request = pipeline.span_named("handle-request")
    (evaluation,) = pipeline.evaluation_spans()
    assert request.context is not None and evaluation.context is not None and evaluation.parent is not None
    assert evaluation.context.trace_id == request.context.trace_id
    assert evaluation.parent.span_id == request.context.span_id
    attributes = dict(evaluation.attributes or {})
    assert attributes[sc.ORIGIN_FRAMEWORK] == "llamaindex"
    assert attributes[sc.ORIGIN_CHAIN_NAME] == "RetrieverQueryEngine"
    assert str(attributes[sc.ORIGIN_RUN_ID]).startswith("RetrieverQueryEngine.query-")
    # The emitted scores are the engine's scores for exactly what the query saw and said.
    direct = Evaluator(metrics=METRICS).evaluate(
        RagSample(
            user_input="capital of Italy",
            retrieved_contexts=[n.node.get_content() for n in response.source_nodes],
            response=response.response,
        )
    )
    for metric in METRICS:
        assert attributes[sc.score_attribute(metric)] == pytest.approx(direct.scores[metric].score)
    events = pipeline.result_logs()
    assert sorted(str((r.log_record.attributes or {})[sc.EVALUATION_NAME]) for r in events) == sorted(METRICS)
    for record in events:
        assert record.log_record.trace_id == request.context.trace_id
        assert record.log_record.span_id == request.context.span_id


def test_without_app_tracing_a_rag_span_is_created_from_the_captured_sample(
    index: VectorStoreIndex, pipeline: Pipeline
) -> None:
    response = index.as_query_engine(llm=MockLLM(max_tokens=6), similarity_top_k=2).query("capital of Spain")
    assert isinstance(response, Response)
    assert pipeline.online.flush(FLUSH_S)

    rag = pipeline.span_named("RetrieverQueryEngine")
    (evaluation,) = pipeline.evaluation_spans()
    assert rag.context is not None and evaluation.parent is not None
    assert evaluation.parent.span_id == rag.context.span_id
    attributes = dict(rag.attributes or {})
    assert attributes[sc.INPUT_VALUE] == "capital of Spain"
    assert attributes[sc.OUTPUT_VALUE] == response.response
    assert attributes[sc.retrieval_document_attribute(0, sc.DOCUMENT_CONTENT)] == (
        response.source_nodes[0].node.get_content()
    )


def test_a_streamed_answer_is_scored_once_the_stream_is_read(index: VectorStoreIndex, pipeline: Pipeline) -> None:
    response = index.as_query_engine(llm=MockLLM(max_tokens=5), streaming=True).query("capital of France")
    assert isinstance(response, StreamingResponse)
    assert pipeline.online.flush(FLUSH_S)
    assert pipeline.evaluation_spans() == [], "nothing is scored while the user has not read the stream"

    tokens = list(response.response_gen)
    assert pipeline.online.flush(FLUSH_S)
    rag = pipeline.span_named("RetrieverQueryEngine")
    assert dict(rag.attributes or {})[sc.OUTPUT_VALUE] == "".join(tokens)
    assert len(pipeline.evaluation_spans()) == 1


async def test_concurrent_queries_each_get_their_own_evaluation(index: VectorStoreIndex, pipeline: Pipeline) -> None:
    tracer = pipeline.tracer_provider.get_tracer("app")
    questions = ["capital of France", "capital of Spain", "capital of Italy"]
    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=1)

    async def request(question: str) -> None:
        with tracer.start_as_current_span(f"request: {question}"):
            await engine.aquery(question)

    await asyncio.gather(*(request(q) for q in questions))
    assert await asyncio.to_thread(pipeline.online.flush, FLUSH_S)

    evaluations = pipeline.evaluation_spans()
    assert len(evaluations) == len(questions)
    parents = {e.parent.span_id for e in evaluations if e.parent is not None}
    requests = set()
    for question in questions:
        context = pipeline.span_named(f"request: {question}").context
        assert context is not None
        requests.add(context.span_id)
    assert parents == requests


def test_without_an_evaluator_the_shared_default_pipeline_scores_and_emits_the_queries(index: VectorStoreIndex) -> None:
    """Like the LangChain handler's: one pipeline per process (a handler per request must not start a worker per
    request), an OtelEmitter on the app's global providers and a flush at exit. It used to be a private pipeline per
    instrumentor with no emitter and no exit hook, so its scores went nowhere."""
    from ragmetrics_core.online.defaults import default_pipeline
    from ragmetrics_llamaindex import RagMetricsCallbackHandler

    instrumentor = RagMetricsInstrumentor().instrument()
    online = instrumentor.pipeline
    try:
        assert online is default_pipeline() is RagMetricsCallbackHandler().pipeline
        assert isinstance(online, OnlinePipeline)
        before = online.stats()
        index.as_query_engine(llm=MockLLM(max_tokens=4)).query("capital of Italy")
        assert online.flush(FLUSH_S)
        stats = online.stats()
        assert (stats.submitted - before.submitted, stats.completed - before.completed, stats.failed) == (1, 1, 0)
        assert stats.emitters["otel"].emitted >= 1
    finally:
        instrumentor.uninstrument()  # the shared pipeline stays up for the rest of the process, as in an app
