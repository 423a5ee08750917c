"""Bounded state and clear configuration errors."""

from __future__ import annotations

import gc

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]  # public path, implicit re-export
from llama_index.core.llms import MockLLM
from pydantic import ValidationError

from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import RecordingSink


def test_queries_beyond_max_open_are_counted_and_still_answered(index: VectorStoreIndex, sink: RecordingSink) -> None:
    instr = RagMetricsInstrumentor(sink, max_open_queries=1).instrument()
    try:
        engine = index.as_query_engine(llm=MockLLM(max_tokens=3), streaming=True)
        held = engine.query("capital of France")  # an unread stream keeps its slot
        extra = engine.query("capital of Spain")
        assert isinstance(held, StreamingResponse) and isinstance(extra, StreamingResponse)
        assert list(extra.response_gen) == ["text ", "text ", "text"], "an untracked stream is untouched"
        assert instr.stats()["dropped_capacity"] == 1
        assert list(held.response_gen) == ["text ", "text ", "text"]
        after = engine.query("capital of Italy")
        assert isinstance(after, StreamingResponse)
        list(after.response_gen)
    finally:
        instr.uninstrument()
    assert [d.user_input for d in sink.drafts] == ["capital of France", "capital of Italy"]


def test_texts_and_context_counts_are_capped(index: VectorStoreIndex, sink: RecordingSink) -> None:
    instr = RagMetricsInstrumentor(sink, max_text_chars=12, max_contexts=2).instrument()
    try:
        response = index.as_query_engine(llm=MockLLM(), similarity_top_k=4).query("What is the capital of France?")
    finally:
        instr.uninstrument()
    assert isinstance(response, Response) and response.response is not None
    draft, _ = sink.only()
    assert draft.user_input == "What is the c"[:12]
    assert draft.response == response.response[:12]
    assert len(draft.contexts) == 2 and all(len(c.text) <= 12 for c in draft.contexts)


def test_many_queries_leave_no_state_behind(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_query_engine(llm=MockLLM(max_tokens=1))
    streaming = index.as_query_engine(llm=MockLLM(max_tokens=2), streaming=True)
    for i in range(100):
        engine.query(f"question {i}")
        response = streaming.query(f"streamed {i}")
        if i % 2:
            assert isinstance(response, StreamingResponse)
            list(response.response_gen)
        del response
    gc.collect()
    registry = instrumentor._registry
    assert registry is not None and registry.owners == {} and registry.in_retrieval == set()
    stats = instrumentor.stats()
    assert (stats["submitted"], stats["dropped_abandoned"], stats["open"]) == (150, 50, 0)


def test_uninstrument_forgets_streams_in_flight(index: VectorStoreIndex, sink: RecordingSink) -> None:
    instr = RagMetricsInstrumentor(sink).instrument()
    response = index.as_query_engine(llm=MockLLM(max_tokens=2), streaming=True).query("capital of Spain")
    instr.uninstrument()
    assert isinstance(response, StreamingResponse)
    assert list(response.response_gen) == ["text ", "text"], "the user's stream still works"
    assert sink.items == []
    assert instr.stats()["dropped_uninstrumented"] == 1


def test_instrument_is_idempotent_and_refuses_a_second_dispatcher(sink: RecordingSink) -> None:
    instr = RagMetricsInstrumentor(sink)
    try:
        assert instr.instrument() is instr.instrument()
        root = get_dispatcher()
        assert sum(type(h).__name__ == "SpanTap" for h in root.span_handlers) == 1
        with pytest.raises(RuntimeError, match="already attached"):
            instr.instrument(get_dispatcher("llama_index.core.base.base_query_engine"))
    finally:
        instr.uninstrument()
    instr.uninstrument()  # a second call is harmless
    assert not instr.is_instrumented


def test_a_second_instrumentor_on_the_same_dispatcher_replaces_the_first_so_each_query_counts_once(
    index: VectorStoreIndex, caplog: pytest.LogCaptureFixture
) -> None:
    """A notebook cell run twice builds a new pipeline and a new instrumentor, while the first stays attached: each
    query would be submitted twice (twice the judge's cost, every count doubled). The newer one wins, and says so."""
    first_sink, second_sink = RecordingSink(), RecordingSink()
    first = RagMetricsInstrumentor(first_sink).instrument()
    try:
        with caplog.at_level("WARNING", logger="ragmetrics_llamaindex"):
            second = RagMetricsInstrumentor(second_sink).instrument()
        try:
            root = get_dispatcher()
            assert sum(type(h).__name__ == "SpanTap" for h in root.span_handlers) == 1
            assert sum(type(h).__name__ == "EventTap" for h in root.event_handlers) == 1
            assert "another RagMetricsInstrumentor" in caplog.text
            index.as_query_engine(llm=MockLLM(max_tokens=2)).query("capital of Spain")
            assert (len(first_sink.items), len(second_sink.items)) == (0, 1)
            assert not first.is_instrumented and second.is_instrumented
        finally:
            second.uninstrument()
    finally:
        first.uninstrument()  # harmless on a replaced instrumentor


@pytest.mark.parametrize(
    "bad",
    [{"max_text_chars": 0}, {"max_contexts": -1}, {"max_open_queries": 0}, {"max_text_chars": "many"}],
)
def test_bad_options_fail_at_construction(sink: RecordingSink, bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RagMetricsInstrumentor(sink, **bad)  # type: ignore[arg-type]


def test_mixed_traffic_from_threads_is_all_accounted_for(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from llama_index.core.chat_engine.types import ChatMode

    def session(worker: int) -> None:
        engine = index.as_query_engine(llm=MockLLM(max_tokens=3), similarity_top_k=2)
        streaming = index.as_query_engine(llm=MockLLM(max_tokens=3), streaming=True)
        chat = index.as_chat_engine(chat_mode=ChatMode.CONTEXT, llm=MockLLM(max_tokens=3))
        for i in range(5):
            engine.query(f"q {worker}-{i}")
            stream = streaming.query(f"s {worker}-{i}")
            assert isinstance(stream, StreamingResponse)
            assert "".join(stream.response_gen) == "text text text"
            reply = chat.stream_chat(f"c {worker}-{i}")
            assert "".join(reply.response_gen) == "text text text"
            if reply.write_response_to_history_thread is not None:
                reply.write_response_to_history_thread.join(10)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(session, range(4)))

    asked = sorted(d.user_input for d in sink.drafts)
    assert asked == sorted(f"{kind} {w}-{i}" for kind in "qsc" for w in range(4) for i in range(5))
    assert all(d.response == "text text text" for d in sink.drafts)
    registry = instrumentor._registry
    assert registry is not None and registry.owners == {}
    stats = instrumentor.stats()
    assert (stats["submitted"], stats["open"], stats["internal_error"]) == (60, 0, 0)
