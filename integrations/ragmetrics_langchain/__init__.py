"""LangChain integration: one callback that turns live RAG runs into samples for online evaluation.

    from ragmetrics_langchain import RagMetricsCallbackHandler
    chain.invoke(question, config={"callbacks": [RagMetricsCallbackHandler()]})
"""

try:
    import langchain_core  # noqa: F401
except ImportError as error:  # pragma: no cover - only without the extra
    raise ImportError("ragmetrics_langchain needs langchain-core: pip install 'ragmetrics[langchain]'") from error

from ragmetrics_langchain.handler import HandlerStats, RagMetricsCallbackHandler
from ragmetrics_langchain.instrument import instrument, instrumented_handler, uninstrument
from ragmetrics_langchain.runs import RunTableStats

__all__ = [
    "HandlerStats", "RagMetricsCallbackHandler", "RunTableStats", "instrument", "instrumented_handler", "uninstrument",
]
