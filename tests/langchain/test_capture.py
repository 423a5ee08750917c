"""What the handler captures from a real LCEL RAG chain, for every way of running it."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from ragmetrics_core.online.types import ContextDraft
from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import ANSWER, RecordingSink, Submitted, rag_chain

QUESTION = "Where is the Eiffel Tower?"


def contexts_of(documents: list[Document]) -> list[ContextDraft]:
    return [ContextDraft(text=d.page_content, id=d.id, metadata=dict(d.metadata)) for d in documents]


def assert_rag_sample(item: Submitted, question: str, documents: list[Document], run_id: uuid.UUID) -> None:
    draft, origin = item.draft, item.origin
    assert draft.user_input == question
    assert draft.response == ANSWER
    assert draft.contexts == contexts_of(documents)
    assert draft.reference is None
    assert "ragmetrics.capture_notes" not in draft.metadata
    assert origin is not None
    assert origin.framework == "langchain"
    assert origin.chain_name == "RunnableSequence"
    assert origin.run_id == str(run_id)
    assert origin.span is None
    assert origin.start_time_ns is not None and origin.end_time_ns is not None
    assert origin.start_time_ns <= origin.end_time_ns
    # The draft validates into the core sample model.
    sample = draft.to_sample()
    assert sample.context_texts == [d.page_content for d in documents]


def test_invoke_captures_question_documents_and_answer(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    run_id = uuid.uuid4()
    before = time.time_ns()
    answer = rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler], "run_id": run_id})
    assert answer == ANSWER
    item = sink.only()
    assert_rag_sample(item, QUESTION, expected_docs(QUESTION), run_id)
    assert item.origin is not None and item.origin.start_time_ns is not None
    assert item.origin.start_time_ns >= before
    stats = handler.stats()
    assert (stats.runs.runs_started, stats.samples_submitted, stats.runs.live_runs, stats.runs.tracked_children) == (
        1,
        1,
        0,
        0,
    )


async def test_ainvoke_captures_the_same_sample(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    run_id = uuid.uuid4()
    await rag_chain(retriever).ainvoke(QUESTION, config={"callbacks": [handler], "run_id": run_id})
    assert_rag_sample(sink.only(), QUESTION, expected_docs(QUESTION), run_id)


def test_stream_takes_the_real_input_from_the_end_event(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    run_id = uuid.uuid4()
    chunks = list(rag_chain(retriever).stream(QUESTION, config={"callbacks": [handler], "run_id": run_id}))
    assert "".join(chunks) == ANSWER and len(chunks) > 1
    assert_rag_sample(sink.only(), QUESTION, expected_docs(QUESTION), run_id)


async def test_astream_takes_the_real_input_from_the_end_event(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    run_id = uuid.uuid4()
    chunks = [
        c async for c in rag_chain(retriever).astream(QUESTION, config={"callbacks": [handler], "run_id": run_id})
    ]
    assert "".join(chunks) == ANSWER
    assert_rag_sample(sink.only(), QUESTION, expected_docs(QUESTION), run_id)


def test_a_stream_the_caller_stops_reading_is_not_scored_as_a_finished_answer(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    """A client that disconnects mid-answer: LangChain ends the root run normally, with the partial output ("Th"),
    while the model and parser runs below it are still open. Scored, the fragment would read as an unfaithful
    answer and page someone; it is dropped and counted instead, as the LlamaIndex integration drops its streams."""
    chain = rag_chain(retriever)
    stream = chain.stream(QUESTION, config={"callbacks": [handler]})
    assert [next(stream) for _ in range(2)] == ["T", "h"]  # FakeListChatModel streams a character at a time
    stream.close()  # what `break` in a for loop does
    assert sink.items == []
    stats = handler.stats()
    assert stats.runs_abandoned == 1 and stats.samples_submitted == 0
    assert (stats.runs.live_runs, stats.runs.tracked_children) == (0, 0)
    # The same chain read to the end is still one sample, with the whole answer.
    assert "".join(chain.stream(QUESTION, config={"callbacks": [handler]})) == ANSWER
    assert sink.only().draft.response == ANSWER


def test_an_async_stream_the_caller_stops_reading_is_counted_as_abandoned_not_failed(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    """LangChain's async path reports the cut as the root's error, a ``GeneratorExit``, once the stream's inner
    generators are finalised (here: when ``asyncio.run`` shuts down the loop's async generators)."""

    async def read_two_chunks() -> list[str]:
        stream = rag_chain(retriever).astream(QUESTION, config={"callbacks": [handler]})
        chunks = [await anext(stream) for _ in range(2)]
        await stream.aclose()
        return chunks

    assert asyncio.run(read_two_chunks()) == ["T", "h"]
    assert sink.items == []
    stats = handler.stats()
    assert (stats.runs_abandoned, stats.runs_failed, stats.runs.live_runs) == (1, 0, 0)


QUESTIONS = [
    "Where is the Eiffel Tower?",
    "What is the capital of Italy?",
    "Which river flows through Paris?",
]


def _by_question(sink: RecordingSink) -> dict[str, list[str]]:
    return {d.user_input: [c.text for c in d.contexts] for d in sink.drafts}


def test_batch_gives_one_sample_per_input(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    chain = rag_chain(retriever, responses=[ANSWER] * 3)
    chain.batch(QUESTIONS, config={"callbacks": [handler]})
    assert len(sink.drafts) == 3
    assert _by_question(sink) == {q: [d.page_content for d in expected_docs(q)] for q in QUESTIONS}
    assert len({item.origin.run_id for item in sink.items if item.origin}) == 3
    assert handler.stats().runs.live_runs == 0


async def test_abatch_gives_one_sample_per_input(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    chain = rag_chain(retriever, responses=[ANSWER] * 3)
    await chain.abatch(QUESTIONS, config={"callbacks": [handler]})
    assert _by_question(sink) == {q: [d.page_content for d in expected_docs(q)] for q in QUESTIONS}
    assert handler.stats().runs.live_runs == 0


def test_with_config_attaches_the_handler_per_chain(
    retriever: BaseRetriever,
    sink: RecordingSink,
    handler: RagMetricsCallbackHandler,
    expected_docs: Callable[..., list[Document]],
) -> None:
    chain = rag_chain(retriever, responses=[ANSWER] * 2).with_config(callbacks=[handler], run_name="support-rag")
    chain.invoke(QUESTION)
    chain.invoke(QUESTIONS[1])
    assert [d.user_input for d in sink.drafts] == [QUESTION, QUESTIONS[1]]
    assert [item.origin.chain_name for item in sink.items if item.origin] == ["support-rag", "support-rag"]


def test_reference_tags_and_metadata_come_from_the_run_config(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    config = {
        "callbacks": [handler],
        "tags": ["experiment-7"],
        "metadata": {"ragmetrics_reference": "It is in Paris.", "user_tier": "pro", "client": object()},
    }
    rag_chain(retriever).invoke(QUESTION, config=config)  # type: ignore[arg-type]
    item = sink.only()
    assert item.draft.reference == "It is in Paris."
    assert item.origin is not None
    assert item.origin.tags == ("experiment-7",)
    # Scalars are kept, the reference is not duplicated, objects are left out.
    assert item.origin.metadata == {"user_tier": "pro"}
    assert item.draft.metadata == {"user_tier": "pro"}


def test_custom_reference_key(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, reference_metadata_key="gold")
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler], "metadata": {"gold": "Paris."}})
    assert sink.only().draft.reference == "Paris."


def test_reference_that_is_not_text_is_dropped_with_a_note(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler], "metadata": {"ragmetrics_reference": 42}})
    draft = sink.only().draft
    assert draft.reference is None
    assert draft.metadata["ragmetrics.capture_notes"] == ["metadata 'ragmetrics_reference' is a int, not a string"]


def test_long_texts_are_truncated_and_noted(retriever: BaseRetriever, sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, max_text_chars=10)
    rag_chain(retriever).invoke(QUESTION, config={"callbacks": [handler]})
    draft = sink.only().draft
    assert draft.user_input == QUESTION[:10]
    assert draft.response == ANSWER[:10]
    assert all(len(c.text) == 10 for c in draft.contexts)
    notes = draft.metadata["ragmetrics.capture_notes"]
    assert "user_input truncated to 10 characters" in notes
    assert "response truncated to 10 characters" in notes
    assert "context 0 truncated to 10 characters" in notes


def test_runs_without_retrieval_are_skipped_unless_asked(sink: RecordingSink) -> None:
    from langchain_core.runnables import RunnableLambda

    chain = RunnableLambda(lambda q: f"echo {q}")
    skipping = RagMetricsCallbackHandler(sink)
    chain.invoke("hi", config={"callbacks": [skipping]})
    assert sink.drafts == []
    assert skipping.stats().skipped_no_retrieval == 1

    keeping = RagMetricsCallbackHandler(sink, require_retrieval=False)
    chain.invoke("hi", config={"callbacks": [keeping]})
    draft = sink.only().draft
    assert (draft.user_input, draft.response, draft.contexts) == ("hi", "echo hi", [])


def test_empty_retrieval_is_still_a_rag_sample(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    from tests.langchain.conftest import make_store

    empty = make_store([]).as_retriever()
    rag_chain(empty).invoke(QUESTION, config={"callbacks": [handler]})
    draft = sink.only().draft
    assert draft.contexts == [] and draft.response == ANSWER
