"""What the app's OpenTelemetry SDK does with what the OTel emitter hands it.

Two questions decide whether the emitter needs a thread of its own (``ragmetrics_core.online.emitters.base``):

* can handing over a span or a log record block the caller? Not with the SDK's ``BatchSpanProcessor`` and
  ``BatchLogRecordProcessor``: they append to a bounded queue that their own thread exports (and they survive
  fork). A ``SimpleSpanProcessor`` exports on the caller's thread, and a processor we do not know may do
  anything, so either keeps the emitter behind its own thread, as does a provider that is not the SDK's (the
  API's proxy may become any provider later).
* how many items did those queues drop? The SDK counts drops only in its own metrics, for the whole app, so
  the emitter notes each hand-off made while a queue was full (the SDK then drops its oldest item). The figure is
  an estimate: the export thread may free a slot, or the app's own spans take one, between our look and the
  SDK's append.

The SDK exposes neither its processors nor its queues; both are read from its (stable since 1.33) private
attributes, and anything not found means "may block" (the safe answer) or "not counted".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


class SdkHandOff:
    """The batch processors' queues of one tracer and one logger provider, when nothing there can block."""

    def __init__(self, span_queues: Sequence[deque[object]], log_queues: Sequence[deque[object]]) -> None:
        self._span_queues = tuple(q for q in span_queues if q.maxlen is not None)
        self._log_queues = tuple(q for q in log_queues if q.maxlen is not None)
        self.dropped = 0

    def note_span(self) -> None:
        """Call just before ending a span: counts a drop when a span queue is full."""
        self.dropped += _full(self._span_queues)

    def note_log(self) -> None:
        """Call just before emitting a log record: counts a drop when a log queue is full."""
        self.dropped += _full(self._log_queues)


def non_blocking_hand_off(tracer_provider: object, logger_provider: object | None) -> SdkHandOff | None:
    """The queues behind the providers when every processor is a batch processor; ``None`` when handing an
    item over may block (or we cannot tell). ``logger_provider`` is ``None`` when no logs are emitted."""
    span_queues = _batch_queues(tracer_provider, "traces")
    if span_queues is None:
        return None
    log_queues: list[deque[object]] = []
    if logger_provider is not None:
        found = _batch_queues(logger_provider, "logs")
        if found is None:
            return None
        log_queues = found
    return SdkHandOff(span_queues, log_queues)


def _batch_queues(provider: object, signal: str) -> list[deque[object]] | None:
    try:
        if signal == "traces":
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor as Batch

            if not isinstance(provider, TracerProvider):
                return None
            processors = getattr(getattr(provider, "_active_span_processor", None), "_span_processors", None)
        else:
            from opentelemetry.sdk._logs import LoggerProvider
            from opentelemetry.sdk._logs.export import BatchLogRecordProcessor as Batch  # type: ignore[assignment]

            if not isinstance(provider, LoggerProvider):
                return None
            multi = getattr(provider, "_multi_log_record_processor", None)
            processors = getattr(multi, "_log_record_processors", None)
    except ImportError:  # the API without the SDK: some other provider, which may do anything
        return None
    if not isinstance(processors, tuple) or not all(type(p) is Batch for p in processors):
        return None  # a SimpleSpanProcessor, a subclass or a processor of the app's own: it may block
    queues = [getattr(getattr(p, "_batch_processor", None), "_queue", None) for p in processors]
    return [q for q in queues if isinstance(q, deque)]


def _full(queues: tuple[deque[object], ...]) -> int:
    return sum(1 for q in queues if len(q) >= (q.maxlen or 0))
