"""The default sink of handlers built without one: the process-wide default pipeline, shared with LlamaIndex's."""

from __future__ import annotations

from ragmetrics_core.online.defaults import default_pipeline
from ragmetrics_core.online.types import SampleSink

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def default_sink() -> SampleSink:
    """The process-wide default ``OnlinePipeline`` (``ragmetrics_core.online.defaults.default_pipeline``)."""
    return default_pipeline()
