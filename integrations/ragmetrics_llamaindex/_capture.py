"""Explicit capture blocks, for retriever-only code that produces its answer outside a query engine."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragmetrics_llamaindex._trace import Trace


class CaptureScope:
    """The capture block active in the current thread or task, if any."""

    def __init__(self) -> None:
        self._active: ContextVar[Trace | None] = ContextVar("ragmetrics_llamaindex_capture", default=None)

    def current(self) -> Trace | None:
        return self._active.get()

    @property
    def var(self) -> ContextVar[Trace | None]:
        return self._active
