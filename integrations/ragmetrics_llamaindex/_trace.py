"""Per-query state, correlated by span (or legacy event) ids, and its hand-off to the sample sink.

A *trace* is one user-level run: a query, a chat turn, or a :meth:`capture` block. Every span opened
under its root is mapped to it, so events can find their trace by the span they were emitted in, under
threads and concurrent tasks alike. All state is freed when the root finishes, fails, or its stream ends
or is abandoned.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ragmetrics_core.online.capture import active_span
from ragmetrics_core.online.types import ContextDraft, Origin, SampleDraft, SampleSink, SpanRef
from ragmetrics_llamaindex._snapshot import merge_contexts
from ragmetrics_llamaindex.options import CaptureOptions
from ragmetrics_llamaindex.stats import CaptureStats, Outcome

_log = logging.getLogger("ragmetrics_llamaindex")

FRAMEWORK = "llamaindex"


class TraceKind(StrEnum):
    QUERY = "query"
    CHAT = "chat"
    CAPTURE = "capture"


@dataclass(slots=True, eq=False)
class Trace:
    kind: TraceKind
    root_id: str
    chain_name: str | None
    otel: SpanRef | None
    start_ns: int
    instrument_tags: dict[str, Any]
    user_input: str | None = None
    contexts: list[ContextDraft] | None = None
    raw_retrieval: list[ContextDraft] = field(default_factory=list)
    response: str | None = None
    response_object: object = None
    response_fixed: bool = False
    reference: str | None = None
    nested_queries: int = 0
    span_ids: list[str] = field(default_factory=list)
    retrieval_spans: set[str] = field(default_factory=set)
    writer_span: str | None = None
    writer_text: str | None = None
    writer_done: bool = False
    awaiting_writer: bool = False
    damaged: bool = False
    settled: bool = False


class TraceRegistry:
    """Open traces, the span → trace map, capacity, and submission to the sink."""

    def __init__(self, sink: SampleSink, options: CaptureOptions, stats: CaptureStats) -> None:
        self.sink = sink
        self.options = options
        self.stats = stats
        self.owners: dict[str, Trace] = {}
        self.in_retrieval: set[str] = set()
        # Re-entrant: garbage collection of an abandoned stream may settle a trace on a thread holding it.
        self._lock = threading.RLock()
        self._live: set[Trace] = set()
        self._sink_warned = False

    @property
    def open_count(self) -> int:
        return len(self._live)

    def open(
        self,
        kind: TraceKind,
        root_id: str,
        chain_name: str | None,
        instrument_tags: dict[str, Any] | None = None,
    ) -> Trace | None:
        """Start tracking a run rooted at ``root_id``; None (and counted) when at capacity."""
        with self._lock:
            if len(self._live) >= self.options.max_open_queries:
                self.stats.add(Outcome.DROPPED_CAPACITY)
                return None
            trace = Trace(
                kind=kind,
                root_id=root_id,
                chain_name=self.options.chain_name or chain_name,
                otel=active_span(),
                start_ns=time.time_ns(),
                instrument_tags=dict(instrument_tags or {}),
            )
            self._live.add(trace)
        self.adopt(root_id, trace)
        self.stats.add(Outcome.STARTED)
        return trace

    def adopt(self, span_id: str, trace: Trace) -> None:
        self.owners[span_id] = trace
        trace.span_ids.append(span_id)

    def release_span(self, span_id: str) -> Trace | None:
        self.in_retrieval.discard(span_id)
        return self.owners.pop(span_id, None)

    def note_retrieval_start(self, trace: Trace, span_id: str) -> None:
        """Mark ``span_id`` as a retrieval; only retrievals not nested in another one are kept."""
        if span_id not in self.in_retrieval:
            trace.retrieval_spans.add(span_id)
            self.in_retrieval.add(span_id)

    def note_retrieval_end(self, trace: Trace, span_id: str, drafts: list[ContextDraft]) -> None:
        if span_id in trace.retrieval_spans:
            trace.raw_retrieval = merge_contexts(trace.raw_retrieval, drafts, self.options.max_contexts)

    def _settle(self, trace: Trace) -> bool:
        """Mark ``trace`` finished and free its spans; False when it already was."""
        with self._lock:
            if trace.settled:
                return False
            trace.settled = True
            self._live.discard(trace)
        for span_id in trace.span_ids:
            if self.owners.get(span_id) is trace:
                self.release_span(span_id)
        trace.span_ids.clear()
        trace.retrieval_spans.clear()
        trace.response_object = None
        return True

    def damage(self, span_id: str | None) -> None:
        """Our handler failed on an event of this span's trace: the sample would be partial, so drop it."""
        trace = self.owners.get(span_id) if span_id is not None else None
        if trace is not None:
            trace.damaged = True

    def drop(self, trace: Trace, outcome: Outcome) -> None:
        if self._settle(trace):
            self.stats.add(outcome)

    def drop_all(self) -> None:
        """Forget every open trace (used when the instrumentor is removed)."""
        with self._lock:
            live = list(self._live)
        for trace in live:
            self.drop(trace, Outcome.DROPPED_UNINSTRUMENTED)

    def submit(self, trace: Trace, response: str | None) -> None:
        """Hand the finished run to the sink (or record why not) and free its state."""
        if not self._settle(trace):
            return
        if trace.damaged or trace.user_input is None or response is None:
            self.stats.add(Outcome.DROPPED_INCOMPLETE)
            return
        draft, origin = self._build(trace, response)
        try:
            self.sink.submit(draft, origin)
        except Exception:  # the sink contract says it never raises; the user's run must not fail if it does
            self.stats.add(Outcome.SINK_ERROR)
            # Warn once: logging may do I/O, and this runs on the user's thread for every query.
            if not self._sink_warned:
                self._sink_warned = True
                _log.warning("ragmetrics sample sink raised; samples are dropped (counted)", exc_info=True)
            return
        self.stats.add(Outcome.SUBMITTED)

    def _build(self, trace: Trace, response: str) -> tuple[SampleDraft, Origin]:
        metadata: dict[str, Any] = {"llamaindex.kind": trace.kind.value}
        if self.options.capture_raw_retrieval and trace.kind is not TraceKind.CAPTURE:
            metadata["llamaindex.raw_retrieval"] = [
                {"id": c.id, "score": c.score, "text": c.text} for c in trace.raw_retrieval
            ]
        if trace.nested_queries:
            metadata["llamaindex.nested_queries"] = trace.nested_queries
        contexts = trace.contexts if trace.contexts is not None else trace.raw_retrieval
        draft = SampleDraft(
            user_input=trace.user_input,
            contexts=list(contexts),
            response=response,
            reference=trace.reference,
            metadata=metadata,
        )
        origin = Origin(
            framework=FRAMEWORK,
            chain_name=trace.chain_name,
            run_id=trace.root_id,
            span=trace.otel,
            tags=self.options.tags,
            metadata={"instrument_tags": trace.instrument_tags} if trace.instrument_tags else {},
            start_time_ns=trace.start_ns,
            end_time_ns=time.time_ns(),
        )
        return draft, origin

    def writer_finished(self, trace: Trace, text: str | None) -> None:
        """The chat-stream writer has read the whole LLM stream; submit once the root has returned too."""
        with self._lock:
            trace.writer_done = True
            trace.writer_text = text
            ready = trace.awaiting_writer
        if ready:
            self.submit(trace, text)

    def await_writer(self, trace: Trace) -> None:
        """The streaming chat root has returned; submit now if its writer already finished."""
        with self._lock:
            trace.awaiting_writer = True
            ready = trace.writer_done
            if not ready:
                # Keep the root mapped: the writer's span is its child and may start only now.
                self.owners[trace.root_id] = trace
        if ready:
            self.submit(trace, trace.writer_text)
