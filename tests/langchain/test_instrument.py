"""Process-wide capture through LangChain's configure hook."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from langchain_core.retrievers import BaseRetriever

import ragmetrics_langchain
from ragmetrics_langchain import RagMetricsCallbackHandler, instrument, uninstrument
from tests.langchain.conftest import ANSWER, RecordingSink, rag_chain

QUESTION = "Where is the Eiffel Tower?"


@pytest.fixture(autouse=True)
def _always_uninstrument() -> Iterator[None]:
    yield
    uninstrument()


def test_instrument_captures_runs_without_any_callback_config(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = instrument(sink)
    assert ragmetrics_langchain.instrumented_handler() is handler
    assert rag_chain(retriever).invoke(QUESTION) == ANSWER
    assert sink.only().draft.user_input == QUESTION


def test_instrument_reaches_runs_started_in_other_threads(retriever: BaseRetriever, sink: RecordingSink) -> None:
    instrument(sink)
    chain = rag_chain(retriever, responses=[ANSWER] * 4)
    threads = [threading.Thread(target=chain.invoke, args=(f"{QUESTION} {i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(d.user_input for d in sink.drafts) == [f"{QUESTION} {i}" for i in range(4)]


async def test_instrument_captures_async_runs(retriever: BaseRetriever, sink: RecordingSink) -> None:
    instrument(sink)
    await rag_chain(retriever).ainvoke(QUESTION)
    assert sink.only().draft.response == ANSWER


def test_uninstrument_stops_capture(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = instrument(sink)
    assert uninstrument() is handler
    assert ragmetrics_langchain.instrumented_handler() is None
    rag_chain(retriever).invoke(QUESTION)
    assert sink.drafts == []
    assert uninstrument() is None  # idempotent


def test_instrument_again_replaces_the_handler(retriever: BaseRetriever) -> None:
    first, second = RecordingSink(), RecordingSink()
    instrument(first)
    instrument(second)
    rag_chain(retriever).invoke(QUESTION)
    assert first.drafts == [] and len(second.drafts) == 1


def test_explicit_handler_wins_over_the_global_one(retriever: BaseRetriever) -> None:
    global_sink, explicit_sink = RecordingSink(), RecordingSink()
    instrument(global_sink)
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [RagMetricsCallbackHandler(explicit_sink)]})
    assert global_sink.drafts == []  # captured once, by the handler the caller chose
    assert len(explicit_sink.drafts) == 1


def test_instrument_with_a_ready_handler(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, answer_key="answer")
    assert instrument(handler=handler) is handler
    rag_chain(retriever).invoke(QUESTION)
    assert len(sink.drafts) == 1
    with pytest.raises(ValueError, match="either handler or pipeline"):
        instrument(sink, handler=handler)
