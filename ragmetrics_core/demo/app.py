"""The demo RAG application, two ways: a real LangChain LCEL chain with our callback attached, or (without
LangChain) the same retrieval and scripted answers in a plain loop. Both are offline and deterministic."""

from __future__ import annotations

import importlib.util
import time

from ragmetrics_core.demo.corpus import Corpus, search
from ragmetrics_core.online.types import ContextDraft, Origin, SampleDraft, SampleSink

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

CHAIN_NAME = "ragmetrics-demo"


def langchain_available() -> bool:
    """LangChain core and our integration are both importable."""
    return all(importlib.util.find_spec(name) is not None for name in ("langchain_core", "ragmetrics_langchain"))


def run_langchain_app(corpus: Corpus, sink: SampleSink) -> None:
    """Answer every question with an LCEL chain (vector store retriever → prompt → scripted chat model);
    ``RagMetricsCallbackHandler`` captures each run and hands it to ``sink``."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    from ragmetrics_langchain import RagMetricsCallbackHandler

    # A pure-Python retriever over the bundled corpus: LangChain's InMemoryVectorStore would need numpy,
    # which the demo's install does not bring.
    class CorpusRetriever(BaseRetriever):
        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            return [
                Document(page_content=doc.text, id=doc.id, metadata={"source": doc.id, "score": score})
                for doc, score in search(query, corpus.documents)
            ]

    retriever = CorpusRetriever()
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer the question using only this context:\n{context}"), ("human", "{question}")]
    )
    model = FakeListChatModel(responses=[question.answer for question in corpus.questions])

    def join(documents: list[Document]) -> str:
        return "\n\n".join(document.page_content for document in documents)

    chain = (
        {"context": retriever | RunnableLambda(join), "question": RunnablePassthrough()}
        | prompt
        | model
        | StrOutputParser()
    ).with_config(run_name=CHAIN_NAME)
    handler = RagMetricsCallbackHandler(sink)
    for question in corpus.questions:
        chain.invoke(
            question.question,
            config={"callbacks": [handler], "metadata": {"ragmetrics_reference": question.reference}},
        )


def run_plain_app(corpus: Corpus, sink: SampleSink) -> None:
    """The same retrieval and scripted answers without LangChain, handing each turn to ``sink``."""
    for question in corpus.questions:
        started = time.time_ns()
        hits = search(question.question, corpus.documents)
        draft = SampleDraft(
            user_input=question.question,
            contexts=[ContextDraft(text=doc.text, id=doc.id, score=score) for doc, score in hits],
            response=question.answer,
            reference=question.reference,
        )
        sink.submit(
            draft, Origin(framework="plain", chain_name=CHAIN_NAME, start_time_ns=started, end_time_ns=time.time_ns())
        )
