"""Build an :class:`Origin` from the active OpenTelemetry span, for code that submits samples by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmetrics_core.online.types import Origin, SpanRef


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
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return Origin(
        framework=framework,
        chain_name=chain_name,
        run_id=run_id,
        span=SpanRef.of(context),
        tags=tuple(tags),
        metadata=dict(metadata or {}),
        start_time_ns=start_time_ns,
        end_time_ns=end_time_ns,
    )
