"""``ragmetrics demo``: a small offline RAG app over a bundled corpus, scored with the embedded judge."""

from ragmetrics_core.demo.runner import run_demo

__all__ = ["run_demo"]
