"""Documents from several retrievers, at any depth, in order, deduplicated."""

from __future__ import annotations

import contextlib
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.tools import tool

from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import ANSWER, CORPUS, RecordingSink, join_docs, make_store

QUESTION = "Where is the Eiffel Tower?"
PROMPT = ChatPromptTemplate.from_template("{context}\n{question}")

EXTRA = [
    Document(id="tower-faq", page_content="The tower has three levels.", metadata={"source": "faq", "score": 0.75}),
    # Same id as a corpus document: a duplicate across retrievers.
    Document(id="eiffel", page_content="The Eiffel Tower is in Paris.", metadata={"source": "mirror"}),
    # No id, same text twice: deduplicated by text.
    Document(page_content="Tickets are sold online."),
    Document(page_content="Tickets are sold online."),
]


class ListRetriever(BaseRetriever):
    """A retriever returning a fixed list (stands for a keyword index next to the vector store)."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return list(self.documents)


def _generate() -> Any:
    return PROMPT | FakeListChatModel(responses=[ANSWER] * 4) | StrOutputParser()


def test_sequential_retrievers_keep_order_and_deduplicate(
    sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    vector = make_store().as_retriever(search_kwargs={"k": 5})
    keyword = ListRetriever(documents=EXTRA)

    def both(question: str, config: RunnableConfig) -> str:
        first = vector.invoke(question, config=config)
        second = keyword.invoke(question, config=config)
        return join_docs(first + second)

    chain = {"context": RunnableLambda(both), "question": RunnablePassthrough()} | _generate()
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    draft = sink.only().draft
    vector_docs = vector.invoke(QUESTION)
    expected = [d.id for d in vector_docs] + ["tower-faq", None]
    assert [c.id for c in draft.contexts] == expected
    assert draft.contexts[-1].text == "Tickets are sold online."
    faq = draft.contexts[len(vector_docs)]
    assert faq.metadata == {"source": "faq", "score": 0.75} and faq.score == 0.75
    # The duplicate "eiffel" keeps its first-seen version (from the vector store), not the mirror's.
    eiffel = next(c for c in draft.contexts if c.id == "eiffel")
    assert eiffel.metadata == {"source": "wiki/eiffel", "year": 1889}


def test_parallel_retrievers_in_threads_are_all_captured(
    sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    paris = make_store(CORPUS[:3]).as_retriever(search_kwargs={"k": 3})
    capitals = make_store(CORPUS[3:]).as_retriever(search_kwargs={"k": 2})
    retrieve = RunnableParallel(paris=paris, capitals=capitals) | RunnableLambda(
        lambda r: join_docs(r["paris"] + r["capitals"])
    )
    chain = {"context": retrieve, "question": RunnablePassthrough()} | _generate()
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    ids = [c.id for c in sink.only().draft.contexts]
    # Branches run in threads, so which retriever starts first is not fixed; each keeps its own order.
    paris_ids = [d.id for d in paris.invoke(QUESTION)]
    capital_ids = [d.id for d in capitals.invoke(QUESTION)]
    assert ids in (paris_ids + capital_ids, capital_ids + paris_ids)


def test_retriever_deep_below_the_root(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    vector = make_store().as_retriever(search_kwargs={"k": 2})
    nested = RunnableLambda(lambda q: q) | (RunnableLambda(lambda q: q) | (RunnablePassthrough() | vector))
    chain = {"context": nested | join_docs, "question": RunnablePassthrough()} | _generate()
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert [c.id for c in sink.only().draft.contexts] == [d.id for d in vector.invoke(QUESTION)]


def test_retriever_inside_a_tool(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    vector = make_store().as_retriever(search_kwargs={"k": 2})

    @tool
    def search_docs(query: str, config: RunnableConfig) -> str:
        """Search the knowledge base."""
        return join_docs(vector.invoke(query, config=config))

    chain = {
        "context": RunnableLambda(lambda q: {"query": q}) | search_docs,
        "question": RunnablePassthrough(),
    }
    (chain | _generate()).invoke(QUESTION, config={"callbacks": [handler]})
    assert [c.id for c in sink.only().draft.contexts] == [d.id for d in vector.invoke(QUESTION)]


def test_handler_on_an_inner_chain_treats_it_as_the_run(
    sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    vector = make_store().as_retriever(search_kwargs={"k": 2})
    rag = ({"context": vector | join_docs, "question": RunnablePassthrough()} | _generate()).with_config(
        callbacks=[handler], run_name="inner-rag"
    )
    outer = RunnableLambda(lambda d: d["question"]) | rag | RunnableLambda(lambda a: {"final": a})
    assert outer.invoke({"question": QUESTION}) == {"final": ANSWER}
    item = sink.only()
    assert item.origin is not None and item.origin.chain_name == "inner-rag"
    assert (item.draft.user_input, item.draft.response) == (QUESTION, ANSWER)


def test_retriever_invoked_alone_is_not_a_sample(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    make_store().as_retriever().invoke(QUESTION, config={"callbacks": [handler]})
    assert sink.drafts == []
    stats = handler.stats()
    assert stats.runs.ignored_orphans == 1 and stats.runs.live_runs == 0 and stats.runs.tracked_children == 0


def test_failed_retriever_leaves_the_others(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    class Broken(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            raise ConnectionError("index down")

    vector = make_store().as_retriever(search_kwargs={"k": 2})
    broken = Broken()

    def retrieve(question: str, config: RunnableConfig) -> str:
        with contextlib.suppress(ConnectionError):
            broken.invoke(question, config=config)
        return join_docs(vector.invoke(question, config=config))

    ({"context": RunnableLambda(retrieve), "question": RunnablePassthrough()} | _generate()).invoke(
        QUESTION, config={"callbacks": [handler]}
    )
    assert [c.id for c in sink.only().draft.contexts] == [d.id for d in vector.invoke(QUESTION)]


def test_documents_are_snapshotted_before_later_steps_change_the_list(
    sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    vector = make_store().as_retriever(search_kwargs={"k": 3})

    def rerank_in_place(documents: list[Document]) -> str:
        documents.reverse()
        del documents[1:]
        return join_docs(documents)

    chain = {"context": vector | RunnableLambda(rerank_in_place), "question": RunnablePassthrough()} | _generate()
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert [c.id for c in sink.only().draft.contexts] == [d.id for d in vector.invoke(QUESTION)]
