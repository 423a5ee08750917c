"""LlamaIndex integration: capture each query's question, nodes and answer as a ragmetrics sample.

``RagMetricsInstrumentor().instrument()`` hooks LlamaIndex's instrumentation dispatcher (query engines,
chat engines, streaming); ``RagMetricsCallbackHandler`` serves code still on the legacy ``CallbackManager``.
"""

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import lazy_package

if TYPE_CHECKING:
    from ragmetrics_llamaindex.instrumentor import CaptureHandle, RagMetricsInstrumentor
    from ragmetrics_llamaindex.legacy import RagMetricsCallbackHandler
    from ragmetrics_llamaindex.offline import HashEmbedding
    from ragmetrics_llamaindex.options import CaptureOptions
    from ragmetrics_llamaindex.stats import Outcome

# Each loads on first use: an app on the dispatcher never imports the legacy callback handler, nor the offline
# embedding the examples use.
lazy_package(
    __name__,
    {
        "CaptureHandle": "ragmetrics_llamaindex.instrumentor",
        "RagMetricsInstrumentor": "ragmetrics_llamaindex.instrumentor",
        "RagMetricsCallbackHandler": "ragmetrics_llamaindex.legacy",
        "HashEmbedding": "ragmetrics_llamaindex.offline",
        "CaptureOptions": "ragmetrics_llamaindex.options",
        "Outcome": "ragmetrics_llamaindex.stats",
    },
)

__all__ = [
    "CaptureHandle",
    "CaptureOptions",
    "HashEmbedding",
    "Outcome",
    "RagMetricsCallbackHandler",
    "RagMetricsInstrumentor",
]
