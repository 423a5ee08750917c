"""The legacy ``CallbackManager`` handler: same samples for code on ``Settings.callback_manager``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.callbacks import CallbackManager
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine

from ragmetrics_llamaindex import RagMetricsCallbackHandler
from ragmetrics_llamaindex.offline import HashEmbedding
from tests.llamaindex.conftest import CORPUS, RecordingSink
from tests.llamaindex.test_errors import FailingRetriever, RetrieverDown


@pytest.fixture()
def handler(sink: RecordingSink) -> Iterator[RagMetricsCallbackHandler]:
    legacy = RagMetricsCallbackHandler(sink, capture_raw_retrieval=True)
    previous = Settings.callback_manager
    Settings.callback_manager = CallbackManager([legacy])
    try:
        yield legacy
    finally:
        Settings.callback_manager = previous


@pytest.fixture()
def legacy_index(handler: RagMetricsCallbackHandler) -> VectorStoreIndex:
    """An index built while ``Settings.callback_manager`` carries the handler, as legacy apps do."""
    documents = [Document(text=text, doc_id=key, metadata={"city": key}) for key, text in CORPUS.items()]
    return VectorStoreIndex.from_documents(documents, embed_model=HashEmbedding())


def test_query_through_settings_callback_manager_is_sampled(
    legacy_index: VectorStoreIndex, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    engine = legacy_index.as_query_engine(
        llm=MockLLM(),
        similarity_top_k=3,
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.3)],
    )
    response = engine.query("What is the capital of France?")
    assert isinstance(response, Response)

    draft, origin = sink.only()
    assert draft.user_input == "What is the capital of France?"
    assert draft.response == response.response
    assert [c.id for c in draft.contexts] == [n.node.node_id for n in response.source_nodes]
    assert len(draft.metadata["llamaindex.raw_retrieval"]) == 3
    assert origin.framework == "llamaindex"
    assert handler.stats()["open"] == 0


async def test_concurrent_aquery_through_the_legacy_handler(
    legacy_index: VectorStoreIndex, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    engine = legacy_index.as_query_engine(llm=MockLLM(), similarity_top_k=1)
    questions = ["capital of France", "capital of Spain", "capital of Italy", "Brandenburg Gate"]
    responses = await asyncio.gather(*(engine.aquery(q) for q in questions))
    by_question = {d.user_input: d for d in sink.drafts}
    assert set(by_question) == set(questions)
    for question, response in zip(questions, responses, strict=True):
        assert isinstance(response, Response)
        assert by_question[question].response == response.response
        assert f"Query: {question}\n" in by_question[question].response


def test_legacy_streaming_waits_for_the_stream(
    legacy_index: VectorStoreIndex, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    engine = legacy_index.as_query_engine(llm=MockLLM(max_tokens=4), streaming=True)
    response = engine.query("capital of Spain")
    assert isinstance(response, StreamingResponse)
    assert sink.items == []
    tokens = list(response.response_gen)
    draft, _ = sink.only()
    assert draft.response == "".join(tokens) == "text text text text"


def test_legacy_error_propagates_and_frees_state(sink: RecordingSink, handler: RagMetricsCallbackHandler) -> None:
    engine = RetrieverQueryEngine.from_args(
        FailingRetriever(callback_manager=Settings.callback_manager),
        llm=MockLLM(),
        callback_manager=Settings.callback_manager,
    )
    with pytest.raises(RetrieverDown):
        engine.query("anything")
    assert sink.items == []
    stats = handler.stats()
    assert (stats["dropped_error"], stats["open"]) == (1, 0)
