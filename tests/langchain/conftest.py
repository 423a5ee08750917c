"""Offline LangChain building blocks: a real in-memory vector store, fake embeddings and a fake chat model."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_core.sample import RagSample
from ragmetrics_langchain import RagMetricsCallbackHandler

CORPUS = [
    Document(
        id="eiffel",
        page_content="The Eiffel Tower is in Paris.",
        metadata={"source": "wiki/eiffel", "year": 1889},
    ),
    Document(id="louvre", page_content="The Louvre is the most visited museum.", metadata={"source": "wiki/louvre"}),
    Document(id="seine", page_content="The Seine flows through Paris.", metadata={"source": "wiki/seine"}),
    Document(id="rome", page_content="Rome is the capital of Italy.", metadata={"source": "wiki/rome"}),
    Document(id="berlin", page_content="Berlin is the capital of Germany.", metadata={"source": "wiki/berlin"}),
]

ANSWER = "The Eiffel Tower is in Paris."


@dataclass
class Submitted:
    draft: SampleDraft
    origin: Origin | None


class RecordingSink:
    """A real SampleSink that keeps what it is given (thread-safe, like the OnlinePipeline's queue)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: list[Submitted] = []

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object:
        assert isinstance(sample, SampleDraft)
        with self._lock:
            self.items.append(Submitted(sample, origin))
        return "accepted"

    @property
    def drafts(self) -> list[SampleDraft]:
        with self._lock:
            return [item.draft for item in self.items]

    def only(self) -> Submitted:
        with self._lock:
            assert len(self.items) == 1, f"expected one sample, got {len(self.items)}"
            return self.items[0]


def make_store(documents: list[Document] | None = None) -> InMemoryVectorStore:
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
    store.add_documents(documents if documents is not None else CORPUS)
    return store


def join_docs(documents: list[Document]) -> str:
    return "\n".join(document.page_content for document in documents)


def rag_chain(retriever: Runnable[Any, Any], responses: list[str] | None = None) -> Runnable[Any, str]:
    """The usual LCEL RAG recipe: retrieve → format → prompt → chat model → string."""
    prompt = ChatPromptTemplate.from_template("Answer from the context.\nContext:\n{context}\nQuestion: {question}")
    model = FakeListChatModel(responses=responses or [ANSWER])
    return {"context": retriever | join_docs, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()


@pytest.fixture
def store() -> InMemoryVectorStore:
    return make_store()


@pytest.fixture
def retriever(store: InMemoryVectorStore) -> BaseRetriever:
    return store.as_retriever(search_kwargs={"k": 2})


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink()


@pytest.fixture
def handler(sink: RecordingSink) -> RagMetricsCallbackHandler:
    return RagMetricsCallbackHandler(sink)


@pytest.fixture
def expected_docs(retriever: BaseRetriever) -> Callable[[str], list[Document]]:
    """What the retriever returns for a question, asked directly (no handler involved)."""
    return lambda question: retriever.invoke(question)
