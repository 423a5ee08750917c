"""Warnings that cannot flood the app's logs: at most one per key per interval, with a suppressed count."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class RateLimitedLog:
    def __init__(
        self,
        logger: logging.Logger,
        interval_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def warning(self, key: str, message: str, *args: object) -> bool:
        """Log ``message`` unless ``key`` was logged within the interval; return whether it was logged."""
        now = self._clock()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._interval_s:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return False
            self._last[key] = now
            suppressed = self._suppressed.pop(key, 0)
        if suppressed:
            self._logger.warning(message + " (%d similar messages suppressed)", *args, suppressed)
        else:
            self._logger.warning(message, *args)
        return True

    def reset(self) -> None:
        """Start over, e.g. in a forked child where the lock may have been held by a thread that is gone."""
        self._lock = threading.Lock()
        self._last = {}
        self._suppressed = {}
