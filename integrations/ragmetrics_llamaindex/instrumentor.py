"""``RagMetricsInstrumentor``: score a LlamaIndex app's live queries without touching its code."""

from __future__ import annotations

import logging
import threading
import uuid
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Unpack

from llama_index.core.instrumentation import Dispatcher, get_dispatcher  # type: ignore[attr-defined]  # public path, implicit re-export

from ragmetrics_core._lazy import renamed_attribute, renamed_keyword
from ragmetrics_core.online.types import SampleSink
from ragmetrics_llamaindex._capture import CaptureScope
from ragmetrics_llamaindex._handlers import EventTap, SpanTap
from ragmetrics_llamaindex._snapshot import clip, contexts_of, merge_contexts
from ragmetrics_llamaindex._trace import Trace, TraceKind, TraceRegistry
from ragmetrics_llamaindex.options import CaptureOptions, CaptureSettings, capture_options
from ragmetrics_llamaindex.stats import CaptureStats, Outcome

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics_llamaindex")

_attached: weakref.WeakSet[RagMetricsInstrumentor] = weakref.WeakSet()
_attach_lock = threading.Lock()
"""Instrumentors with handlers on a dispatcher: at most one per dispatcher, or every query is submitted twice."""


def default_sink() -> SampleSink:
    """The process-wide default :class:`~ragmetrics_core.online.OnlinePipeline`, shared with the LangChain handler:
    the embedded judge, an ``OtelEmitter`` on the app's global providers, a bounded flush at exit."""
    from ragmetrics_core.online.defaults import default_pipeline

    return default_pipeline()


class CaptureHandle:
    """What a :meth:`RagMetricsInstrumentor.capture` block yields: supply what LlamaIndex did not see."""

    def __init__(self, trace: Trace | None, options: CaptureOptions) -> None:
        self._trace = trace
        self._options = options

    @property
    def active(self) -> bool:
        """False when the block is not traced (instrumentor not installed, or at capacity)."""
        return self._trace is not None and not self._trace.settled

    def set_question(self, question: str) -> None:
        if self._trace is not None:
            self._trace.user_input = clip(str(question), self._options.max_text_chars)

    def set_response(self, response: str) -> None:
        """The answer your code produced from the retrieved nodes (wins over any LLM call seen)."""
        if self._trace is not None:
            self._trace.response = clip(str(response), self._options.max_text_chars)
            self._trace.response_fixed = True

    def set_reference(self, reference: str) -> None:
        """The expected answer (ground truth) for this sample, for the metrics that compare against one."""
        if self._trace is not None:
            self._trace.reference = clip(str(reference), self._options.max_text_chars)

    def add_nodes(self, nodes: Iterable[object]) -> None:
        """Nodes the answer was built from that no instrumented retriever returned."""
        if self._trace is not None:
            extra = contexts_of(nodes, self._options.max_text_chars, self._options.max_contexts)
            self._trace.raw_retrieval = merge_contexts(self._trace.raw_retrieval, extra, self._options.max_contexts)


class RagMetricsInstrumentor:
    """Registers handlers on LlamaIndex's instrumentation dispatcher and turns each query into a sample.

    Every query-engine ``query``/``aquery``, every chat-engine ``chat``/``achat``/``stream_chat``/
    ``astream_chat`` and every :meth:`capture` block becomes one sample: the question, the nodes the LLM
    was given (the response's ``source_nodes``), and the answer; it is handed to ``pipeline`` (a
    :class:`~ragmetrics_core.online.types.SampleSink`) when the run, or the user's stream, has finished.
    Nothing is scored on the caller's thread and nothing we do can raise into it.
    """

    def __init__(
        self,
        pipeline: SampleSink | None = None,
        *,
        evaluator: SampleSink | None = None,
        **settings: Unpack[CaptureSettings],
    ) -> None:
        self._options = capture_options(settings)
        self._sink = renamed_keyword("RagMetricsInstrumentor", "evaluator", evaluator, "pipeline", pipeline)
        self._stats = CaptureStats()
        self._scope = CaptureScope()
        self._lock = threading.Lock()
        self._registry: TraceRegistry | None = None
        self._dispatcher: Dispatcher | None = None
        self._handlers: tuple[SpanTap, EventTap] | None = None

    @property
    def options(self) -> CaptureOptions:
        return self._options

    @property
    def pipeline(self) -> SampleSink | None:
        """The sink samples go to (created at :meth:`instrument` when none was given)."""
        return self._sink

    evaluator = renamed_attribute("RagMetricsInstrumentor", "evaluator", "pipeline")

    @property
    def is_instrumented(self) -> bool:
        return self._handlers is not None

    def instrument(self, dispatcher: Dispatcher | None = None) -> RagMetricsInstrumentor:
        """Attach to ``dispatcher`` (LlamaIndex's root dispatcher by default); idempotent.

        Another instrumentor attached to the same dispatcher (a notebook cell run twice) is detached, with a warning:
        both would capture, and submit, every query."""
        target = dispatcher if dispatcher is not None else get_dispatcher()
        with _attach_lock:
            with self._lock:
                if self._handlers is not None:
                    if target is not self._dispatcher:
                        raise RuntimeError(
                            "RagMetricsInstrumentor is already attached to dispatcher "
                            f"{self._dispatcher.name if self._dispatcher else '?'!r}; call uninstrument() first"
                        )
                    return self
            _detach_others(target)
            with self._lock:
                if self._sink is None:
                    self._sink = default_sink()
                registry = TraceRegistry(self._sink, self._options, self._stats)
                span_tap = SpanTap(registry, self._scope)
                event_tap = EventTap(registry)
                target.add_span_handler(span_tap)
                target.add_event_handler(event_tap)
                self._registry, self._dispatcher, self._handlers = registry, target, (span_tap, event_tap)
            _attached.add(self)
        return self

    def uninstrument(self) -> None:
        """Detach the handlers and forget the queries still in flight (they are counted, not submitted)."""
        with self._lock:
            if self._handlers is None or self._dispatcher is None:
                return
            span_tap, event_tap = self._handlers
            dispatcher = self._dispatcher
            # Rebind rather than mutate: the dispatcher may be iterating the old lists on another thread.
            dispatcher.span_handlers = [h for h in dispatcher.span_handlers if h is not span_tap]
            dispatcher.event_handlers = [h for h in dispatcher.event_handlers if h is not event_tap]
            registry = self._registry
            self._registry, self._dispatcher, self._handlers = None, None, None
        _attached.discard(self)
        if registry is not None:
            registry.drop_all()

    def stats(self) -> dict[str, int]:
        """What happened to the runs seen so far, by outcome, plus how many are open right now."""
        counts = self._stats.snapshot()
        registry = self._registry
        counts["open"] = registry.open_count if registry is not None else 0
        return counts

    @contextmanager
    def capture(
        self, question: str | None = None, *, chain_name: str | None = None, reference: str | None = None
    ) -> Iterator[CaptureHandle]:
        """Group everything LlamaIndex does inside the block into one sample.

        For retriever-only code: the contexts are the nodes of the block's retrievals, the answer is what
        you pass to :meth:`CaptureHandle.set_response` (else the last LLM answer seen in the block). The
        question defaults to the first retrieval's query; ``reference`` (or :meth:`CaptureHandle.set_reference`)
        attaches the expected answer, for the reference-based metrics. An exception leaving the block drops the sample
        and propagates unchanged; a block with no answer is counted as incomplete.
        """
        registry = self._registry
        trace = None
        if registry is not None:
            trace = registry.open(TraceKind.CAPTURE, f"capture-{uuid.uuid4()}", chain_name or "capture")
        handle = CaptureHandle(trace, self._options)
        if registry is None or trace is None:
            yield handle
            return
        if question is not None:
            handle.set_question(question)
        if reference is not None:
            handle.set_reference(reference)
        token = self._scope.var.set(trace)
        try:
            yield handle
        except BaseException:
            registry.drop(trace, Outcome.DROPPED_ERROR)
            raise
        finally:
            self._scope.var.reset(token)
        registry.submit(trace, trace.response)

    def __enter__(self) -> RagMetricsInstrumentor:
        return self.instrument()

    def __exit__(self, *exc: Any) -> None:
        self.uninstrument()


def _detach_others(target: Dispatcher) -> None:
    """Remove every other instrumentor's handlers from ``target``, including those of one garbage-collected while
    attached (its handlers stay on the dispatcher)."""
    others = [other for other in list(_attached) if other._dispatcher is target]
    for other in others:
        other.uninstrument()
    stale_spans = [h for h in target.span_handlers if isinstance(h, SpanTap)]
    stale_events = [h for h in target.event_handlers if isinstance(h, EventTap)]
    if stale_spans or stale_events:
        # Rebind rather than mutate, as uninstrument() does: the dispatcher may be iterating on another thread.
        target.span_handlers = [h for h in target.span_handlers if not isinstance(h, SpanTap)]
        target.event_handlers = [h for h in target.event_handlers if not isinstance(h, EventTap)]
        for tap in stale_spans:
            tap.registry.drop_all()
    if others or stale_spans or stale_events:
        _log.warning(
            "ragmetrics: another RagMetricsInstrumentor was attached to LlamaIndex dispatcher %r (a cell run "
            "twice?); it is detached, so that each query is captured once, by the new one",
            target.name,
        )
