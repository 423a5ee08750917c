"""Pass-through wrappers for streamed answers: the sample is submitted when the user's stream ends.

Every item is handed to the user unchanged and in order; we only keep a bounded copy of its text. A
stream that ends early (``close()``, ``break`` then garbage collection, an exception from the model) or is
never iterated drops its sample and frees its state.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import Any

from ragmetrics_llamaindex._trace import Trace, TraceRegistry
from ragmetrics_llamaindex.stats import Outcome

TextOf = Callable[[Any], str | None]


def token_text(item: Any) -> str | None:
    """The text of a token from a ``StreamingResponse`` generator."""
    return item if isinstance(item, str) else None


def chat_delta_text(item: Any) -> str | None:
    """The text of a ``ChatResponse`` chunk from a chat stream."""
    delta = getattr(item, "delta", None)
    return delta if isinstance(delta, str) else None


class _TextBuffer:
    """The streamed text so far, capped at ``limit`` characters."""

    __slots__ = ("_limit", "_parts", "_size")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0

    def add(self, text: str | None) -> None:
        if not text or self._size >= self._limit:
            return
        piece = text[: self._limit - self._size]
        self._parts.append(piece)
        self._size += len(piece)

    def text(self) -> str:
        return "".join(self._parts)


class PendingStream:
    """The end of one trace's stream: completed (submit) or abandoned (drop), whichever comes first."""

    __slots__ = ("_registry", "_trace")

    def __init__(self, registry: TraceRegistry, trace: Trace) -> None:
        self._registry = registry
        self._trace = trace

    def complete(self, text: str) -> None:
        self._registry.submit(self._trace, text)

    def abandon(self) -> None:
        self._registry.drop(self._trace, Outcome.DROPPED_ABANDONED)

    def error(self) -> None:
        self._registry.drop(self._trace, Outcome.DROPPED_ERROR)

    def internal_error(self) -> None:
        self._registry.stats.add(Outcome.INTERNAL_ERROR)


def _finish(pending: PendingStream, buffer: _TextBuffer, completed: bool, failed: bool) -> None:
    try:
        if completed:
            pending.complete(buffer.text())
        elif failed:
            pending.error()
        else:
            pending.abandon()
    except Exception:  # our bookkeeping must never surface in the user's iteration
        pending.internal_error()


def tap(source: Iterator[Any], pending: PendingStream, text_of: TextOf, limit: int) -> Generator[Any, None, None]:
    """A generator yielding ``source``'s items unchanged; settles ``pending`` when iteration ends."""
    gen = _tap(source, pending, text_of, limit)
    # A generator that is never started never runs its ``finally``: free the trace when it is collected.
    weakref.finalize(gen, pending.abandon)
    return gen


def _tap(source: Iterator[Any], pending: PendingStream, text_of: TextOf, limit: int) -> Generator[Any, None, None]:
    buffer = _TextBuffer(limit)
    completed = failed = False
    try:
        for item in source:
            buffer.add(text_of(item))
            yield item
        completed = True
    except GeneratorExit:
        # The user closed our generator: close theirs too, as closing it directly would have.
        close = getattr(source, "close", None)
        if callable(close):
            close()
        raise
    except BaseException:
        failed = True
        raise
    finally:
        _finish(pending, buffer, completed, failed)


def atap(
    source: AsyncIterator[Any],
    pending: PendingStream,
    text_of: TextOf,
    limit: int,
) -> AsyncGenerator[Any, None]:
    """The async twin of :func:`tap`."""
    gen = _atap(source, pending, text_of, limit)
    weakref.finalize(gen, pending.abandon)
    return gen


async def _atap(
    source: AsyncIterator[Any],
    pending: PendingStream,
    text_of: TextOf,
    limit: int,
) -> AsyncGenerator[Any, None]:
    buffer = _TextBuffer(limit)
    completed = failed = False
    try:
        async for item in source:
            buffer.add(text_of(item))
            yield item
        completed = True
    except GeneratorExit:
        aclose = getattr(source, "aclose", None)
        if callable(aclose):
            await aclose()
        raise
    except BaseException:
        failed = True
        raise
    finally:
        _finish(pending, buffer, completed, failed)
