"""The OpenTelemetry span active when a user's query starts (read only; we never attach a context)."""

from __future__ import annotations

from typing import NamedTuple

try:
    from opentelemetry import trace as _otel_trace
except ImportError:  # the otel extra is optional
    _otel_trace = None  # type: ignore[assignment]


class SpanRef(NamedTuple):
    trace_id: int | None
    span_id: int | None
    trace_flags: int


NO_SPAN = SpanRef(None, None, 0)


def active_span() -> SpanRef:
    """Ids of the current OpenTelemetry span, or :data:`NO_SPAN` when there is none (or no OTel)."""
    if _otel_trace is None:
        return NO_SPAN
    context = _otel_trace.get_current_span().get_span_context()
    if not context.is_valid:
        return NO_SPAN
    return SpanRef(context.trace_id, context.span_id, int(context.trace_flags))
