"""LlamaIndex integration: capture each query's question, nodes and answer as a ragmetrics sample.

``RagMetricsInstrumentor().instrument()`` hooks LlamaIndex's instrumentation dispatcher (query engines,
chat engines, streaming); ``RagMetricsCallbackHandler`` serves code still on the legacy ``CallbackManager``.
"""

from ragmetrics_llamaindex.instrumentor import CaptureHandle, RagMetricsInstrumentor
from ragmetrics_llamaindex.legacy import RagMetricsCallbackHandler
from ragmetrics_llamaindex.offline import HashEmbedding
from ragmetrics_llamaindex.options import CaptureOptions
from ragmetrics_llamaindex.stats import Outcome

__all__ = [
    "CaptureHandle",
    "CaptureOptions",
    "HashEmbedding",
    "Outcome",
    "RagMetricsCallbackHandler",
    "RagMetricsInstrumentor",
]
