"""Runs each emitter on its own thread behind a bounded queue, so one emitter never holds up another."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ragmetrics_core.online.emitters.base import Emitter
from ragmetrics_core.online.records import EvaluationRecord

FailureHook = Callable[[str, str, BaseException], None]
"""Called as ``hook(emitter_name, operation, exception)`` when an emitter raises."""


@dataclass(frozen=True, slots=True)
class EmitterStats:
    emitted: int
    failed: int
    dropped: int


@dataclass(slots=True)
class _Flush:
    timeout_s: float
    done: threading.Event
    ok: bool = False
    queued: bool = False


@dataclass(slots=True)
class _Stop:
    timeout_s: float


class EmitterRunner:
    """One emitter, one daemon thread, one bounded queue; records offered to a full queue are dropped."""

    def __init__(self, emitter: Emitter, name: str, max_pending: int, on_failure: FailureHook) -> None:
        self.emitter = emitter
        self.name = name
        self._on_failure = on_failure
        self._queue: queue.Queue[EvaluationRecord | _Flush | _Stop] = queue.Queue(maxsize=max_pending)
        self._emitted = 0
        self._failed = 0
        self._dropped = 0
        self._stopped = False
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

    def begin_flush(self, timeout_s: float) -> _Flush:
        """Queue a flush marker behind everything offered so far, without waiting for room."""
        marker = _Flush(timeout_s=max(0.0, timeout_s), done=threading.Event())
        try:
            self._queue.put_nowait(marker)
            marker.queued = True
        except queue.Full:  # queued by wait_flushed, once the backlog has room
            pass
        return marker

    def wait_flushed(self, marker: _Flush, timeout_s: float) -> bool:
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
        self._thread.join(max(0.0, timeout_s))
        return not self._thread.is_alive()

    def stats(self) -> EmitterStats:
        return EmitterStats(emitted=self._emitted, failed=self._failed, dropped=self._dropped)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, _Stop):
                self._guarded("shutdown", self.emitter.shutdown, item.timeout_s)
                return
            if isinstance(item, _Flush):
                item.ok = self._guarded("force_flush", self.emitter.force_flush, item.timeout_s) is True
                item.done.set()
                continue
            try:
                self.emitter.emit(item)
            except Exception as exc:  # an emitter's failure is counted and logged, never propagated
                self._failed += 1
                self._on_failure(self.name, "emit", exc)
            else:
                self._emitted += 1

    def _guarded(self, operation: str, action: Callable[[float], object], timeout_s: float) -> object:
        try:
            return action(timeout_s)
        except Exception as exc:
            self._on_failure(self.name, operation, exc)
            return None
