"""Hands each record to a user function (sync, or async: then it runs to completion on the emitter thread)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable

from ragmetrics_core.online.types import EvaluationRecord

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class CallbackEmitter:
    def __init__(self, callback: Callable[[EvaluationRecord], object], *, name: str = "callback") -> None:
        if not callable(callback):
            raise TypeError("CallbackEmitter needs a callable taking an EvaluationRecord")
        self._callback = callback
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def emit(self, record: EvaluationRecord) -> None:
        outcome = self._callback(record)
        if inspect.isawaitable(outcome):
            asyncio.run(_await(outcome))

    def force_flush(self, timeout_s: float) -> bool:
        return True

    def shutdown(self, timeout_s: float) -> None:
        return None


async def _await(awaitable: object) -> None:
    assert inspect.isawaitable(awaitable)
    await awaitable
