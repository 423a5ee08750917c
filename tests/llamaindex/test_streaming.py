"""Streaming query responses: the user's stream is untouched; the sample waits for its end."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen
from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.llms import MockLLM

from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import RecordingSink

QUESTION = "What is the capital of France?"


class FailingStreamLLM(MockLLM):
    """Streams two tokens, then fails the way a dropped connection would."""

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            yield CompletionResponse(text="Par", delta="Par")
            yield CompletionResponse(text="Paris", delta="is")
            raise ConnectionError("stream cut")

        return gen()


def reference_tokens(index: VectorStoreIndex, question: str) -> list[str]:
    """The tokens the same engine streams with no instrumentation at all."""
    response = index.as_query_engine(llm=MockLLM(), streaming=True, similarity_top_k=2).query(question)
    assert isinstance(response, StreamingResponse)
    return list(response.response_gen)


def test_user_receives_every_token_and_sample_is_the_joined_stream(
    index: VectorStoreIndex, sink: RecordingSink
) -> None:
    expected = reference_tokens(index, QUESTION)
    instr = RagMetricsInstrumentor(sink).instrument()
    try:
        response = index.as_query_engine(llm=MockLLM(), streaming=True, similarity_top_k=2).query(QUESTION)
        assert isinstance(response, StreamingResponse)
        assert sink.items == [], "nothing is submitted before the user has read the stream"
        assert response.response_txt is None, "the stream was not consumed by us"
        received = list(response.response_gen)
    finally:
        instr.uninstrument()

    assert received == expected and len(received) > 10
    draft, origin = sink.only()
    assert draft.user_input == QUESTION
    assert draft.response == "".join(received)
    assert [c.id for c in draft.contexts] == [n.node.node_id for n in response.source_nodes]
    assert [c.score for c in draft.contexts] == [n.score for n in response.source_nodes]
    assert origin.run_id is not None and origin.run_id.startswith("RetrieverQueryEngine.query-")
    assert instr.stats()["submitted"] == 1


def test_llamaindex_helpers_that_read_the_stream_still_work(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor, capsys: Any
) -> None:
    engine = index.as_query_engine(llm=MockLLM(), streaming=True)
    printed = engine.query(QUESTION)
    assert isinstance(printed, StreamingResponse)
    printed.print_response_stream()
    as_text = str(engine.query("capital of Italy"))

    assert capsys.readouterr().out == printed.response_txt
    assert [d.response for d in sink.drafts] == [printed.response_txt, as_text]


def test_stream_closed_early_drops_the_sample_and_frees_state(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = index.as_query_engine(llm=MockLLM(), streaming=True).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    stream = response.response_gen
    first = [next(stream) for _ in range(3)]
    assert instrumentor.stats()["open"] == 1
    stream.close()

    assert len(first) == 3
    assert sink.items == []
    stats = instrumentor.stats()
    assert (stats["dropped_abandoned"], stats["open"], stats["submitted"]) == (1, 0, 0)


def test_stream_never_read_is_dropped_when_collected(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = index.as_query_engine(llm=MockLLM(), streaming=True).query(QUESTION)
    assert instrumentor.stats()["open"] == 1
    del response
    gc.collect()
    stats = instrumentor.stats()
    assert (stats["dropped_abandoned"], stats["open"]) == (1, 0)
    assert sink.items == []


def test_break_out_of_the_loop_then_drop_the_response(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = index.as_query_engine(llm=MockLLM(), streaming=True).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    for count, _ in enumerate(response.response_gen):
        if count == 1:
            break
    del response
    gc.collect()
    assert sink.items == []
    assert instrumentor.stats()["dropped_abandoned"] == 1


def test_model_error_mid_stream_reaches_the_user_unchanged_and_drops_the_sample(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = index.as_query_engine(llm=FailingStreamLLM(max_tokens=None), streaming=True).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    received: list[str] = []
    with pytest.raises(ConnectionError, match="stream cut"):
        for token in response.response_gen:
            received.append(token)
    assert received == ["Par", "is"]
    assert sink.items == []
    stats = instrumentor.stats()
    assert (stats["dropped_error"], stats["open"]) == (1, 0)


async def test_async_stream_is_passed_through_and_sampled_at_its_end(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    expected = reference_tokens(index, QUESTION)
    sink.items.clear()  # the reference run above was instrumented too
    response = await index.as_query_engine(llm=MockLLM(), streaming=True, similarity_top_k=2).aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    assert sink.items == []
    received = [token async for token in response.async_response_gen()]

    assert received == expected
    draft, _ = sink.only()
    assert draft.response == "".join(received) == response.response_txt
    assert draft.user_input == QUESTION


async def test_async_stream_abandoned_is_dropped(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = await index.as_query_engine(llm=MockLLM(), streaming=True).aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    stream = response.response_gen
    await stream.__anext__()
    await stream.aclose()
    assert sink.items == []
    assert (instrumentor.stats()["dropped_abandoned"], instrumentor.stats()["open"]) == (1, 0)


async def test_async_stream_never_read_is_dropped_when_collected(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    response = await index.as_query_engine(llm=MockLLM(max_tokens=3), streaming=True).aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    assert instrumentor.stats()["open"] == 1
    del response
    gc.collect()
    stats = instrumentor.stats()
    assert (stats["dropped_abandoned"], stats["open"]) == (1, 0)
    assert sink.items == []
