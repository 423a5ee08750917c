"""The process-wide default sink, created on first use so that importing the integration stays cheap."""

from __future__ import annotations

import threading

from ragmetrics_core.online.types import SampleSink

_lock = threading.Lock()
_default: SampleSink | None = None


def default_sink() -> SampleSink:
    """One shared ``OnlineEvaluator`` for every handler built without an explicit evaluator.

    Sharing matters: a handler per request must not start a worker thread per request.
    """
    global _default
    with _lock:
        if _default is None:
            from ragmetrics_core.online import OnlineEvaluator

            _default = OnlineEvaluator()
        return _default
