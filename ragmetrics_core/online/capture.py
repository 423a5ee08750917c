"""The active OpenTelemetry span, as the integrations and hand-written submissions read it.

Read without importing OpenTelemetry: no span can be current unless the app loaded ``opentelemetry.trace``, so an
app without tracing pays nothing for it, and one with tracing has it loaded already.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ragmetrics_core.online.types import Origin, SpanRef

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def current_origin(
    *,
    framework: str = "manual",
    chain_name: str | None = None,
    run_id: str | None = None,
    tags: tuple[str, ...] = (),
    metadata: Mapping[str, Any] | None = None,
    start_time_ns: int | None = None,
    end_time_ns: int | None = None,
) -> Origin:
    """The origin of a run whose span is active now (no trace ids when there is none).

    Call it while the RAG span is current (inside ``with tracer.start_as_current_span(...)``): the scores
    are then attached to that span even after it has ended.
    """
    return Origin(
        framework=framework,
        chain_name=chain_name,
        run_id=run_id,
        span=active_span(),
        tags=tuple(tags),
        metadata=dict(metadata or {}),
        start_time_ns=start_time_ns,
        end_time_ns=end_time_ns,
    )


def active_span() -> SpanRef | None:
    """The span current in this context, or ``None`` when there is none (or OpenTelemetry was never imported)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    span = trace.get_current_span()
    if span is trace.INVALID_SPAN:  # the common case without a span: no context to read
        return None
    return SpanRef.of(span.get_span_context())
