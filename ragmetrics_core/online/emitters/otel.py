"""OpenTelemetry output: an evaluation span under the evaluated span, and one log event per metric.

The evaluated span has usually ended by the time scores exist, so the evaluation span is parented to a
``NonRecordingSpan`` rebuilt from the captured ids (``is_remote=True``), and each
``gen_ai.evaluation.result`` log record carries that span's context. When the app had no tracing, the
RAG span is created here (with OpenInference attributes, from the run's own start/end times) so the
scores have a trace to live in. What each span and event carries is written in ``otel_attributes``.

Like every emitter it runs on a thread of its own (``emitters.base.EmitterThread``): whatever processors the app
gave its providers (a batch processor, or a ``SimpleSpanProcessor`` exporting on the caller's thread), the scoring
worker never waits for them. The providers are only used through the OpenTelemetry API.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from opentelemetry import trace
from opentelemetry._logs import Logger, LoggerProvider, SeverityNumber, get_logger, get_logger_provider
from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags, Tracer

from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.emitters import otel_attributes as attrs
from ragmetrics_core.online.types import EvaluationRecord, Origin, SampleView, SpanRef

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_SCOPE = "ragmetrics"

_log = logging.getLogger("ragmetrics.online")

# The OpenTelemetry API's stand-ins while the app has set no provider (the proxies) or chose none: they drop
# everything. Told apart by class name, since the API does not export its proxy logger provider.
_PLACEHOLDER_PROVIDERS = frozenset(
    {"ProxyTracerProvider", "NoOpTracerProvider", "_DefaultTracerProvider", "ProxyLoggerProvider", "NoOpLoggerProvider"}
)

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
        # RAG spans are created on the worker's thread and ended here, on the emitter's: ending a span may export
        # it on the calling thread. Bounded: the spans of records this emitter never sees are ended later.
        self._unended: OrderedDict[int, tuple[Span, int]] = OrderedDict()
        self._overdue: list[tuple[Span, int]] = []
        self._unended_lock = threading.Lock()
        self._providers_checked = False

    @property
    def name(self) -> str:
        return self._name

    def create_subject_span(self, origin: Origin, sample: SampleView | None) -> SpanRef | None:
        """Start the RAG span of a run the app did not trace (ended when its record is emitted)."""
        if not self._create_rag_span:
            return None
        start = origin.start_time_ns or time.time_ns()
        span = self._get_tracer().start_span(
            origin.chain_name or sc.RAG_SPAN_DEFAULT_NAME,
            context=Context(),
            kind=SpanKind.INTERNAL,
            attributes=attrs.rag_span(origin, sample),
            start_time=start,
        )
        context = span.get_span_context()
        with self._unended_lock:
            self._unended[context.span_id] = (span, max(start, origin.end_time_ns or start))
            while len(self._unended) > MAX_UNENDED_SPANS:
                self._overdue.append(self._unended.popitem(last=False)[1])
        return SpanRef.of(context, created=True)

    def emit(self, record: EvaluationRecord) -> None:
        if not self._providers_checked:
            self._providers_checked = True
            self._warn_about_missing_providers()
        self._end_created_spans(record)
        subject_context = _context_of(record.subject)
        span = self._get_tracer().start_span(
            sc.EVALUATION_SPAN_NAME,
            context=subject_context,
            kind=SpanKind.INTERNAL,
            attributes=attrs.evaluation_span(record),
            start_time=record.started_ns,
        )
        try:
            claims = record.result.explanations if self._claim_events and record.result is not None else []
            for claim in claims[: self._max_claim_events]:
                span.add_event(sc.CLAIM_EVENT, attributes=attrs.claim_event(claim), timestamp=record.finished_ns)
            if len(claims) > self._max_claim_events:
                span.set_attribute(sc.CLAIMS_OMITTED, len(claims) - self._max_claim_events)
            if record.error is not None:
                span.set_status(Status(StatusCode.ERROR, record.error))
        finally:
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
            flush = getattr(provider, "force_flush", None)  # the API's providers have none; the SDK's do
            if callable(flush):
                flushed = bool(flush(millis)) and flushed
        return flushed

    def shutdown(self, timeout_s: float) -> None:
        """The providers belong to the app, which shuts them down; we only push out what we wrote."""
        self.force_flush(timeout_s)

    # ------------------------------------------------------------------ internals

    def _warn_about_missing_providers(self) -> None:
        """Once, at the first record: say so when the global providers are the API's placeholders, which drop
        everything (an app that never configured the SDK would otherwise see nothing, and no reason)."""
        if self._tracer_provider is None and type(trace.get_tracer_provider()).__name__ in _PLACEHOLDER_PROVIDERS:
            _log.warning(
                "ragmetrics: OtelEmitter %r has no OpenTelemetry tracer provider (none passed, and "
                "opentelemetry.trace.set_tracer_provider() was not called), so its evaluation spans go nowhere; "
                "configure the SDK (docs/tracing_backends.md) or pass tracer_provider=",
                self._name,
            )
        if (
            self._log_events
            and self._logger_provider is None
            and type(get_logger_provider()).__name__ in _PLACEHOLDER_PROVIDERS
        ):
            _log.warning(
                "ragmetrics: OtelEmitter %r has no OpenTelemetry logger provider (none passed, and "
                "opentelemetry._logs.set_logger_provider() was not called), so its gen_ai.evaluation.result events "
                "go nowhere; set one (docs/tracing_backends.md) or pass log_events=False",
                self._name,
            )

    def _end_created_spans(self, record: EvaluationRecord | None) -> None:
        """End the RAG span made for ``record`` (every one, for ``None``) and any left overdue."""
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
            span.end(end_time=end)

    def _emit_log_events(self, record: EvaluationRecord, context: Context) -> None:
        if record.result is not None:
            severity = SeverityNumber.INFO
            events = [attrs.result_event(metric, entry, record) for metric, entry in record.scores.items()]
        else:
            severity = SeverityNumber.ERROR
            events = [attrs.failure_event(metric, record) for metric in record.metrics]
        logger = self._get_logger()
        for attributes in events:
            logger.emit(
                timestamp=record.finished_ns,
                context=context,
                severity_number=severity,
                severity_text=severity.name,
                event_name=sc.EVALUATION_RESULT_EVENT,
                attributes=attributes,
            )

    def _get_tracer(self) -> Tracer:
        if self._tracer is None:
            self._tracer = trace.get_tracer(_SCOPE, _version(), tracer_provider=self._tracer_provider)
        return self._tracer

    def _get_logger(self) -> Logger:
        if self._logger is None:
            self._logger = get_logger(_SCOPE, _version(), logger_provider=self._logger_provider)
        return self._logger

    def _resolved_logger_provider(self) -> object:
        return self._logger_provider if self._logger_provider is not None else get_logger_provider()


def _context_of(subject: SpanRef | None) -> Context:
    if subject is None:
        return Context()
    flags = TraceFlags(subject.trace_flags & 0xFF)
    parent = NonRecordingSpan(SpanContext(subject.trace_id, subject.span_id, is_remote=True, trace_flags=flags))
    return trace.set_span_in_context(parent, Context())


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmetrics")
    except PackageNotFoundError:
        return "0"
