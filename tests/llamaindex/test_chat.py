"""Chat engines: chat, achat, stream_chat and astream_chat each give one sample per turn."""

from __future__ import annotations

import gc

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, ChatResponseGen, MessageRole
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    ChatMode,
    StreamingAgentChatResponse,
)
from llama_index.core.llms import MockLLM
from llama_index.core.schema import NodeWithScore

from ragmetrics_llamaindex import RagMetricsInstrumentor
from tests.llamaindex.conftest import RecordingSink

WAIT_S = 10.0


def context_ids(response: AgentChatResponse | StreamingAgentChatResponse) -> list[str]:
    return [n.node.node_id for n in response.source_nodes]


@pytest.mark.parametrize("chat_mode", [ChatMode.CONTEXT, ChatMode.CONDENSE_PLUS_CONTEXT])
def test_chat_turns_are_sampled_with_the_user_message_and_the_nodes_given_to_the_llm(
    index: VectorStoreIndex,
    echo_llm: MockLLM,
    sink: RecordingSink,
    instrumentor: RagMetricsInstrumentor,
    chat_mode: ChatMode,
) -> None:
    engine = index.as_chat_engine(chat_mode=chat_mode, llm=echo_llm, similarity_top_k=2)
    first = engine.chat("What is the capital of France?")
    second = engine.chat("And which monument stands in Berlin?")

    assert len(sink.items) == 2
    for (draft, origin), message, response in zip(
        sink.items,
        ["What is the capital of France?", "And which monument stands in Berlin?"],
        [first, second],
        strict=True,
    ):
        assert origin is not None
        assert draft.user_input == message
        assert draft.response == response.response
        assert [c.id for c in draft.contexts] == context_ids(response)
        assert [c.text for c in draft.contexts] == [n.node.get_content() for n in response.source_nodes]
        assert draft.metadata["llamaindex.kind"] == "chat"
        assert origin.chain_name == type(engine).__name__
        assert origin.run_id is not None and origin.run_id.startswith(f"{type(engine).__name__}.chat-")
    assert instrumentor.stats()["open"] == 0


async def test_achat_is_sampled(
    index: VectorStoreIndex, echo_llm: MockLLM, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_chat_engine(chat_mode=ChatMode.CONTEXT, llm=echo_llm, similarity_top_k=1)
    response = await engine.achat("Where is the Prado museum?")
    draft, origin = sink.only()
    assert draft.user_input == "Where is the Prado museum?"
    assert draft.response == response.response
    assert [c.id for c in draft.contexts] == context_ids(response)
    assert origin.run_id is not None and ".achat-" in origin.run_id


def test_stream_chat_passes_every_token_and_samples_the_full_answer(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_chat_engine(chat_mode=ChatMode.CONTEXT, llm=MockLLM(max_tokens=12), similarity_top_k=2)
    response = engine.stream_chat("What is the capital of France?")
    assert isinstance(response, StreamingAgentChatResponse)
    tokens = list(response.response_gen)

    assert tokens == ["text "] * 11 + ["text"]
    assert sink.submitted.wait(WAIT_S)
    draft, origin = sink.only()
    assert draft.user_input == "What is the capital of France?"
    assert draft.response == "".join(tokens).strip() == response.response
    assert [c.id for c in draft.contexts] == context_ids(response)
    assert origin.run_id is not None and ".stream_chat-" in origin.run_id
    assert instrumentor.stats()["open"] == 0


def test_stream_chat_answer_is_sampled_once_written_even_if_the_reader_stops(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    # LlamaIndex's writer thread reads the whole LLM stream into chat memory whatever the user reads,
    # so the answer exists in full and is what the next turn builds on: it is sampled.
    engine = index.as_chat_engine(chat_mode=ChatMode.CONTEXT, llm=MockLLM(max_tokens=6))
    response = engine.stream_chat("capital of Italy")
    stream = response.response_gen
    next(stream)
    stream.close()
    assert sink.submitted.wait(WAIT_S)
    draft, _ = sink.only()
    assert draft.response == "text text text text text text"
    assert instrumentor.stats()["open"] == 0


async def test_astream_chat_passes_every_token_and_samples_the_full_answer(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_chat_engine(chat_mode=ChatMode.CONDENSE_PLUS_CONTEXT, llm=MockLLM(max_tokens=5))
    response = await engine.astream_chat("Which monument stands in Berlin?")
    tokens = [token async for token in response.async_response_gen()]

    assert "".join(tokens) == "text text text text text"
    if response.awrite_response_to_history_task is not None:
        await response.awrite_response_to_history_task
    draft, origin = sink.only()
    assert draft.user_input == "Which monument stands in Berlin?"
    assert draft.response == "text text text text text"
    assert [c.id for c in draft.contexts] == context_ids(response)
    assert origin.run_id is not None and ".astream_chat-" in origin.run_id


def test_a_condensing_chat_engine_is_one_sample_with_its_nested_query_counted(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    engine = index.as_chat_engine(chat_mode=ChatMode.CONDENSE_QUESTION, llm=MockLLM(max_tokens=4))
    response = engine.chat("capital of Italy")
    streamed = engine.stream_chat("and of Spain?")
    tokens = list(streamed.response_gen)
    assert sink.submitted.wait(WAIT_S)
    if streamed.write_response_to_history_thread is not None:
        streamed.write_response_to_history_thread.join(WAIT_S)

    assert len(sink.items) == 2
    (first, first_origin), (second, _) = sink.items
    assert first.user_input == "capital of Italy"
    assert first.response == response.response
    assert [c.id for c in first.contexts] == context_ids(response)
    assert first.metadata["llamaindex.nested_queries"] == 1
    assert first_origin is not None and first_origin.chain_name == "CondenseQuestionChatEngine"
    assert second.user_input == "and of Spain?"
    assert second.response == "".join(tokens).strip()
    assert instrumentor.stats()["open"] == 0


class DirectStreamChatEngine(BaseChatEngine):
    """A chat engine whose stream is read by the user directly (``is_writing_to_memory=False``)."""

    def __init__(self, nodes: list[NodeWithScore], deltas: list[str]) -> None:
        self._nodes = nodes
        self._deltas = deltas

    def reset(self) -> None:
        return None

    @property
    def chat_history(self) -> list[ChatMessage]:
        return []

    def _stream(self) -> ChatResponseGen:
        text = ""
        for delta in self._deltas:
            text += delta
            yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=delta)

    def chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        return AgentChatResponse(response="".join(self._deltas), source_nodes=self._nodes)

    def stream_chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> StreamingAgentChatResponse:
        return StreamingAgentChatResponse(
            chat_stream=self._stream(), source_nodes=self._nodes, is_writing_to_memory=False
        )

    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        return self.chat(message)

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        return self.stream_chat(message)


def test_a_stream_the_user_reads_directly_is_tapped_and_dropped_if_abandoned(
    index: VectorStoreIndex, sink: RecordingSink, instrumentor: RagMetricsInstrumentor
) -> None:
    nodes = index.as_retriever(similarity_top_k=1).retrieve("capital of Italy")
    engine = DirectStreamChatEngine(nodes, ["Rome ", "is ", "the ", "capital."])

    read = engine.stream_chat("capital of Italy")
    assert sink.items == []
    tokens = list(read.response_gen)
    assert tokens == ["Rome ", "is ", "the ", "capital."]
    draft, origin = sink.only()
    assert draft.user_input == "capital of Italy"
    assert draft.response == "Rome is the capital."
    assert [c.id for c in draft.contexts] == [n.node.node_id for n in nodes]
    assert origin.chain_name == "DirectStreamChatEngine"

    abandoned = engine.stream_chat("again")
    stream = abandoned.response_gen
    next(stream)
    stream.close()
    del abandoned, stream
    gc.collect()
    assert len(sink.items) == 1
    stats = instrumentor.stats()
    assert (stats["dropped_abandoned"], stats["open"]) == (1, 0)
