"""What an emitter is (where evaluation records go: OpenTelemetry, Phoenix, JSONL, a callback) and how each is run.

No emitter ever holds up another one, or the scoring. Every emitter runs on its own thread behind a bounded
queue (:class:`EmitterThread`), so its ``emit`` may block on I/O (Phoenix's REST calls, a file, an OTel SDK with
a ``SimpleSpanProcessor``) and a slow, failing or hung emitter delays nobody but itself. The thread asks nothing
of the emitter beyond the :class:`Emitter` protocol: in particular, nothing of an OpenTelemetry SDK's internals.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ragmetrics_core.online.types import EvaluationRecord, Origin, SampleView, SpanRef

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


@runtime_checkable
class Emitter(Protocol):
    @property
    def name(self) -> str:
        """A short label for stats and logs, e.g. ``otel`` or ``phoenix``."""
        ...

    def emit(self, record: EvaluationRecord) -> None:
        """Send one record; raise on failure (the caller counts and logs it)."""
        ...

    def force_flush(self, timeout_s: float) -> bool:
        """Push out anything buffered; ``False`` when that did not finish in time."""
        ...

    def shutdown(self, timeout_s: float) -> None:
        """Release resources; later ``emit`` calls may be ignored."""
        ...


@runtime_checkable
class SubjectSpanFactory(Protocol):
    """Creates the RAG span for a run the app did not trace, so the scores have a span to attach to."""

    def create_subject_span(self, origin: Origin, sample: SampleView | None) -> SpanRef | None: ...


# ---------------------------------------------------------------- running emitters

FailureHook = Callable[[str, str, BaseException], None]
"""Called as ``hook(emitter_name, operation, exception)`` when an emitter raises."""


@dataclass(frozen=True, slots=True)
class EmitterStats:
    emitted: int
    failed: int
    dropped: int


@dataclass(slots=True)
class Flush:
    timeout_s: float
    done: threading.Event
    ok: bool = False
    queued: bool = False


@dataclass(slots=True)
class _Stop:
    timeout_s: float


class EmitterThread:
    """One emitter, one daemon thread, one bounded queue; records offered to a full queue are dropped.

    What the online evaluator and its worker see of an emitter: ``offer`` a record without waiting, flush, close,
    count. A failure of the emitter is counted and logged (``on_failure``), never propagated. Like the
    OpenTelemetry SDK around its exporters, every exception is contained, ``BaseException`` included: an emitter (a
    user's callback) runs on our thread, where ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` or a
    ``CancelledError`` can only come from its own code, and must cost a record, not the thread.
    """

    def __init__(self, emitter: Emitter, name: str, max_pending: int, on_failure: FailureHook) -> None:
        self.emitter = emitter
        self.name = name
        self._on_failure = on_failure
        self._emitted = 0
        self._failed = 0
        self._queue: queue.Queue[EvaluationRecord | Flush | _Stop] = queue.Queue(maxsize=max_pending)
        self._dropped = 0
        self._stopped = False
        self._closed_cleanly = False
        self._thread = threading.Thread(target=self._run, name=f"ragmetrics-emit-{name}", daemon=True)
        self._thread.start()

    def offer(self, record: EvaluationRecord) -> bool:
        if self._stopped:
            self._dropped += 1
            return False
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            self._dropped += 1
            return False
        return True

    def begin_flush(self, timeout_s: float) -> Flush:
        """Queue a flush marker behind everything offered so far, without waiting for room."""
        marker = Flush(timeout_s=max(0.0, timeout_s), done=threading.Event())
        try:
            self._queue.put_nowait(marker)
            marker.queued = True
        except queue.Full:  # queued by wait_flushed, once the backlog has room
            pass
        return marker

    def wait_flushed(self, marker: Flush, timeout_s: float) -> bool:
        """Whether the records before ``marker`` were emitted and the emitter flushed, within ``timeout_s``."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        if not marker.queued:
            try:
                self._queue.put(marker, timeout=max(0.0, timeout_s))
            except queue.Full:
                return False
        return marker.done.wait(max(0.0, deadline - time.monotonic())) and marker.ok

    def begin_close(self, timeout_s: float) -> bool:
        """Ask the thread to emit what is queued and shut the emitter down (given ``timeout_s``)."""
        self._stopped = True
        try:
            self._queue.put_nowait(_Stop(timeout_s=max(0.0, timeout_s)))
        except queue.Full:  # a hung emitter with a full backlog: its daemon thread is left behind
            return False
        return True

    def wait_closed(self, timeout_s: float) -> bool:
        """Whether the thread ended by closing the emitter (a thread that died otherwise reports ``False``)."""
        self._thread.join(max(0.0, timeout_s))
        return not self._thread.is_alive() and self._closed_cleanly

    def stats(self) -> EmitterStats:
        return EmitterStats(emitted=self._emitted, failed=self._failed, dropped=self._dropped)

    def backlog(self) -> int:
        """Records (and flush or close markers) offered and not yet taken by the thread."""
        return self._queue.qsize()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, _Stop):
                self._guarded("shutdown", self.emitter.shutdown, item.timeout_s)
                self._closed_cleanly = True
                return
            if isinstance(item, Flush):
                item.ok = self._guarded("force_flush", self.emitter.force_flush, item.timeout_s) is True
                item.done.set()
                continue
            self._emit(item)

    def _emit(self, record: EvaluationRecord) -> None:
        try:
            self.emitter.emit(record)
        except BaseException as exc:
            self._failed += 1
            self._on_failure(self.name, "emit", exc)
        else:
            self._emitted += 1

    def _guarded(self, operation: str, action: Callable[[float], object], timeout_s: float) -> object:
        try:
            return action(timeout_s)
        except BaseException as exc:
            self._on_failure(self.name, operation, exc)
            return None
