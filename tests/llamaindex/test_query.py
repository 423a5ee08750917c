"""Query engines: one sample per query, field by field, with no cross-talk under concurrency."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from llama_index.core import VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]  # public path, implicit re-export
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor

from ragmetrics_core.online.types import ContextDraft, SampleDraft
from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import CORPUS, RecordingSink

QUESTIONS = [
    "What is the capital of France?",
    "Which monument stands in Berlin?",
    "capital of Italy",
    "Where is the Prado museum?",
    "Eiffel Tower",
    "Colosseum in Rome",
    "Brandenburg Gate",
    "capital of Spain",
]


def expected_contexts(response: Response) -> list[ContextDraft]:
    return [
        ContextDraft(text=n.node.get_content(), id=n.node.node_id, score=n.score, metadata=dict(n.node.metadata))
        for n in response.source_nodes
    ]


def asked(echoed_prompt: str) -> list[str]:
    """The questions an echoed QA prompt was asked (its ``Query:`` lines)."""
    return [line.removeprefix("Query: ") for line in echoed_prompt.splitlines() if line.startswith("Query: ")]


def assert_matches(draft: SampleDraft, question: str, response: Response) -> None:
    assert draft.user_input == question
    assert draft.response == response.response
    assert draft.contexts == expected_contexts(response)


def test_query_sample_holds_question_postprocessed_nodes_answer_and_raw_retrieval(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_query_engine(
        llm=echo_llm,
        similarity_top_k=3,
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.3)],
    )
    response = engine.query(QUESTIONS[0])

    assert isinstance(response, Response)
    draft, origin = sink.only()
    assert_matches(draft, QUESTIONS[0], response)
    assert [c.metadata["city"] for c in draft.contexts] == ["paris"]
    assert draft.contexts[0].text == CORPUS["paris"]
    raw = draft.metadata["llamaindex.raw_retrieval"]
    assert len(raw) == 3, "the raw retrieval is the retriever's top-k, before the postprocessor"
    assert raw[0]["id"] == draft.contexts[0].id and raw[0]["score"] == draft.contexts[0].score
    assert {r["text"] for r in raw} < set(CORPUS.values())
    assert draft.metadata["llamaindex.kind"] == "query"
    assert origin.framework == "llamaindex"
    assert origin.chain_name == "RetrieverQueryEngine"
    assert origin.run_id is not None and origin.run_id.startswith("RetrieverQueryEngine.query-")
    assert origin.span is None
    assert origin.start_time_ns is not None and origin.end_time_ns is not None
    assert origin.start_time_ns <= origin.end_time_ns
    stats = instrumentor.stats()
    assert (stats["started"], stats["submitted"], stats["open"]) == (1, 1, 0)


def test_raw_retrieval_is_left_out_unless_asked_for(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink
) -> None:
    instr = RagMetricsInstrumentor(sink).instrument()
    try:
        response = index.as_query_engine(llm=echo_llm, similarity_top_k=2).query(QUESTIONS[1])
    finally:
        instr.uninstrument()
    assert isinstance(response, Response)
    draft, _ = sink.only()
    assert_matches(draft, QUESTIONS[1], response)
    assert "llamaindex.raw_retrieval" not in draft.metadata


async def test_concurrent_aquery_samples_do_not_mix(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_query_engine(llm=echo_llm, similarity_top_k=2)
    responses = await asyncio.gather(*(engine.aquery(q) for q in QUESTIONS))

    assert len(sink.items) == len(QUESTIONS)
    by_question = {d.user_input: d for d in sink.drafts}
    assert set(by_question) == set(QUESTIONS)
    for question, response in zip(QUESTIONS, responses, strict=True):
        assert isinstance(response, Response)
        draft = by_question[question]
        assert_matches(draft, question, response)
        # The echo LLM repeats its prompt, so an answer names its own question and no other.
        assert asked(draft.response) == [question]
    assert len({origin.run_id for _, origin in sink.items if origin is not None}) == len(QUESTIONS)
    assert instrumentor.stats()["open"] == 0


def test_queries_from_threads_do_not_mix(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_query_engine(llm=echo_llm, similarity_top_k=2)
    with ThreadPoolExecutor(max_workers=4) as pool:
        responses = list(pool.map(engine.query, QUESTIONS * 3))

    assert len(sink.items) == len(QUESTIONS) * 3
    for draft in sink.drafts:
        assert asked(draft.response) == [draft.user_input]
    for question, response in zip(QUESTIONS * 3, responses, strict=True):
        assert isinstance(response, Response)
        assert any(d.response == response.response and d.user_input == question for d in sink.drafts)
    assert instrumentor.stats()["open"] == 0


def test_nothing_is_captured_before_instrument_or_after_uninstrument(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink
) -> None:
    engine = index.as_query_engine(llm=echo_llm)
    instr = RagMetricsInstrumentor(sink)
    engine.query("before")
    instr.instrument()
    engine.query("during")
    instr.uninstrument()
    engine.query("after")
    assert [d.user_input for d in sink.drafts] == ["during"]
    root = get_dispatcher()
    assert not any(type(h).__name__.startswith("RagMetrics") for h in root.span_handlers + root.event_handlers)


def test_a_named_child_dispatcher_sees_only_its_own_engines(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink
) -> None:
    query_dispatcher = get_dispatcher("llama_index.core.base.base_query_engine")
    instr = RagMetricsInstrumentor(sink).instrument(query_dispatcher)
    try:
        response = index.as_query_engine(llm=echo_llm, similarity_top_k=1).query(QUESTIONS[2])
    finally:
        instr.uninstrument()
    assert isinstance(response, Response)
    draft, _ = sink.only()
    assert_matches(draft, QUESTIONS[2], response)
    assert not any(type(h).__name__.startswith("RagMetrics") for h in query_dispatcher.span_handlers)


def test_instrument_tags_and_our_tags_reach_the_origin(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink
) -> None:
    from llama_index.core.instrumentation.dispatcher import instrument_tags  # type: ignore[attr-defined]

    instr = RagMetricsInstrumentor(sink, tags=("prod", "eu"), chain_name="faq-bot").instrument()
    try:
        with instrument_tags({"tenant": "acme"}):
            index.as_query_engine(llm=echo_llm).query(QUESTIONS[3])
    finally:
        instr.uninstrument()
    _, origin = sink.only()
    assert origin.tags == ("prod", "eu")
    assert origin.chain_name == "faq-bot"
    assert origin.metadata == {"instrument_tags": {"tenant": "acme"}}
