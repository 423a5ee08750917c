"""Process-wide capture through LangChain's configure hook.

``langchain_core.tracers.context.register_configure_hook`` registers a context variable whose value, when
set, is added to the callbacks of every run LangChain configures. Hooks cannot be unregistered, so we
register one slot once and switch it: :func:`instrument` puts a handler in it, :func:`uninstrument` empties
it. The slot is process-global on purpose (a real ``ContextVar`` set in one thread or task is invisible to
runs started from worker threads); LangChain reads it only through ``get()``.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from typing import Any, cast

from ragmetrics_core._lazy import renamed_keyword
from ragmetrics_core.online.types import SampleSink
from ragmetrics_langchain.handler import RagMetricsCallbackHandler

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class _GlobalHandlerSlot:
    """The one method of ``ContextVar`` the configure hook calls, backed by a process-wide value."""

    def __init__(self) -> None:
        self.handler: RagMetricsCallbackHandler | None = None

    def get(self, default: RagMetricsCallbackHandler | None = None) -> RagMetricsCallbackHandler | None:
        handler = self.handler
        return default if handler is None else handler


_slot = _GlobalHandlerSlot()
_lock = threading.Lock()
_registered = False


def instrument(
    pipeline: SampleSink | None = None,
    *,
    handler: RagMetricsCallbackHandler | None = None,
    evaluator: SampleSink | None = None,
    **options: Any,
) -> RagMetricsCallbackHandler:
    """Capture every LangChain run in this process (until :func:`uninstrument`) and return the handler.

    Pass either a ready ``handler`` or the ``pipeline`` and handler ``options`` (``evaluator=`` is the deprecated
    old name of ``pipeline``). A run that already has a
    ``RagMetricsCallbackHandler`` in its callbacks keeps that one, so it is never captured twice.
    Calling it again replaces the handler.
    """
    global _registered
    pipeline = renamed_keyword("instrument", "evaluator", evaluator, "pipeline", pipeline)
    if handler is not None and (pipeline is not None or options):
        raise ValueError("pass either handler or pipeline/options to instrument(), not both")
    if handler is None:
        handler = RagMetricsCallbackHandler(pipeline, **options)
    with _lock:
        if not _registered:
            # Imported here: the tracers module loads LangSmith's client, which an app that never instruments
            # its whole process should not pay for on start-up.
            from langchain_core.tracers.context import register_configure_hook

            register_configure_hook(
                cast("ContextVar[Any | None]", _slot),
                inheritable=True,
                handle_class=RagMetricsCallbackHandler,
            )
            _registered = True
        _slot.handler = handler
    return handler


def uninstrument() -> RagMetricsCallbackHandler | None:
    """Stop process-wide capture; returns the handler that was installed (runs already started finish)."""
    with _lock:
        handler, _slot.handler = _slot.handler, None
    return handler


def instrumented_handler() -> RagMetricsCallbackHandler | None:
    """The handler :func:`instrument` installed, if any."""
    return _slot.handler
