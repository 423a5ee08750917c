"""Offline LlamaIndex pipelines for the tests: a real VectorStoreIndex, MockLLM, our hash embedding."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]  # public path, implicit re-export
from llama_index.core.llms import MockLLM

from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_llamaindex import RagMetricsInstrumentor
from ragmetrics_llamaindex.offline import HashEmbedding

CORPUS = {
    "paris": "Paris is the capital of France. The Eiffel Tower stands in Paris.",
    "berlin": "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.",
    "rome": "Rome is the capital of Italy. The Colosseum stands in Rome.",
    "madrid": "Madrid is the capital of Spain. The Prado museum is in Madrid.",
}


class RecordingSink:
    """A real :class:`SampleSink`: records what it is handed; can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.items: list[tuple[SampleDraft, Origin | None]] = []
        self._lock = threading.Lock()
        self.submitted = threading.Event()

    def submit(self, sample: Any, origin: Origin | None = None) -> object:
        if self.fail:
            raise RuntimeError("sink is down")
        with self._lock:
            self.items.append((sample, origin))
        self.submitted.set()
        return "accepted"

    @property
    def drafts(self) -> list[SampleDraft]:
        return [draft for draft, _ in self.items]

    def only(self) -> tuple[SampleDraft, Origin]:
        assert len(self.items) == 1, f"expected one sample, got {len(self.items)}"
        draft, origin = self.items[0]
        assert origin is not None
        return draft, origin


@pytest.fixture(scope="session")
def index() -> VectorStoreIndex:
    documents = [Document(text=text, doc_id=key, metadata={"city": key}) for key, text in CORPUS.items()]
    return VectorStoreIndex.from_documents(documents, embed_model=HashEmbedding())


@pytest.fixture()
def echo_llm() -> MockLLM:
    """MockLLM without ``max_tokens`` echoes its prompt: each answer contains its own question and nodes."""
    return MockLLM()


@pytest.fixture()
def sink() -> RecordingSink:
    return RecordingSink()


@pytest.fixture()
def instrumentor(sink: RecordingSink) -> Iterator[RagMetricsInstrumentor]:
    instr = RagMetricsInstrumentor(sink, capture_raw_retrieval=True).instrument()
    try:
        yield instr
    finally:
        instr.uninstrument()


@pytest.fixture(autouse=True)
def _root_dispatcher_left_clean() -> Iterator[None]:
    root = get_dispatcher()
    before = (list(root.span_handlers), list(root.event_handlers))
    yield
    assert (list(root.span_handlers), list(root.event_handlers)) == before, "a test leaked handlers"
