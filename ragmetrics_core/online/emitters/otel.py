"""OpenTelemetry output: an evaluation span under the evaluated span, and one log event per metric.

The evaluated span has usually ended by the time scores exist, so the evaluation span is parented to a
``NonRecordingSpan`` rebuilt from the captured ids (``is_remote=True``), and each
``gen_ai.evaluation.result`` log record carries that span's context. When the app had no tracing, the
RAG span is created here (with OpenInference attributes, from the run's own start/end times) so the
scores have a trace to live in.

When every processor of the app's providers is one of the SDK's batch processors, handing them a span or a
log record never blocks, so the emitter is called on the scoring worker's thread directly and counts what
those processors' queues drop (``otel_sdk``); otherwise it runs behind a thread of its own.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry._logs import Logger, LoggerProvider, SeverityNumber, get_logger
from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags, Tracer
from opentelemetry.util.types import AttributeValue

from ragmetrics_core.explain import metric_explanations
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.emitters.otel_sdk import SdkHandOff, non_blocking_hand_off
from ragmetrics_core.online.types import EvaluationRecord, Origin, SampleView, SpanRef
from ragmetrics_core.results import ClaimExplanation, MetricScore

_SCOPE = "ragmetrics"

Attributes = dict[str, AttributeValue]


MAX_UNENDED_SPANS = 10_000
"""RAG spans waiting for their record to reach this emitter; past it, the oldest are ended at the next emit."""


class OtelEmitter:
    """Writes evaluations through the given (or the global) tracer and logger providers.

    Args:
        tracer_provider / logger_provider: the app's providers; ``None`` uses the global ones, so an
            app that configured OpenTelemetry needs nothing more.
        log_events: emit ``gen_ai.evaluation.result`` log events (one per metric).
        claim_events: attach per-claim evidence as events on the evaluation span (at most
            ``max_claim_events``; texts are already redacted and capped by the privacy options).
        create_rag_span: when a run had no span, create one so scores have a trace.
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        logger_provider: LoggerProvider | None = None,
        log_events: bool = True,
        claim_events: bool = True,
        max_claim_events: int = 50,
        create_rag_span: bool = True,
        name: str = "otel",
    ) -> None:
        if isinstance(max_claim_events, bool) or not isinstance(max_claim_events, int) or max_claim_events < 0:
            raise ValueError(f"max_claim_events must be a non-negative int, got {max_claim_events!r}")
        self._tracer_provider = tracer_provider
        self._logger_provider = logger_provider
        self._log_events = log_events
        self._claim_events = claim_events
        self._max_claim_events = max_claim_events
        self._create_rag_span = create_rag_span
        self._name = name
        self._tracer: Tracer | None = None
        self._logger: Logger | None = None
        self._hand_off: SdkHandOff | None = None
        # RAG spans created on the worker thread, ended on this emitter's thread: with the app's
        # SimpleSpanProcessor, ending a span exports it on the calling thread, and a slow or unreachable
        # collector must never stall scoring. Bounded: spans of records this emitter never sees are ended later.
        self._unended: OrderedDict[int, tuple[Span, int]] = OrderedDict()
        self._overdue: list[tuple[Span, int]] = []
        self._unended_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def hands_off_without_blocking(self) -> bool:
        """Whether ``emit`` only appends to the SDK's batch queues, so it needs no thread of its own. Asked once,
        when the pipeline starts: processors the app adds later are not seen."""
        logger_provider = self._resolved_logger_provider() if self._log_events else None
        self._hand_off = non_blocking_hand_off(self._tracer_provider or trace.get_tracer_provider(), logger_provider)
        return self._hand_off is not None

    @property
    def dropped(self) -> int:
        """Spans and log records handed over while the SDK's queue was full (it dropped one item for each)."""
        return 0 if self._hand_off is None else self._hand_off.dropped

    # ------------------------------------------------------------------ subject span

    def create_subject_span(self, origin: Origin, sample: SampleView | None) -> SpanRef | None:
        if not self._create_rag_span:
            return None
        now = time.time_ns()
        start = origin.start_time_ns or now
        end = max(start, origin.end_time_ns or start)
        span = self._get_tracer().start_span(
            origin.chain_name or sc.RAG_SPAN_DEFAULT_NAME,
            context=Context(),
            kind=SpanKind.INTERNAL,
            attributes=_rag_attributes(origin, sample),
            start_time=start,
        )
        context = span.get_span_context()
        with self._unended_lock:  # ended in emit(), on the emitter's thread (starting a span exports nothing)
            self._unended[context.span_id] = (span, end)
            while len(self._unended) > MAX_UNENDED_SPANS:
                self._overdue.append(self._unended.popitem(last=False)[1])
        return SpanRef.of(context, created=True)

    def _end_created_spans(self, record: EvaluationRecord | None) -> None:
        """End, here on the emitter's thread, the RAG span made for ``record`` and any left overdue."""
        with self._unended_lock:
            ending, self._overdue = self._overdue, []
            if record is None:
                ending.extend(self._unended.values())
                self._unended.clear()
            elif record.subject is not None and record.subject.created:
                found = self._unended.pop(record.subject.span_id, None)
                if found is not None:
                    ending.append(found)
        for span, end in ending:
            if self._hand_off is not None:
                self._hand_off.note_span()
            span.end(end_time=end)

    # ------------------------------------------------------------------ emitter

    def emit(self, record: EvaluationRecord) -> None:
        self._end_created_spans(record)
        subject_context = _context_of(record.subject)
        span = self._get_tracer().start_span(
            sc.EVALUATION_SPAN_NAME,
            context=subject_context,
            kind=SpanKind.INTERNAL,
            attributes=_evaluation_attributes(record),
            start_time=record.started_ns,
        )
        try:
            if self._claim_events and record.result is not None:
                self._add_claim_events(span, record.result.explanations, record.finished_ns)
            if record.error is not None:
                span.set_status(Status(StatusCode.ERROR, record.error))
        finally:
            if self._hand_off is not None:
                self._hand_off.note_span()
            span.end(end_time=max(record.started_ns, record.finished_ns))
        if self._log_events and (record.result is not None or record.metrics):
            # Without a subject the evaluation span is the only span there is, so the events hang off it.
            evaluated = subject_context if record.subject is not None else trace.set_span_in_context(span, Context())
            self._emit_log_events(record, evaluated)

    def force_flush(self, timeout_s: float) -> bool:
        self._end_created_spans(None)
        millis = max(0, int(timeout_s * 1000))
        flushed = True
        for provider in (self._tracer_provider or trace.get_tracer_provider(), self._resolved_logger_provider()):
            flush = getattr(provider, "force_flush", None)
            if callable(flush):
                flushed = bool(flush(millis)) and flushed
        return flushed

    def shutdown(self, timeout_s: float) -> None:
        """The providers belong to the app, which shuts them down; we only push out what we wrote."""
        self.force_flush(timeout_s)

    # ------------------------------------------------------------------ internals

    def _get_tracer(self) -> Tracer:
        if self._tracer is None:
            self._tracer = trace.get_tracer(_SCOPE, _version(), tracer_provider=self._tracer_provider)
        return self._tracer

    def _get_logger(self) -> Logger:
        if self._logger is None:
            self._logger = get_logger(_SCOPE, _version(), logger_provider=self._logger_provider)
        return self._logger

    def _resolved_logger_provider(self) -> object:
        if self._logger_provider is not None:
            return self._logger_provider
        from opentelemetry._logs import get_logger_provider

        return get_logger_provider()

    def _add_claim_events(self, span: trace.Span, claims: list[ClaimExplanation], timestamp: int) -> None:
        kept = claims[: self._max_claim_events]
        for claim in kept:
            span.add_event(sc.CLAIM_EVENT, attributes=_claim_attributes(claim), timestamp=timestamp)
        if len(claims) > len(kept):
            span.set_attribute(sc.CLAIMS_OMITTED, len(claims) - len(kept))

    def _emit_log_events(self, record: EvaluationRecord, context: Context) -> None:
        """One ``gen_ai.evaluation.result`` per metric: its score, or, when the evaluation failed before any
        score, its ``error.type`` (as the GenAI conventions ask of an evaluation that ended in an error)."""
        logger = self._get_logger()
        if record.result is not None:
            severity = SeverityNumber.INFO
            explained = metric_explanations(record.result) if record.result is not None else {}
            events = [
                _result_event_attributes(metric, entry, record, explained.get(metric, ""))
                for metric, entry in record.scores.items()
            ]
        else:
            severity = SeverityNumber.ERROR
            events = [_failure_event_attributes(metric, record) for metric in record.metrics]
        hand_off = self._hand_off
        for attributes in events:
            if hand_off is not None:
                hand_off.note_log()
            logger.emit(
                timestamp=record.finished_ns,
                context=context,
                severity_number=severity,
                severity_text=severity.name,
                event_name=sc.EVALUATION_RESULT_EVENT,
                attributes=attributes,
            )


def _context_of(subject: SpanRef | None) -> Context:
    if subject is None:
        return Context()
    parent = NonRecordingSpan(
        SpanContext(
            trace_id=subject.trace_id,
            span_id=subject.span_id,
            is_remote=True,
            trace_flags=TraceFlags(subject.trace_flags & 0xFF),
        )
    )
    return trace.set_span_in_context(parent, Context())


def _rag_attributes(origin: Origin, sample: SampleView | None) -> Attributes:
    attributes: Attributes = {sc.OPENINFERENCE_SPAN_KIND: sc.SPAN_KIND_CHAIN, **_origin_attributes(origin)}
    if origin.tags:
        attributes["tag.tags"] = list(origin.tags)
    if sample is None:
        return attributes
    if sample.user_input is not None:
        attributes[sc.INPUT_VALUE] = sample.user_input
        attributes[sc.INPUT_MIME_TYPE] = sc.MIME_TEXT
    if sample.response is not None:
        attributes[sc.OUTPUT_VALUE] = sample.response
        attributes[sc.OUTPUT_MIME_TYPE] = sc.MIME_TEXT
    for index, context in enumerate(sample.contexts):
        if context.text is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_CONTENT)] = context.text
        if context.id is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_ID)] = context.id
        if context.score is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_SCORE)] = float(context.score)
    return attributes


def _origin_attributes(origin: Origin) -> Attributes:
    attributes: Attributes = {sc.ORIGIN_FRAMEWORK: origin.framework}
    if origin.chain_name is not None:
        attributes[sc.ORIGIN_CHAIN_NAME] = origin.chain_name
    if origin.run_id is not None:
        attributes[sc.ORIGIN_RUN_ID] = origin.run_id
    return attributes


def _evaluation_attributes(record: EvaluationRecord) -> Attributes:
    usage = record.usage
    attributes: Attributes = {
        sc.OPENINFERENCE_SPAN_KIND: sc.SPAN_KIND_EVALUATOR,
        sc.RECORD_ID: record.record_id,
        sc.SAMPLING_DECISION: record.decision.value,
        sc.SAMPLING_RATE: record.rate,
        sc.SAMPLING_ROUTE: record.route,
        sc.USAGE_CALLS: usage.calls,
        sc.USAGE_EMBEDDING_CALLS: usage.embedding_calls,
        sc.USAGE_PROMPT_TOKENS: usage.prompt_tokens,
        sc.USAGE_COMPLETION_TOKENS: usage.completion_tokens,
        sc.USAGE_LATENCY_S: usage.latency_s,
        sc.QUEUE_WAIT_S: max(0, record.started_ns - record.submitted_ns) / 1e9,
        **_origin_attributes(record.origin),
    }
    if usage.cost_usd is not None:
        attributes[sc.USAGE_COST_USD] = usage.cost_usd
    if record.judge is not None:
        attributes[sc.JUDGE] = record.judge
    if record.sample_id is not None:
        attributes[sc.SAMPLE_ID] = record.sample_id
    if record.subject is not None:
        attributes[sc.SUBJECT_CREATED] = record.subject.created
    if record.error is not None:
        attributes[sc.ERROR] = record.error
    for metric, entry in record.scores.items():
        if entry.score is not None:
            attributes[sc.score_attribute(metric)] = entry.score
        else:
            attributes[sc.undetermined_attribute(metric)] = entry.reason or "undetermined"
        if entry.label is not None:
            attributes[sc.label_attribute(metric)] = entry.label
        if entry.probability is not None:
            attributes[sc.probability_attribute(metric)] = entry.probability
    if record.scores:
        attributes[sc.OUTPUT_VALUE] = json.dumps(
            {metric: entry.score for metric, entry in record.scores.items()}, allow_nan=False, default=str
        )
        attributes[sc.OUTPUT_MIME_TYPE] = sc.MIME_JSON
    return attributes


def _result_event_attributes(
    metric: str, entry: MetricScore, record: EvaluationRecord, explanation: str
) -> Attributes:
    attributes: Attributes = {sc.EVENT_NAME: sc.EVALUATION_RESULT_EVENT, sc.EVALUATION_NAME: metric}
    if entry.score is not None:
        attributes[sc.EVALUATION_SCORE_VALUE] = entry.score
    label = entry.label if entry.label is not None else (None if entry.score is not None else "undetermined")
    if label is not None:
        attributes[sc.EVALUATION_SCORE_LABEL] = label
    if entry.probability is not None:
        attributes[sc.EVALUATION_PROBABILITY] = entry.probability
    if entry.reason or explanation:
        attributes[sc.EVALUATION_EXPLANATION] = entry.reason or explanation
    if entry.score is None and record.failure is not None:
        attributes[sc.ERROR_TYPE] = record.failure  # undetermined because the evaluation failed (the judge, …)
    if record.judge is not None:
        attributes[sc.JUDGE] = record.judge
    attributes[sc.RECORD_ID] = record.record_id
    return attributes


def _failure_event_attributes(metric: str, record: EvaluationRecord) -> Attributes:
    attributes: Attributes = {
        sc.EVENT_NAME: sc.EVALUATION_RESULT_EVENT,
        sc.EVALUATION_NAME: metric,
        sc.ERROR_TYPE: record.failure or "error",
        sc.RECORD_ID: record.record_id,
    }
    if record.error:
        attributes[sc.EVALUATION_EXPLANATION] = record.error
    return attributes


def _claim_attributes(claim: ClaimExplanation) -> Mapping[str, AttributeValue]:
    attributes: Attributes = {
        sc.CLAIM_SOURCE: claim.source,
        sc.CLAIM_INDEX: claim.index,
        sc.CLAIM_SUPPORTING_CHUNKS: list(claim.supporting_chunks),
        sc.CLAIM_CONTRADICTING_CHUNKS: list(claim.contradicting_chunks),
    }
    if claim.text:
        attributes[sc.CLAIM_TEXT] = claim.text
    if claim.category is not None:
        attributes[sc.CLAIM_CATEGORY] = claim.category
    if claim.against_reference is not None:
        attributes[sc.CLAIM_AGAINST_REFERENCE] = claim.against_reference.value
    if claim.rationale:
        attributes[sc.CLAIM_RATIONALE] = claim.rationale
    return attributes


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmetrics")
    except PackageNotFoundError:
        return "0"
