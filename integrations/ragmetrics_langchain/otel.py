"""The OpenTelemetry span that is active when a run starts, read without touching the context.

OpenTelemetry is optional: without it (or without an active, valid span) the ids are ``None`` and the
online pipeline creates the RAG span itself.
"""

from __future__ import annotations

from typing import NamedTuple

try:
    from opentelemetry import trace as _trace
except ImportError:  # pragma: no cover - exercised only on installs without the otel extra
    _trace = None  # type: ignore[assignment]


class SpanIds(NamedTuple):
    trace_id: int | None
    span_id: int | None
    trace_flags: int


NO_SPAN = SpanIds(None, None, 0)


def current_span_ids() -> SpanIds:
    if _trace is None:
        return NO_SPAN
    context = _trace.get_current_span().get_span_context()
    if not context.is_valid:
        return NO_SPAN
    return SpanIds(context.trace_id, context.span_id, int(context.trace_flags))
