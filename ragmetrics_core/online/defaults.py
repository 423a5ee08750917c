"""The process-wide default pipeline, shared by every integration handler built without one.

Created on first use, so that importing an integration stays cheap.
"""

from __future__ import annotations

import threading

from ragmetrics_core.online.types import SampleSink

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_lock = threading.Lock()
_default: SampleSink | None = None


def default_pipeline() -> SampleSink:
    """One shared ``OnlinePipeline`` for every LangChain or LlamaIndex handler built without an explicit one.

    Sharing matters: a handler per request must not start a worker thread per request. It scores with the
    engine's defaults (embedded judge), writes OpenTelemetry through the app's global providers when the
    ``otel`` extra is installed, and finishes pending work (within its time limit) at interpreter exit.
    """
    global _default
    with _lock:
        if _default is None:
            from ragmetrics_core.online import Emitter, OnlinePipeline

            emitters: list[Emitter] = []
            try:
                from ragmetrics_core.online import OtelEmitter
            except ImportError:  # installed without the otel extra: scores stay in the pipeline's stats
                pass
            else:
                emitters.append(OtelEmitter())
            _default = OnlinePipeline(emitters=emitters, register_atexit=True)
        return _default
