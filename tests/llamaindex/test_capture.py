"""Retriever-only code: a capture block turns its retrievals plus the user's answer into one sample."""

from __future__ import annotations

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.llms import MockLLM

from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import CORPUS, RecordingSink


def test_retrieval_plus_an_explicit_answer_is_one_sample(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    retriever = index.as_retriever(similarity_top_k=2)
    with instrumentor.capture(chain_name="my-rag") as capture:
        nodes = retriever.retrieve("capital of Italy")
        capture.set_response("Rome is the capital of Italy.")
        assert capture.active

    draft, origin = sink.only()
    assert draft.user_input == "capital of Italy"
    assert draft.response == "Rome is the capital of Italy."
    assert [c.id for c in draft.contexts] == [n.node.node_id for n in nodes]
    assert draft.contexts[0].text == CORPUS["rome"]
    assert draft.metadata["llamaindex.kind"] == "capture"
    assert origin.chain_name == "my-rag"
    assert origin.run_id is not None and origin.run_id.startswith("capture-")


def test_the_last_llm_answer_in_the_block_is_used_when_none_is_given(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    llm = MockLLM()
    with instrumentor.capture("Which monument stands in Berlin?"):
        nodes = index.as_retriever(similarity_top_k=1).retrieve("monument Berlin")
        answer = llm.complete(f"Answer from: {nodes[0].node.get_content()}").text

    draft, _ = sink.only()
    assert draft.user_input == "Which monument stands in Berlin?"
    assert draft.response == answer
    assert [c.text for c in draft.contexts] == [CORPUS["berlin"]]


def test_two_retrievals_in_one_block_are_merged_without_duplicates(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    retriever = index.as_retriever(similarity_top_k=2)
    with instrumentor.capture("France and Spain") as capture:
        first = retriever.retrieve("capital of France")
        second = retriever.retrieve("capital of Spain")
        capture.set_response("Paris and Madrid.")
    draft, _ = sink.only()
    expected: list[str] = []
    for node in first + second:
        if node.node.node_id not in expected:
            expected.append(node.node.node_id)
    assert [c.id for c in draft.contexts] == expected


def test_block_without_an_answer_is_counted_not_submitted(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    with instrumentor.capture():
        index.as_retriever().retrieve("capital of Spain")
    assert sink.items == []
    assert instrumentor.stats()["dropped_incomplete"] == 1
    assert instrumentor.stats()["open"] == 0


def test_exception_in_the_block_propagates_and_drops_the_sample(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    with pytest.raises(LookupError, match="no answer"), instrumentor.capture("q") as capture:
        index.as_retriever().retrieve("capital of Spain")
        capture.set_response("Madrid")
        raise LookupError("no answer")
    assert sink.items == []
    assert instrumentor.stats()["dropped_error"] == 1
    assert instrumentor.stats()["open"] == 0


def test_capture_without_instrumentation_is_inert(index: VectorStoreIndex, sink: RecordingSink) -> None:
    instr = RagMetricsInstrumentor(sink)
    with instr.capture("q") as capture:
        index.as_retriever().retrieve("capital of Spain")
        capture.set_response("Madrid")
        assert not capture.active
    assert sink.items == []


def test_nodes_from_outside_llamaindex_can_be_added(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    from llama_index.core.schema import NodeWithScore, TextNode

    external = NodeWithScore(node=TextNode(text="Madrid hosts the Prado.", id_="web-1"), score=0.7)
    with instrumentor.capture("Where is the Prado?") as capture:
        retrieved = index.as_retriever(similarity_top_k=1).retrieve("Prado museum")
        capture.add_nodes([external, retrieved[0]])
        capture.set_response("In Madrid.")
    draft, _ = sink.only()
    assert [(c.id, c.score) for c in draft.contexts] == [
        (retrieved[0].node.node_id, retrieved[0].score),
        ("web-1", 0.7),
    ], "the retrieval's node comes first and is not repeated"


def test_a_capture_block_attaches_a_reference_to_its_sample(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    with instrumentor.capture("What is the capital of Italy?", reference="Rome.") as capture:
        index.as_retriever(similarity_top_k=1).retrieve("capital of Italy")
        capture.set_response("Rome is the capital of Italy.")
    draft, _ = sink.only()
    assert draft.reference == "Rome."
    assert draft.to_sample().reference == "Rome."


def test_a_query_engine_query_inside_a_capture_block_carries_the_reference(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=1)
    with instrumentor.capture(reference="Rome is the capital of Italy.") as capture:
        answer = engine.query("What is the capital of Italy?")
        capture.set_response(str(answer))
    draft, _ = sink.only()
    assert draft.reference == "Rome is the capital of Italy."
    assert draft.user_input == "What is the capital of Italy?"
    assert draft.contexts and draft.contexts[0].text == CORPUS["rome"]
