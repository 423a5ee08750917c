"""``RagMetricsCallbackHandler``: the same capture for code still wired through ``Settings.callback_manager``.

LlamaIndex's legacy callback system reports ``QUERY`` and ``RETRIEVE`` events with parent ids; a ``QUERY``
event with no traced parent starts a sample, and its end (with the ``RESPONSE`` payload) finishes it.
Chat engines are covered by :class:`~ragmetrics_llamaindex.RagMetricsInstrumentor` only. Use one of the two
per application, not both (each would submit its own copy of every query).
"""

from __future__ import annotations

import logging
from typing import Any, Unpack

from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.callbacks.schema import CBEventType, EventPayload

from ragmetrics_core._lazy import renamed_attribute, renamed_keyword
from ragmetrics_core.online.types import SampleSink
from ragmetrics_llamaindex._handlers import wrap_stream
from ragmetrics_llamaindex._snapshot import contexts_of, query_text, response_text, source_nodes_of
from ragmetrics_llamaindex._trace import Trace, TraceKind, TraceRegistry
from ragmetrics_llamaindex.options import CaptureSettings, capture_options
from ragmetrics_llamaindex.stats import CaptureStats, Outcome

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics_llamaindex")


class RagMetricsCallbackHandler(BaseCallbackHandler):
    """A legacy ``CallbackManager`` handler: add it with ``Settings.callback_manager.add_handler(...)``."""

    def __init__(
        self,
        pipeline: SampleSink | None = None,
        *,
        evaluator: SampleSink | None = None,
        **settings: Unpack[CaptureSettings],
    ) -> None:
        super().__init__(event_starts_to_ignore=[], event_ends_to_ignore=[])
        options = capture_options(settings)
        pipeline = renamed_keyword("RagMetricsCallbackHandler", "evaluator", evaluator, "pipeline", pipeline)
        if pipeline is None:
            from ragmetrics_llamaindex.instrumentor import default_sink

            pipeline = default_sink()
        self._stats = CaptureStats()
        self._registry = TraceRegistry(pipeline, options, self._stats)

    @property
    def pipeline(self) -> SampleSink:
        return self._registry.sink

    evaluator = renamed_attribute("RagMetricsCallbackHandler", "evaluator", "pipeline")

    def stats(self) -> dict[str, int]:
        counts = self._stats.snapshot()
        counts["open"] = self._registry.open_count
        return counts

    def on_event_start(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        parent_id: str = "",
        **kwargs: Any,
    ) -> str:
        try:
            self._start(event_type, payload or {}, event_id, parent_id)
        except Exception:
            self._internal_error()
        return event_id

    def _start(self, event_type: CBEventType, payload: dict[str, Any], event_id: str, parent_id: str) -> None:
        registry = self._registry
        trace = registry.owners.get(parent_id)
        if trace is not None and not trace.settled:
            registry.adopt(event_id, trace)
            if parent_id in registry.in_retrieval:
                registry.in_retrieval.add(event_id)
            if event_type is CBEventType.RETRIEVE and registry.options.capture_raw_retrieval:
                registry.note_retrieval_start(trace, event_id)
            elif event_type is CBEventType.QUERY:
                trace.nested_queries += 1
            return
        if event_type is CBEventType.QUERY:
            opened = registry.open(TraceKind.QUERY, event_id, "query")
            if opened is not None:
                opened.user_input = query_text(payload.get(EventPayload.QUERY_STR), registry.options.max_text_chars)

    def on_event_end(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        **kwargs: Any,
    ) -> None:
        try:
            self._end(event_type, payload or {}, event_id)
        except Exception:
            self._internal_error()

    def _end(self, event_type: CBEventType, payload: dict[str, Any], event_id: str) -> None:
        registry = self._registry
        trace = registry.owners.get(event_id)
        if trace is None or trace.settled:
            registry.release_span(event_id)
            return
        options = registry.options
        if event_type is CBEventType.RETRIEVE:
            nodes = payload.get(EventPayload.NODES)
            registry.note_retrieval_end(
                trace, event_id, contexts_of(nodes, options.max_text_chars, options.max_contexts)
            )
        registry.release_span(event_id)
        if event_id == trace.root_id:
            self._finish_root(trace, payload)

    def _finish_root(self, trace: Trace, payload: dict[str, Any]) -> None:
        registry = self._registry
        options = registry.options
        if EventPayload.EXCEPTION in payload or EventPayload.RESPONSE not in payload:
            registry.drop(trace, Outcome.DROPPED_ERROR)
            return
        response = payload[EventPayload.RESPONSE]
        trace.contexts = contexts_of(source_nodes_of(response), options.max_text_chars, options.max_contexts)
        if wrap_stream(registry, trace, response):
            return
        registry.submit(trace, response_text(response, options.max_text_chars))

    def start_trace(self, trace_id: str | None = None) -> None:
        return None

    def end_trace(self, trace_id: str | None = None, trace_map: dict[str, list[str]] | None = None) -> None:
        return None

    def _internal_error(self) -> None:
        self._stats.add(Outcome.INTERNAL_ERROR)
        _log.debug("ragmetrics LlamaIndex callback handler failed", exc_info=True)
