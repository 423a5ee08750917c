"""Inputs and outputs of every common shape: strings, messages, dicts with a configurable key."""

from __future__ import annotations

from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import ANSWER, RecordingSink, join_docs

QUESTION = "Where is the Eiffel Tower?"
PROMPT = ChatPromptTemplate.from_template("Context:\n{context}\nQuestion: {question}")


def test_message_output_is_read_as_text(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    chain = (
        {"context": retriever | join_docs, "question": RunnablePassthrough()}
        | PROMPT
        | FakeListChatModel(responses=[ANSWER])
    )
    result = chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert isinstance(result, AIMessage)
    assert sink.only().draft.response == ANSWER


def test_streamed_message_chunks_are_read_as_text(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    chain = (
        {"context": retriever | join_docs, "question": RunnablePassthrough()}
        | PROMPT
        | FakeListChatModel(responses=[ANSWER])
    )
    chunks = list(chain.stream(QUESTION, config={"callbacks": [handler]}))
    assert len(chunks) > 1
    draft = sink.only().draft
    assert (draft.user_input, draft.response) == (QUESTION, ANSWER)


def _answer_with_sources(retriever: BaseRetriever) -> RunnableParallel[dict[str, str]]:
    """The 'RAG with sources' recipe: the chain returns {"context": docs, "question": q, "answer": text}."""
    generate = (
        RunnableLambda(lambda x: {"context": join_docs(x["context"]), "question": x["question"]})
        | PROMPT
        | FakeListChatModel(responses=[ANSWER, ANSWER])
        | RunnableLambda(lambda m: m.content)
    )
    return RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=generate)  # type: ignore[return-value]


def test_dict_output_uses_the_usual_answer_key(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    output = _answer_with_sources(retriever).invoke(QUESTION, config={"callbacks": [handler]})
    assert output["answer"] == ANSWER
    draft = sink.only().draft
    assert draft.response == ANSWER and draft.user_input == QUESTION
    assert [c.id for c in draft.contexts] == [d.id for d in output["context"]]


def test_dict_output_with_a_configured_answer_key(retriever: BaseRetriever, sink: RecordingSink) -> None:
    chain = _answer_with_sources(retriever) | RunnableLambda(lambda d: {"reply": d["answer"], "sources": d["context"]})
    chain.invoke(QUESTION, config={"callbacks": [RagMetricsCallbackHandler(sink, answer_key="reply")]})
    chain.invoke(QUESTION, config={"callbacks": [RagMetricsCallbackHandler(sink)]})
    configured, guessed = sink.drafts
    assert configured.response == ANSWER
    # Without the key, no text is found: the response is left empty and the reason recorded.
    assert guessed.response == ""
    assert guessed.metadata["ragmetrics.capture_notes"] == [
        "no response text found in dict with keys [reply, sources]; set answer_key"
    ]


def test_dict_input_with_a_configured_input_key(retriever: BaseRetriever, sink: RecordingSink) -> None:
    chain = RunnableLambda(lambda d: d["q"]) | {
        "context": retriever | join_docs,
        "question": RunnablePassthrough(),
    }
    chain = chain | PROMPT | FakeListChatModel(responses=[ANSWER, ANSWER]) | RunnableLambda(lambda m: m.content)
    chain.invoke({"q": QUESTION, "user": "u1"}, config={"callbacks": [RagMetricsCallbackHandler(sink, input_key="q")]})
    chain.invoke({"q": QUESTION, "user": "u1"}, config={"callbacks": [RagMetricsCallbackHandler(sink)]})
    configured, guessed = sink.drafts
    assert configured.user_input == QUESTION
    assert guessed.user_input == ""
    assert guessed.metadata["ragmetrics.capture_notes"] == [
        "no user input text found in dict with keys [q, user]; set input_key"
    ]


def test_chat_message_input_uses_the_last_human_turn(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    def last_question(messages: list[object]) -> str:
        return str(messages[-1].content)  # type: ignore[attr-defined]

    chain = (
        RunnableLambda(last_question)
        | {"context": retriever | join_docs, "question": RunnablePassthrough()}
        | PROMPT
        | FakeListChatModel(responses=[ANSWER])
    )
    history = [SystemMessage("Be brief."), HumanMessage("Hi"), AIMessage("Hello!"), HumanMessage(QUESTION)]
    chain.invoke(history, config={"callbacks": [handler]})
    assert sink.only().draft.user_input == QUESTION


def test_content_block_messages_are_joined(
    retriever: BaseRetriever, sink: RecordingSink, handler: RagMetricsCallbackHandler
) -> None:
    blocks = AIMessage(content=[{"type": "text", "text": "The Eiffel "}, {"type": "image", "url": "x"}, "Tower."])
    chain = RunnableLambda(lambda d: d["question"]) | retriever | RunnableLambda(lambda _docs: blocks)
    chain.invoke({"question": QUESTION}, config={"callbacks": [handler]})
    draft = sink.only().draft
    assert draft.response == "The Eiffel Tower."
    assert draft.user_input == QUESTION
