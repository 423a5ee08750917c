"""End to end: a LangChain run → the handler → the OnlinePipeline and the engine → OpenTelemetry.

Real SDK providers with in-memory span and log exporters; assertions on the spans and events the app's
tracing backend would receive, and on where they hang in the app's trace. The judge is the online tests'
transparent one (a premise entails a sentence it contains), so the expected scores are plain to see.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.retrievers import BaseRetriever
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from ragmetrics_core.online import semconv as sc
from ragmetrics_langchain import RagMetricsCallbackHandler, instrument, uninstrument
from ragmetrics_langchain.defaults import default_sink
from tests.langchain.conftest import ANSWER, rag_chain
from tests.langchain.test_langgraph import build_graph
from tests.online.judges import ScriptedJudge

QUESTION = "Where is the Eiffel Tower?"
REFERENCE = "The Eiffel Tower is in Paris."
METRICS = ["faithfulness", "hallucination", "context_recall", "overall_f1"]


@dataclass
class Telemetry:
    tracer_provider: TracerProvider
    logger_provider: LoggerProvider
    spans: InMemorySpanExporter
    logs: InMemoryLogRecordExporter

    def span(self, name: str) -> ReadableSpan:
        (span,) = [s for s in self.spans.get_finished_spans() if s.name == name]
        return span


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    yield Telemetry(tracer_provider, logger_provider, spans, logs)
    tracer_provider.shutdown()
    logger_provider.shutdown()


@pytest.fixture
def online(telemetry: Telemetry) -> Iterator[OnlinePipeline]:
    emitter = OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider)
    evaluator = OnlinePipeline(Evaluator(judge=ScriptedJudge(), metrics=METRICS), emitters=[emitter])
    yield evaluator
    evaluator.shutdown(timeout_s=5)


def _run(retriever: BaseRetriever, handler: RagMetricsCallbackHandler, **config: Any) -> None:
    run_config: Any = {"callbacks": [handler], "metadata": {"ragmetrics_reference": REFERENCE}, **config}
    assert rag_chain(retriever).invoke(QUESTION, config=run_config) == ANSWER


def test_scores_hang_under_the_app_span(
    retriever: BaseRetriever, online: OnlinePipeline, telemetry: Telemetry
) -> None:
    handler = RagMetricsCallbackHandler(online)
    with telemetry.tracer_provider.get_tracer("app").start_as_current_span("handle-request"):
        _run(retriever, handler, run_name="support-rag")
    assert online.flush(timeout_s=60)
    app = telemetry.span("handle-request")
    evaluation = telemetry.span(sc.EVALUATION_SPAN_NAME)
    assert app.context is not None and evaluation.context is not None and evaluation.parent is not None
    assert (evaluation.context.trace_id, evaluation.parent.span_id) == (app.context.trace_id, app.context.span_id)
    attributes = dict(evaluation.attributes or {})
    # The answer restates the first retrieved document: grounded, nothing hallucinated, matches the reference.
    assert attributes[sc.score_attribute("faithfulness")] == 1.0
    assert attributes[sc.score_attribute("hallucination")] == 0.0
    assert attributes[sc.score_attribute("overall_f1")] == 1.0
    assert attributes[sc.SUBJECT_CREATED] is False
    logs = [entry.log_record for entry in telemetry.logs.get_finished_logs()]
    assert sorted(str((r.attributes or {})[sc.EVALUATION_NAME]) for r in logs) == sorted(METRICS)
    for record in logs:
        assert (record.trace_id, record.span_id) == (app.context.trace_id, app.context.span_id)
    assert online.stats().completed == 1


def test_without_app_tracing_the_rag_span_is_created_from_the_capture(
    retriever: BaseRetriever, online: OnlinePipeline, telemetry: Telemetry
) -> None:
    handler = RagMetricsCallbackHandler(online)
    _run(retriever, handler, run_name="support-rag")
    assert online.flush(timeout_s=60)
    rag = telemetry.span("support-rag")
    evaluation = telemetry.span(sc.EVALUATION_SPAN_NAME)
    assert rag.parent is None and rag.context is not None and evaluation.parent is not None
    assert evaluation.parent.span_id == rag.context.span_id
    attributes = dict(rag.attributes or {})
    assert attributes[sc.INPUT_VALUE] == QUESTION
    assert attributes[sc.OUTPUT_VALUE] == ANSWER
    documents = retriever.invoke(QUESTION)
    for index, document in enumerate(documents):
        assert attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_CONTENT)] == document.page_content
        assert attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_ID)] == document.id
    assert rag.start_time is not None and rag.end_time is not None and rag.start_time < rag.end_time
    assert (evaluation.attributes or {})[sc.SUBJECT_CREATED] is True


def test_scores_hang_under_openinference_chain_span(
    retriever: BaseRetriever, online: OnlinePipeline, telemetry: Telemetry
) -> None:
    instrumentation = pytest.importorskip("openinference.instrumentation.langchain")
    instrumentor = instrumentation.LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=telemetry.tracer_provider)
    try:
        _run(retriever, RagMetricsCallbackHandler(online))
    finally:
        instrumentor.uninstrument()
    assert online.flush(timeout_s=60)
    spans = telemetry.spans.get_finished_spans()
    evaluation = telemetry.span(sc.EVALUATION_SPAN_NAME)
    chain_roots = [s for s in spans if s.name == "RunnableSequence" and s.parent is None]
    assert len(chain_roots) == 1 and chain_roots[0].context is not None and evaluation.parent is not None
    assert evaluation.parent.span_id == chain_roots[0].context.span_id
    assert (evaluation.attributes or {})[sc.SUBJECT_CREATED] is False
    assert not [s for s in spans if s.name == "rag"]  # no second, made-up RAG span


def test_graph_interrupt_and_resume_scored_once(
    retriever: BaseRetriever, online: OnlinePipeline, telemetry: Telemetry
) -> None:
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.types import Command

    graph = build_graph(retriever, with_approval=True, checkpointer=MemorySaver())
    config: Any = {"callbacks": [RagMetricsCallbackHandler(online)], "configurable": {"thread_id": "e2e"}}
    graph.invoke({"question": QUESTION}, config=config)
    graph.invoke(Command(resume="ok"), config=config)
    assert online.flush(timeout_s=60)
    evaluation = telemetry.span(sc.EVALUATION_SPAN_NAME)
    assert (evaluation.attributes or {})[sc.score_attribute("faithfulness")] == 1.0
    assert online.stats().completed == 1


def test_instrumented_process_scores_every_chain(
    retriever: BaseRetriever, online: OnlinePipeline, telemetry: Telemetry
) -> None:
    instrument(online)
    try:
        rag_chain(retriever, responses=[ANSWER] * 3).batch([QUESTION] * 3)
    finally:
        uninstrument()
    assert online.flush(timeout_s=60)
    assert online.stats().completed == 3
    assert len([s for s in telemetry.spans.get_finished_spans() if s.name == sc.EVALUATION_SPAN_NAME]) == 3


def test_handlers_without_an_evaluator_share_one_default_pipeline() -> None:
    first, second = RagMetricsCallbackHandler(), RagMetricsCallbackHandler()
    assert first.pipeline is second.pipeline is default_sink()
    assert isinstance(first.pipeline, OnlinePipeline)


def test_embedded_judge_tells_a_grounded_answer_from_a_hallucinated_one(
    retriever: BaseRetriever, telemetry: Telemetry
) -> None:
    emitter = OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider)
    online = OnlinePipeline(Evaluator(metrics=["faithfulness", "hallucination"]), emitters=[emitter])
    handler = RagMetricsCallbackHandler(online)
    chain = rag_chain(retriever, responses=[ANSWER, "The Eiffel Tower was painted by Vincent van Gogh in 1920."])
    try:
        for name in ("grounded", "hallucinated"):
            metadata = {"ragmetrics_reference": REFERENCE}  # hallucination needs one: it counts incorrect claims
            chain.invoke(QUESTION, config={"callbacks": [handler], "run_name": name, "metadata": metadata})
        assert online.flush(timeout_s=60)
    finally:
        online.shutdown(timeout_s=5)
    spans = telemetry.spans.get_finished_spans()
    scores = {}
    for evaluation in (s for s in spans if s.name == sc.EVALUATION_SPAN_NAME):
        subject = next(
            s for s in spans if s.context and evaluation.parent and s.context.span_id == evaluation.parent.span_id
        )
        attributes = dict(evaluation.attributes or {})
        scores[subject.name] = (
            attributes[sc.score_attribute("faithfulness")],
            attributes[sc.score_attribute("hallucination")],
        )
    assert scores == {"grounded": (1.0, 0.0), "hallucinated": (0.0, 1.0)}


def test_credentials_in_document_ids_tags_and_run_names_never_reach_telemetry(
    telemetry: Telemetry, tmp_path: Any
) -> None:
    """Ids, tags and names are telemetry too: a signed document URL, a tag or a run name quoting a key is masked
    wherever it goes out (the RAG span, the evaluation span, the result events, the JSONL record)."""
    from langchain_core.documents import Document

    from ragmetrics_core.online import JsonlEmitter
    from tests.langchain.conftest import make_store

    signed_url = "https://docs.example/eiffel?api_key=hunter2hunter2hunter2"
    documents = [Document(id=signed_url, page_content="The Eiffel Tower is in Paris.")]
    retriever = make_store(documents).as_retriever(search_kwargs={"k": 1})
    emitter = OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider)
    out = tmp_path / "records.jsonl"
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=METRICS), emitters=[emitter, JsonlEmitter(out)]
    )
    try:
        _run(
            retriever,
            RagMetricsCallbackHandler(online),
            run_name="support ghp_abcdefghijklmnopqrstuvwxyz0123",
            tags=["tenant-7", "key=sk-proj-ABCDEFGHIJKLMNOPQRSTUV"],
        )
        assert online.flush(timeout_s=60)
    finally:
        online.shutdown(timeout_s=5)
    exported = [span.to_json() for span in telemetry.spans.get_finished_spans()]
    exported += [entry.to_json() for entry in telemetry.logs.get_finished_logs()]
    exported.append(out.read_text(encoding="utf-8"))
    text = "\n".join(exported)
    for secret in ("hunter2hunter2", "ghp_abcdefghijklmnopqrstuvwxyz0123", "sk-proj-ABCDEFGHIJKLMNOPQRSTUV"):
        assert secret not in text
    # What is not a secret stays readable, so the run can still be found.
    rag = next(s for s in telemetry.spans.get_finished_spans() if s.name.startswith("support"))
    attributes = dict(rag.attributes or {})
    assert attributes[sc.retrieval_document_attribute(0, sc.DOCUMENT_ID)] == "https://docs.example/eiffel?api_key=[redacted]"
    assert rag.name == "support [redacted]"
    assert attributes["tag.tags"] == ("tenant-7", "key=[redacted]")  # the SDK keeps sequences as tuples
    assert online.stats().completed == 1
