"""A LangGraph graph with a retrieval node and a generation node, including interrupt and resume."""

from __future__ import annotations

import logging
import time
import uuid
import warnings
from typing import Any, TypedDict

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import ANSWER, RecordingSink, join_docs

QUESTION = "Where is the Eiffel Tower?"


class RagState(TypedDict, total=False):
    question: str
    documents: list[Document]
    answer: str
    approved: str


def build_graph(retriever: BaseRetriever, *, with_approval: bool = False, checkpointer: Any = None) -> Any:
    model = FakeListChatModel(responses=[ANSWER] * 4)

    def retrieve(state: RagState) -> RagState:
        return {"documents": retriever.invoke(state["question"])}

    def approve(state: RagState) -> RagState:
        return {"approved": interrupt({"documents": len(state["documents"])})}

    def generate(state: RagState) -> RagState:
        prompt = f"{join_docs(state['documents'])}\n{state['question']}"
        return {"answer": str(model.invoke(prompt).content)}

    graph = StateGraph(RagState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_edge(START, "retrieve")
    if with_approval:
        graph.add_node("approve", approve)
        graph.add_edge("retrieve", "approve")
        graph.add_edge("approve", "generate")
    else:
        graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", END)
    return graph.compile(checkpointer=checkpointer)


def test_graph_with_retrieval_node(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    state = build_graph(retriever).invoke(
        {"question": QUESTION},
        config={"callbacks": [handler], "metadata": {"ragmetrics_reference": "In Paris."}},
    )
    item = sink.only()
    assert item.draft.user_input == QUESTION
    assert item.draft.response == ANSWER == state["answer"]
    assert [c.id for c in item.draft.contexts] == [d.id for d in state["documents"]]
    assert item.draft.reference == "In Paris."
    assert item.origin is not None and item.origin.chain_name == "LangGraph"
    assert handler.stats().runs.live_runs == 0 and handler.stats().runs.tracked_children == 0


async def test_graph_ainvoke_and_astream(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    graph = build_graph(retriever)
    await graph.ainvoke({"question": QUESTION}, config={"callbacks": [handler]})
    updates = [u async for u in graph.astream({"question": QUESTION}, config={"callbacks": [handler]})]
    assert [next(iter(u)) for u in updates] == ["retrieve", "generate"]
    assert [(d.user_input, d.response, len(d.contexts)) for d in sink.drafts] == [(QUESTION, ANSWER, 2)] * 2


def test_interrupt_and_resume_give_one_sample_without_warnings(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    caplog: pytest.LogCaptureFixture,
) -> None:
    graph = build_graph(retriever, with_approval=True, checkpointer=MemorySaver())
    config: Any = {"callbacks": [handler], "configurable": {"thread_id": "conversation-1"}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        caplog.set_level(logging.DEBUG)
        paused = graph.invoke({"question": QUESTION}, config=config)
        assert "__interrupt__" in paused
        assert sink.drafts == []  # a paused run has no answer yet
        assert handler.stats().runs.parked_interrupted == 1
        final = graph.invoke(Command(resume="yes"), config=config)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    item = sink.only()
    # The resumed run has no retriever of its own: question and documents come from the paused run.
    assert item.draft.user_input == QUESTION
    assert item.draft.response == final["answer"] == ANSWER
    assert [c.id for c in item.draft.contexts] == [d.id for d in final["documents"]]
    stats = handler.stats()
    assert (stats.runs_interrupted, stats.runs.runs_resumed, stats.runs_failed, stats.callback_failures) == (
        1,
        1,
        0,
        0,
    )
    assert (stats.runs.live_runs, stats.runs.parked_interrupted, stats.runs.tracked_children) == (0, 0, 0)


def test_interrupt_without_resume_is_freed_after_the_ttl(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, run_ttl_s=0.05)
    graph = build_graph(retriever, with_approval=True, checkpointer=MemorySaver())
    graph.invoke({"question": QUESTION}, config={"callbacks": [handler], "configurable": {"thread_id": "t"}})
    assert handler.stats().runs.parked_interrupted == 1
    time.sleep(0.1)
    build_graph(retriever).invoke({"question": QUESTION}, config={"callbacks": [handler]})
    stats = handler.stats()
    assert stats.runs.parked_interrupted == 0 and stats.runs.evicted_expired >= 1
    assert len(sink.drafts) == 1


def test_messages_state_graph(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    def retrieve_and_answer(state: MessagesState) -> dict[str, list[Any]]:
        question = state["messages"][-1].content
        documents = retriever.invoke(str(question))
        return {"messages": [AIMessage(f"{ANSWER} ({len(documents)} sources)")]}

    graph = StateGraph(MessagesState)
    graph.add_node("rag", retrieve_and_answer)
    graph.add_edge(START, "rag")
    graph.add_edge("rag", END)
    graph.compile().invoke({"messages": [HumanMessage(QUESTION)]}, config={"callbacks": [handler]})
    draft = sink.only().draft
    assert (draft.user_input, draft.response) == (QUESTION, f"{ANSWER} (2 sources)")


def test_interrupt_reported_as_the_root_error_is_a_pause_too(sink: RecordingSink) -> None:
    from langchain_core.documents import Document as Doc
    from langgraph.errors import GraphInterrupt

    handler = RagMetricsCallbackHandler(sink)
    metadata = {"thread_id": "t-9"}
    paused, retriever_run, resumed = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    handler.on_chain_start(None, {"question": QUESTION}, run_id=paused, metadata=metadata)
    handler.on_retriever_start(None, QUESTION, run_id=retriever_run, parent_run_id=paused)
    handler.on_retriever_end([Doc(page_content="The tower is in Paris.", id="t")], run_id=retriever_run)
    handler.on_chain_error(GraphInterrupt(()), run_id=paused)
    assert sink.drafts == [] and handler.stats().runs.parked_interrupted == 1
    handler.on_chain_start(None, {"question": QUESTION}, run_id=resumed, metadata=metadata)
    handler.on_chain_end({"question": QUESTION, "answer": ANSWER}, run_id=resumed)
    draft = sink.only().draft
    assert (draft.user_input, draft.response, [c.id for c in draft.contexts]) == (QUESTION, ANSWER, ["t"])
    assert handler.stats().runs_failed == 0


def test_interrupt_without_thread_id_is_dropped_quietly(sink: RecordingSink, caplog: pytest.LogCaptureFixture) -> None:
    from langgraph.errors import GraphInterrupt

    handler = RagMetricsCallbackHandler(sink)
    root = uuid.uuid4()
    with caplog.at_level(logging.DEBUG):
        handler.on_chain_start(None, "q", run_id=root)
        handler.on_chain_error(GraphInterrupt(()), run_id=root)
    assert not caplog.records
    stats = handler.stats()
    runs = stats.runs
    assert (stats.runs_interrupted, runs.parked_interrupted, runs.live_runs, stats.runs_failed) == (1, 0, 0, 0)
