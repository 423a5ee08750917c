"""Nothing we do breaks the user's chain: errors, malformed events, runs that never end, many threads."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import tracemalloc
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import ANSWER, RecordingSink, join_docs, make_store, rag_chain

QUESTION = "Where is the Eiffel Tower?"


class ExplodingSink:
    def __init__(self) -> None:
        self.calls = 0

    def submit(self, sample: SampleDraft, origin: Origin | None = None) -> object:
        self.calls += 1
        raise RuntimeError("queue exploded")


def test_chain_that_raises_frees_its_state_and_submits_nothing(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    def fail(_: Any) -> str:
        raise ValueError("model timed out")

    chain = {"context": retriever | join_docs, "question": RunnablePassthrough()} | RunnableLambda(fail)
    with pytest.raises(ValueError, match="model timed out"):
        chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert sink.drafts == []
    stats = handler.stats()
    assert (stats.runs_failed, stats.runs.live_runs, stats.runs.tracked_children, stats.callback_failures) == (
        1,
        0,
        0,
        0,
    )


async def test_async_chain_that_raises_frees_its_state(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    async def fail(_: Any) -> str:
        raise ValueError("boom")

    chain = {"context": retriever | join_docs, "question": RunnablePassthrough()} | RunnableLambda(fail)
    with pytest.raises(ValueError):
        await chain.ainvoke(QUESTION, config={"callbacks": [handler]})
    assert handler.stats().runs.live_runs == 0 and handler.stats().runs_failed == 1


def test_sink_that_raises_does_not_break_the_chain(retriever: BaseRetriever, caplog: pytest.LogCaptureFixture) -> None:
    sink = ExplodingSink()
    handler = RagMetricsCallbackHandler(sink)  # type: ignore[arg-type]
    chain = rag_chain(retriever, responses=[ANSWER] * 3)
    with caplog.at_level(logging.WARNING, logger="ragmetrics.langchain"):
        results = [chain.invoke(QUESTION, config={"callbacks": [handler]}) for _ in range(3)]
    assert results == [ANSWER] * 3
    assert sink.calls == 3
    assert handler.stats().submit_failures == 3 and handler.stats().samples_submitted == 0
    # Rate-limited: one message for three failures.
    messages = [r.getMessage() for r in caplog.records if r.name == "ragmetrics.langchain"]
    assert len(messages) == 1 and "submit failed (RuntimeError: queue exploded)" in messages[0]


MALFORMED_EVENTS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("on_chain_start", (None, None), {"run_id": None}),
    (
        "on_chain_start",
        ({}, {"question": object()}),
        {"run_id": "not-a-uuid", "parent_run_id": 12, "tags": 5},
    ),
    ("on_chain_start", ([], b"bytes"), {"run_id": uuid.uuid4(), "metadata": "not a dict", "name": 3}),
    ("on_chain_end", (object(),), {"run_id": uuid.uuid4()}),
    ("on_chain_end", (None,), {"run_id": None, "inputs": object()}),
    ("on_chain_error", ("not an exception",), {"run_id": uuid.uuid4()}),
    ("on_retriever_start", (None, None), {"run_id": uuid.uuid4(), "parent_run_id": uuid.uuid4()}),
    ("on_retriever_end", (None,), {"run_id": uuid.uuid4()}),
    ("on_retriever_end", ([1, 2, None],), {"run_id": None}),
    ("on_tool_start", (None, None), {"run_id": uuid.uuid4(), "parent_run_id": "x"}),
]


@pytest.mark.parametrize(("event", "args", "kwargs"), MALFORMED_EVENTS)
def test_malformed_events_never_raise(
    handler: RagMetricsCallbackHandler, event: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    assert getattr(handler, event)(*args, **kwargs) is None


def test_malformed_run_contents_are_captured_as_far_as_possible(
    sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    root, retriever_run = uuid.uuid4(), uuid.uuid4()
    handler.on_chain_start(None, {"question": 42}, run_id=root, metadata={"ragmetrics_reference": ["a"]})
    handler.on_retriever_start(None, "q", run_id=retriever_run, parent_run_id=root)
    good = Document(page_content="kept", id="k", metadata={"embedding": [0.1] * 1000, "ok": "yes"})
    handler.on_retriever_end([None, {"page_content": "a dict"}, good, Document(page_content="")], run_id=retriever_run)
    handler.on_chain_end({"answer": 7, "other": None}, run_id=root)
    draft = sink.only().draft
    assert draft.user_input == "" and draft.response == "" and draft.reference is None
    assert [(c.text, c.id, c.metadata) for c in draft.contexts] == [
        ("kept", "k", {"ok": "yes"}),
        ("", None, {}),
    ]
    assert draft.metadata["ragmetrics.capture_notes"] == [
        "no user input text found in dict with keys [question]; set input_key",
        "no response text found in dict with keys [answer, other]; set answer_key",
        "metadata 'ragmetrics_reference' is a list, not a string",
        "2 retrieved item(s) without a text page_content were left out",
    ]
    draft.to_sample()  # still a valid sample: the metrics that need the missing parts are undetermined


def test_runs_that_never_end_expire(sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, run_ttl_s=0.5)
    for _ in range(5):
        root = uuid.uuid4()
        handler.on_chain_start(None, "q", run_id=root)
        handler.on_chain_start(None, "q", run_id=uuid.uuid4(), parent_run_id=root)
    assert handler.stats().runs.live_runs == 5
    time.sleep(0.6)
    handler.on_chain_start(None, "q", run_id=uuid.uuid4())
    stats = handler.stats()
    assert (stats.runs.live_runs, stats.runs.tracked_children, stats.runs.evicted_expired) == (1, 0, 5)


def test_live_runs_are_capped_and_late_children_of_dropped_runs_ignored(sink: RecordingSink) -> None:
    handler = RagMetricsCallbackHandler(sink, max_runs=3)
    roots = [uuid.uuid4() for _ in range(4)]
    steps = {root: uuid.uuid4() for root in roots}
    for root in roots:
        handler.on_chain_start(None, "q", run_id=root)
        handler.on_chain_start(None, "q", run_id=steps[root], parent_run_id=root)
    stats = handler.stats()
    assert (stats.runs.live_runs, stats.runs.evicted_overflow) == (3, 1)
    # The dropped run goes on: its new children must not be taken for new top-level runs.
    late_chain, late_retriever = uuid.uuid4(), uuid.uuid4()
    handler.on_chain_start(None, "q", run_id=late_chain, parent_run_id=steps[roots[0]])
    handler.on_retriever_start(None, "q", run_id=late_retriever, parent_run_id=late_chain)
    handler.on_retriever_end([Document(page_content="x")], run_id=late_retriever)
    handler.on_chain_end("a", run_id=late_chain)
    handler.on_chain_end("a", run_id=roots[0])
    assert sink.drafts == []
    assert handler.stats().runs.live_runs == 3


class CountingSink:
    """Takes samples and drops them, like a sampler that sampled them out."""

    def __init__(self) -> None:
        self.count = 0

    def submit(self, sample: SampleDraft, origin: Origin | None = None) -> object:
        self.count += 1
        return None


def test_memory_stays_bounded_over_many_runs(retriever: BaseRetriever) -> None:
    sink = CountingSink()
    handler = RagMetricsCallbackHandler(sink)
    chain = rag_chain(retriever, responses=[ANSWER])
    config: Any = {"callbacks": [handler]}
    for _ in range(50):  # warm up caches
        chain.invoke(QUESTION, config=config)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(300):
            chain.invoke(QUESTION, config=config)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(
        stat.size_diff
        for stat in after.compare_to(before, "filename")
        if "ragmetrics_langchain" in stat.traceback[0].filename
    )
    assert grown < 4096, f"handler kept {grown} bytes over 300 runs"
    assert sink.count == 350
    assert sink.count == 350
    assert handler.stats().runs.live_runs == 0 and handler.stats().runs.tracked_children == 0


def test_many_concurrent_invocations_from_threads(
    store: Any, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    retriever = store.as_retriever(search_kwargs={"k": 2})
    prompt = ChatPromptTemplate.from_template("{context}\n{question}")
    # The answer echoes the question so that a sample mixing two runs would be caught.
    echo = RunnableLambda(lambda p: f"answer to: {p.to_messages()[-1].content.splitlines()[-1]}")
    chain = {"context": retriever | join_docs, "question": RunnablePassthrough()} | prompt | echo
    questions = [f"question number {i} about Paris?" for i in range(200)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda q: chain.invoke(q, config={"callbacks": [handler]}), questions))
    assert answers == [f"answer to: {q}" for q in questions]
    drafts = sink.drafts
    assert sorted(d.user_input for d in drafts) == sorted(questions)
    for draft in drafts:
        assert draft.response == f"answer to: {draft.user_input}"
        assert [c.id for c in draft.contexts] == [d.id for d in retriever.invoke(draft.user_input)]
    stats = handler.stats()
    assert (stats.samples_submitted, stats.runs.live_runs, stats.runs.tracked_children, stats.callback_failures) == (
        200,
        0,
        0,
        0,
    )


async def test_many_concurrent_async_invocations(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    chain = (
        {"context": retriever | join_docs, "question": RunnablePassthrough()}
        | ChatPromptTemplate.from_template("{context}\n{question}")
        | FakeListChatModel(responses=[ANSWER])
        | StrOutputParser()
    )
    questions = [f"q{i}" for i in range(100)]
    await asyncio.gather(*(chain.ainvoke(q, config={"callbacks": [handler]}) for q in questions))
    assert sorted(d.user_input for d in sink.drafts) == sorted(questions)
    assert handler.stats().runs.live_runs == 0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_text_chars": 0}, "max_text_chars must be at least 1"),
        ({"max_runs": 0}, "max_runs must be at least 1"),
        ({"run_ttl_s": 0}, "run_ttl_s must be positive"),
        ({"run_ttl_s": float("nan")}, "run_ttl_s must be positive"),
        ({"answer_key": 3}, "answer_key must be a string or None"),
        ({"max_runs": "many"}, "max_runs must be an int"),
        ({"max_text_chars": True}, "max_text_chars must be an int"),
        ({"run_ttl_s": "1h"}, "run_ttl_s must be a number of seconds"),
        ({"reference_metadata_key": None}, "reference_metadata_key must be a string"),
    ],
)
def test_bad_configuration_is_a_clear_error(sink: RecordingSink, kwargs: dict[str, Any], error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error):
        RagMetricsCallbackHandler(sink, **kwargs)


def test_a_pipeline_without_submit_is_rejected() -> None:
    with pytest.raises(TypeError, match="pipeline must have a submit"):
        RagMetricsCallbackHandler(object())  # type: ignore[arg-type]


def test_documents_not_sharing_state_across_handlers(retriever: BaseRetriever) -> None:
    first, second = RecordingSink(), RecordingSink()
    chain = rag_chain(retriever, responses=[ANSWER])
    chain.invoke(QUESTION, config={"callbacks": [RagMetricsCallbackHandler(first), RagMetricsCallbackHandler(second)]})
    assert first.only().draft == second.only().draft
    assert first.only().draft is not second.only().draft


def test_empty_vector_store_documents(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    store = make_store([Document(page_content="only one", id="one")])
    rag_chain(store.as_retriever(search_kwargs={"k": 4})).invoke(QUESTION, config={"callbacks": [handler]})
    assert [c.id for c in sink.only().draft.contexts] == ["one"]
