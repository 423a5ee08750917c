"""Every protocol a user may implement or meet, importable from one place.

========================  ===============================================================================
``Judge``                 what scores a sample's evidence (``extract``, ``check``, ``similarity``)
``AsyncEvaluator``        anything with ``aevaluate(sample)``: the batch runner, the online pipeline, the CLI
``ScoringBackend``        where ``evaluate_file`` scores its samples when not in this process (Ray)
``RequestGate``           the request-rate and token quota an LLM judge waits on
``SampleSink``            where the integrations send what they captured (the online pipeline is one)
``Emitter``               where evaluation records go (OpenTelemetry, Phoenix, JSONL, a callback, yours)
``SubjectSpanFactory``    an emitter that can create the RAG span of a run the app did not trace
========================  ===============================================================================

Each is defined beside the code that calls it and loaded from there on first access, so importing this module
costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import Renamed, lazy_package

if TYPE_CHECKING:
    from ragmetrics_core.batch import ScoringBackend
    from ragmetrics_core.engine import AsyncEvaluator
    from ragmetrics_core.judges.base import Judge
    from ragmetrics_core.judges.quota import RequestGate
    from ragmetrics_core.online.emitters.base import Emitter, SubjectSpanFactory
    from ragmetrics_core.online.types import SampleSink

    FileEngine = ScoringBackend  # deprecated name, see below

lazy_package(
    __name__,
    {
        "ScoringBackend": "ragmetrics_core.batch",
        "AsyncEvaluator": "ragmetrics_core.engine",
        "Judge": "ragmetrics_core.judges.base",
        "RequestGate": "ragmetrics_core.judges.quota",
        "Emitter": "ragmetrics_core.online.emitters.base",
        "SubjectSpanFactory": "ragmetrics_core.online.emitters.base",
        "SampleSink": "ragmetrics_core.online.types",
    },
    {"FileEngine": Renamed(__name__, "ScoringBackend")},  # its old name, for one release
)

__all__ = ["AsyncEvaluator", "Emitter", "Judge", "RequestGate", "SampleSink", "ScoringBackend", "SubjectSpanFactory"]
