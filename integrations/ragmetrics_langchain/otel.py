"""The OpenTelemetry span a run belongs to, read without ever touching the active context.

Two sources, both optional:

* the span active when the run starts (the app's own span, or one an instrumentation made current);
* OpenInference's span for the run itself. OpenInference's LangChain tracer deliberately never makes its
  spans current (it keeps them in a map by run id), so without asking it the app's LangChain trace would be
  invisible to us whenever the app has no span of its own around the call.

Without OpenTelemetry (or without any valid span) there is no :class:`SpanRef` (``None``) and the online
pipeline creates the RAG span itself.
"""

from __future__ import annotations

import sys
from typing import Any
from uuid import UUID

try:
    from opentelemetry import trace as _trace
except ImportError:  # pragma: no cover - exercised only on installs without the otel extra
    _trace = None  # type: ignore[assignment]

from ragmetrics_core.online.types import SpanRef

_OPENINFERENCE_LANGCHAIN = "openinference.instrumentation.langchain"


def _ref(span: Any) -> SpanRef | None:
    context = span.get_span_context()
    if not context.is_valid:
        return None
    return SpanRef(context.trace_id, context.span_id, int(context.trace_flags))


def current_span() -> SpanRef | None:
    if _trace is None:
        return None
    span = _trace.get_current_span()
    if span is _trace.INVALID_SPAN:  # the common case without tracing: no span context to read
        return None
    return _ref(span)


def openinference_span(run_id: UUID) -> SpanRef | None:
    """The span OpenInference opened for ``run_id``, when the app instrumented LangChain with it.

    Only looks at an instrumentor the app already created; never imports, creates or enables one.
    """
    module = sys.modules.get(_OPENINFERENCE_LANGCHAIN)
    if module is None:
        return None
    # BaseInstrumentor is a singleton kept in ``_instance``; its ``_tracer`` is None unless instrumented.
    instrumentor = getattr(module.LangChainInstrumentor, "_instance", None)
    tracer = getattr(instrumentor, "_tracer", None)
    if tracer is None:
        return None
    span = tracer.get_span(run_id)
    return None if span is None else _ref(span)
