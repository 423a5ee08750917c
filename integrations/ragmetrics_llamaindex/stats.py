"""Counters that say what the integration did with each query, so nothing is dropped silently."""

from __future__ import annotations

import threading
from collections import Counter
from enum import StrEnum

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class Outcome(StrEnum):
    STARTED = "started"
    SUBMITTED = "submitted"
    DROPPED_ERROR = "dropped_error"
    DROPPED_ABANDONED = "dropped_abandoned"
    DROPPED_INCOMPLETE = "dropped_incomplete"
    DROPPED_CAPACITY = "dropped_capacity"
    DROPPED_UNINSTRUMENTED = "dropped_uninstrumented"
    UNCORRELATED = "uncorrelated"
    SINK_ERROR = "sink_error"
    INTERNAL_ERROR = "internal_error"


class CaptureStats:
    """Thread-safe counters keyed by :class:`Outcome`."""

    def __init__(self) -> None:
        # Re-entrant: a stream abandoned during garbage collection may count while this thread holds it.
        self._lock = threading.RLock()
        self._counts: Counter[Outcome] = Counter()

    def add(self, outcome: Outcome) -> None:
        with self._lock:
            self._counts[outcome] += 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {outcome.value: self._counts[outcome] for outcome in Outcome}
