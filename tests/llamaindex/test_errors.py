"""Failures: the user's exception propagates unchanged; our state is freed; nothing is submitted.

And the reverse: when our side fails (sink down, a bug of ours), the user's query still succeeds.
"""

from __future__ import annotations

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import Response
from llama_index.core.chat_engine import ContextChatEngine
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle

import ragmetrics_llamaindex._handlers as handlers
from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import RecordingSink


class RetrieverDown(Exception):
    pass


class FailingRetriever(BaseRetriever):
    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        raise RetrieverDown(f"index unavailable for {query_bundle.query_str!r}")


def assert_state_freed(instr: RagMetricsInstrumentor) -> None:
    registry = instr._registry
    assert registry is not None
    assert registry.owners == {} and registry.in_retrieval == set()
    assert instr.stats()["open"] == 0


def test_retriever_error_propagates_unchanged_and_nothing_is_submitted(
    sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = RetrieverQueryEngine.from_args(FailingRetriever(), llm=MockLLM())
    with pytest.raises(RetrieverDown) as caught:
        engine.query("capital of France")
    assert str(caught.value) == "index unavailable for 'capital of France'"
    assert sink.items == []
    assert instrumentor.stats()["dropped_error"] == 1
    assert_state_freed(instrumentor)


async def test_async_retriever_error_propagates_and_other_queries_still_sample(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    import asyncio

    failing = RetrieverQueryEngine.from_args(FailingRetriever(), llm=MockLLM())
    working = index.as_query_engine(llm=MockLLM(), similarity_top_k=1)
    results = await asyncio.gather(
        failing.aquery("broken one"), working.aquery("capital of Spain"), return_exceptions=True
    )
    assert isinstance(results[0], RetrieverDown)
    assert isinstance(results[1], Response)
    draft, _ = sink.only()
    assert draft.user_input == "capital of Spain"
    assert instrumentor.stats()["dropped_error"] == 1
    assert_state_freed(instrumentor)


def test_chat_engine_error_propagates_and_nothing_is_submitted(
    sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = ContextChatEngine.from_defaults(retriever=FailingRetriever(), llm=MockLLM())
    with pytest.raises(RetrieverDown):
        engine.chat("hello")
    assert sink.items == []
    assert instrumentor.stats()["dropped_error"] == 1
    assert_state_freed(instrumentor)


def test_a_failing_sink_never_fails_the_query(index: VectorStoreIndex) -> None:
    sink = RecordingSink(fail=True)
    instr = RagMetricsInstrumentor(sink).instrument()
    try:
        response = index.as_query_engine(llm=MockLLM(max_tokens=3)).query("capital of Italy")
    finally:
        instr.uninstrument()
    assert isinstance(response, Response) and response.response == "text text text"
    stats = instr.stats()
    assert (stats["sink_error"], stats["submitted"]) == (1, 0)


def test_a_bug_in_our_snapshot_is_counted_and_never_reaches_the_user(
    index: VectorStoreIndex,
    sink: RecordingSink,
    instrumentor: RagMetricsInstrumentor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> list[object]:
        raise KeyError("our bug")

    monkeypatch.setattr(handlers, "contexts_of", broken)
    response = index.as_query_engine(llm=MockLLM(max_tokens=2)).query("capital of Italy")

    assert isinstance(response, Response) and response.response == "text text"
    stats = instrumentor.stats()
    assert stats["internal_error"] >= 1
    assert stats["open"] == 0
    assert sink.items == [], "a half-captured query is not submitted"


def test_a_bug_of_ours_at_the_end_of_a_query_frees_its_state(
    index: VectorStoreIndex,
    sink: RecordingSink,
    instrumentor: RagMetricsInstrumentor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("our bug")

    monkeypatch.setattr(handlers, "wrap_stream", broken)
    response = index.as_query_engine(llm=MockLLM(max_tokens=2)).query("capital of Italy")

    assert isinstance(response, Response) and response.response == "text text"
    stats = instrumentor.stats()
    assert (stats["internal_error"], stats["dropped_incomplete"]) == (1, 1)
    assert sink.items == []
    assert_state_freed(instrumentor)


def test_a_failing_sink_is_logged_once_not_per_query(index: VectorStoreIndex, caplog: pytest.LogCaptureFixture) -> None:
    instr = RagMetricsInstrumentor(RecordingSink(fail=True)).instrument()
    try:
        engine = index.as_query_engine(llm=MockLLM(max_tokens=1))
        for _ in range(3):
            engine.query("capital of Italy")
    finally:
        instr.uninstrument()
    warnings = [r for r in caplog.records if r.name == "ragmetrics_llamaindex" and r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert instr.stats()["sink_error"] == 3
