"""The OpenTelemetry span active when a user's query starts (read only; we never attach a context)."""

from __future__ import annotations

from ragmetrics_core.online.types import SpanRef

try:
    from opentelemetry import trace as _otel_trace
except ImportError:  # the otel extra is optional
    _otel_trace = None  # type: ignore[assignment]


def active_span() -> SpanRef | None:
    """The current OpenTelemetry span, or ``None`` when there is none (or no OTel)."""
    if _otel_trace is None:
        return None
    return SpanRef.of(_otel_trace.get_current_span().get_span_context())
