"""The two LlamaIndex instrumentation handlers: spans give the correlation, events give the content.

Both only read what they are handed and update small maps; any failure of ours is counted and swallowed
(the dispatcher swallows handler errors as well, but we do not rely on it).
"""

from __future__ import annotations

import inspect
import logging
import weakref
from typing import Any

from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.chat_engine.types import BaseChatEngine, StreamingAgentChatResponse
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMCompletionEndEvent
from llama_index.core.instrumentation.events.query import QueryEndEvent, QueryStartEvent
from llama_index.core.instrumentation.events.retrieval import RetrievalEndEvent, RetrievalStartEvent
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from pydantic import BaseModel, Field

from ragmetrics_llamaindex._capture import CaptureScope
from ragmetrics_llamaindex._snapshot import (
    contexts_of,
    query_text,
    response_text,
    source_nodes_of,
)
from ragmetrics_llamaindex._streams import PendingStream, atap, chat_delta_text, tap, token_text
from ragmetrics_llamaindex._trace import Trace, TraceKind, TraceRegistry
from ragmetrics_llamaindex.stats import Outcome

_log = logging.getLogger("ragmetrics_llamaindex")

CHAT_METHODS = frozenset({"chat", "achat", "stream_chat", "astream_chat"})
_WRITER_METHODS = frozenset({"write_response_to_history", "awrite_response_to_history"})
# Span ids are "<Class>.<method>-<uuid4>"; a uuid4 string is 36 characters.
_UUID_SUFFIX = 37


def method_of(span_id: str) -> str:
    """The method name inside a dispatcher span id."""
    qualified = span_id[:-_UUID_SUFFIX]
    return qualified.rpartition(".")[2]


def _internal_error(registry: TraceRegistry, span_id: str | None) -> None:
    registry.stats.add(Outcome.INTERNAL_ERROR)
    _log.debug("ragmetrics LlamaIndex handler failed", exc_info=True)
    try:
        registry.damage(span_id)
    except Exception:
        _log.debug("ragmetrics could not mark a trace as damaged", exc_info=True)


def wrap_stream(registry: TraceRegistry, trace: Trace, response: object) -> bool:
    """Swap a streaming response's generator for a pass-through tap; False when there is none to wrap."""
    limit = registry.options.max_text_chars
    pending = PendingStream(registry, trace)
    if isinstance(response, StreamingResponse) and response.response_gen is not None:
        response.response_gen = tap(response.response_gen, pending, token_text, limit)
        return True
    if isinstance(response, AsyncStreamingResponse) and response.response_gen is not None:
        response.response_gen = atap(response.response_gen, pending, token_text, limit)
        return True
    if isinstance(response, StreamingAgentChatResponse) and not response.is_writing_to_memory:
        # No writer thread reads this stream: the user's iteration does, so tap it.
        if response.chat_stream is not None:
            response.chat_stream = tap(response.chat_stream, pending, chat_delta_text, limit)
            return True
        if response.achat_stream is not None:
            response.achat_stream = atap(response.achat_stream, pending, chat_delta_text, limit)
            return True
    return False


def _drop_quietly(registry: TraceRegistry, trace: Trace) -> None:
    """Free a trace whose end we failed to process, so a bug of ours cannot leak state."""
    try:
        registry.drop(trace, Outcome.DROPPED_INCOMPLETE)
    except Exception:
        _log.debug("ragmetrics could not free a trace", exc_info=True)


class SpanTap(BaseSpanHandler[Any]):
    """Maps every span to the trace of its root and finishes traces when their root span ends."""

    # Plain fields, not pydantic private attributes: those are read through ``__getattr__``, which costs
    # microseconds on every span of every query.
    registry: TraceRegistry = Field(exclude=True)
    scope: CaptureScope = Field(exclude=True)
    chat_types: dict[type, bool] = Field(default_factory=dict, exclude=True)

    def __init__(self, registry: TraceRegistry, capture: CaptureScope) -> None:
        # ``BaseSpanHandler.__init__`` only forwards its own defaults and cannot take our fields.
        BaseModel.__init__(self, registry=registry, scope=capture)
        self._lock = None

    def _is_chat_engine(self, cls: type) -> bool:
        # ``BaseChatEngine`` is an ABC, whose isinstance check costs more than a dict lookup on every span.
        known = self.chat_types.get(cls)
        if known is None:
            known = self.chat_types[cls] = issubclass(cls, BaseChatEngine)
        return known

    @classmethod
    def class_name(cls) -> str:
        return "RagMetricsSpanTap"

    # The base class builds a span object per call; we only need the id map, so the hooks are overridden.
    def span_enter(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            self._enter(id_, bound_args, instance, parent_id, tags)
        except Exception:
            _internal_error(self.registry, parent_id)

    def _enter(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any,
        parent_id: str | None,
        tags: dict[str, Any] | None,
    ) -> None:
        registry = self.registry
        trace = registry.owners.get(parent_id) if parent_id is not None else None
        if trace is None:
            trace = self.scope.current()
        if trace is not None:
            if trace.settled:
                return
            registry.adopt(id_, trace)
            if parent_id is not None and parent_id in registry.in_retrieval:
                registry.in_retrieval.add(id_)
            if isinstance(instance, StreamingAgentChatResponse) and method_of(id_) in _WRITER_METHODS:
                trace.writer_span = id_
            return
        if instance is not None and self._is_chat_engine(type(instance)) and method_of(id_) in CHAT_METHODS:
            chat = registry.open(TraceKind.CHAT, id_, type(instance).__name__, tags)
            if chat is not None:
                message = bound_args.arguments.get("message")
                chat.user_input = query_text(message, registry.options.max_text_chars)

    def span_exit(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> None:
        registry = self.registry
        trace: Trace | None = None
        try:
            trace = registry.release_span(id_)
            if trace is None or trace.settled:
                return
            if id_ == trace.writer_span:
                text = instance.response if isinstance(instance, StreamingAgentChatResponse) else None
                registry.writer_finished(trace, text if isinstance(text, str) else None)
            elif id_ == trace.root_id:
                self._finish_root(trace, result)
        except Exception:
            _internal_error(registry, None)
            if trace is not None and id_ in (trace.root_id, trace.writer_span):
                _drop_quietly(registry, trace)

    def _finish_root(self, trace: Trace, result: Any) -> None:
        registry = self.registry
        limit = registry.options.max_text_chars
        if trace.kind is TraceKind.CHAT:
            nodes = source_nodes_of(result)
            if nodes is not None:
                trace.contexts = contexts_of(nodes, limit, registry.options.max_contexts)
            trace.response = response_text(result, limit)
        response = trace.response_object if trace.response_object is not None else result
        if isinstance(response, StreamingAgentChatResponse) and response.is_writing_to_memory:
            # A writer thread/task reads the LLM stream whatever the user does; submit when it is done.
            weakref.finalize(response, registry.drop, trace, Outcome.DROPPED_ABANDONED)
            registry.await_writer(trace)
        elif wrap_stream(registry, trace, response):
            for span_id in trace.span_ids:
                registry.release_span(span_id)
            trace.span_ids.clear()
            trace.response_object = None
        else:
            if trace.kind is TraceKind.QUERY and trace.response is None:
                trace.response = response_text(response, limit)
            registry.submit(trace, trace.response)

    def span_drop(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            trace = self.registry.release_span(id_)
            if trace is not None and id_ in (trace.root_id, trace.writer_span):
                self.registry.drop(trace, Outcome.DROPPED_ERROR)
        except Exception:
            _internal_error(self.registry, id_)

    def new_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_span_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        return None

    def prepare_to_exit_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> None:
        return None

    def prepare_to_drop_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> None:
        return None


class EventTap(BaseEventHandler):
    """Copies the question, nodes and answer of each traced query out of LlamaIndex's events."""

    registry: TraceRegistry = Field(exclude=True)

    def __init__(self, registry: TraceRegistry) -> None:
        super().__init__(registry=registry)

    @classmethod
    def class_name(cls) -> str:
        return "RagMetricsEventTap"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        try:
            handler = _EVENT_HANDLERS.get(type(event))
            if handler is not None:
                handler(self.registry, event)
        except Exception:
            _internal_error(self.registry, event.span_id)


def _owner(registry: TraceRegistry, event: BaseEvent) -> Trace | None:
    span_id = event.span_id
    trace = registry.owners.get(span_id) if span_id is not None else None
    return None if trace is None or trace.settled else trace


def _on_query_start(registry: TraceRegistry, event: Any) -> None:
    trace = _owner(registry, event)
    question = query_text(event.query, registry.options.max_text_chars)
    if trace is None:
        if event.span_id is None:
            registry.stats.add(Outcome.UNCORRELATED)
            return
        instance_name = event.span_id[:-_UUID_SUFFIX].rpartition(".")[0] or None
        trace = registry.open(TraceKind.QUERY, event.span_id, instance_name, event.tags)
        if trace is not None:
            trace.user_input = question
        return
    if event.span_id != trace.root_id:
        trace.nested_queries += 1
    if trace.user_input is None:
        trace.user_input = question


def _on_query_end(registry: TraceRegistry, event: Any) -> None:
    trace = _owner(registry, event)
    if trace is None or event.span_id != trace.root_id:
        return
    options = registry.options
    trace.contexts = contexts_of(source_nodes_of(event.response), options.max_text_chars, options.max_contexts)
    trace.response = response_text(event.response, options.max_text_chars)
    trace.response_object = event.response


def _on_retrieval_start(registry: TraceRegistry, event: Any) -> None:
    trace = _owner(registry, event)
    if trace is None:
        return
    if trace.kind is TraceKind.CAPTURE and trace.user_input is None:
        trace.user_input = query_text(event.str_or_query_bundle, registry.options.max_text_chars)
    if registry.options.capture_raw_retrieval or trace.kind is TraceKind.CAPTURE:
        registry.note_retrieval_start(trace, event.span_id)


def _on_retrieval_end(registry: TraceRegistry, event: Any) -> None:
    trace = _owner(registry, event)
    if trace is None or event.span_id not in trace.retrieval_spans:
        return
    options = registry.options
    registry.note_retrieval_end(
        trace, event.span_id, contexts_of(event.nodes, options.max_text_chars, options.max_contexts)
    )


def _on_llm_end(registry: TraceRegistry, event: Any) -> None:
    trace = _owner(registry, event)
    if trace is None or trace.kind is not TraceKind.CAPTURE or trace.response_fixed:
        return
    response = event.response
    if isinstance(event, LLMChatEndEvent):
        text = response.message.content if response is not None else None
    else:
        text = response.text
    if isinstance(text, str):
        trace.response = text[: registry.options.max_text_chars]


_EVENT_HANDLERS: dict[type, Any] = {
    QueryStartEvent: _on_query_start,
    QueryEndEvent: _on_query_end,
    RetrievalStartEvent: _on_retrieval_start,
    RetrievalEndEvent: _on_retrieval_end,
    LLMCompletionEndEvent: _on_llm_end,
    LLMChatEndEvent: _on_llm_end,
}
