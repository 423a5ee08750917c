"""Score a LangChain RAG chain's live answers, offline, with one callback.

    pip install "ragmetrics[langchain,otel]"
    python examples/langchain_rag.py

The chain is a plain LCEL RAG chain: a retriever over a few bundled documents (bag-of-words cosine
similarity in pure Python, so it needs nothing beyond langchain-core), a prompt, a scripted chat model
standing in for the LLM, and a string parser. ``RagMetricsCallbackHandler`` captures each run and hands it to the
``OnlinePipeline``, which scores it in the background with the embedded offline judge and calls
``print_scores`` for each result. The scripted answers include a faithful one, a hallucinated one and one
given over noisy retrieval, so the scores differ.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnablePassthrough

from ragmetrics_core.online import CallbackEmitter, EvaluationRecord, OnlinePipeline
from ragmetrics_langchain import RagMetricsCallbackHandler

CORPUS = [
    ("eiffel", "The Eiffel Tower is a wrought-iron lattice tower in Paris, completed in 1889."),
    ("eiffel-height", "The Eiffel Tower is 330 metres tall."),
    ("louvre", "The Louvre in Paris is the most visited art museum in the world."),
    ("mona-lisa", "The Mona Lisa, painted by Leonardo da Vinci, hangs in the Louvre."),
    ("seine", "The Seine is a river that flows through Paris into the English Channel."),
    ("rome", "Rome is the capital of Italy and home to the Colosseum."),
    ("colosseum", "The Colosseum in Rome was completed in 80 AD."),
    ("berlin", "Berlin is the capital of Germany."),
]

# question, scripted answer (what the "LLM" says), reference answer (for reference-based metrics)
TURNS = [
    (
        "When was the Eiffel Tower completed?",
        "The Eiffel Tower was completed in 1889.",
        "The Eiffel Tower was completed in 1889.",
    ),
    (
        "Who painted the Mona Lisa?",
        "The Mona Lisa was painted by Vincent van Gogh in 1920.",  # hallucinated
        "Leonardo da Vinci painted the Mona Lisa.",
    ),
    (
        "Which river flows through Paris and how tall is the tower?",
        "The Seine flows through Paris, and the Eiffel Tower is 330 metres tall.",
        "The Seine flows through Paris. The Eiffel Tower is 330 metres tall.",
    ),
    (
        "What is the capital of Germany?",
        "Berlin is the capital of Germany, and Rome is the capital of Italy.",  # answered over noisy retrieval
        "Berlin is the capital of Germany.",
    ),
]

SHOWN_METRICS = (
    "faithfulness",
    "hallucination",
    "noise_sensitivity_irrelevant",
    "chunk_precision",
    "context_recall",
    "overall_f1",
)


def _words(text: str) -> Counter[str]:
    return Counter(word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) > 2)


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(count * b[word] for word, count in a.items())
    norms = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norms if norms else 0.0


class BagOfWordsRetriever(BaseRetriever):
    """Ranks the bundled documents by word overlap with the question; the score goes into the metadata."""

    documents: list[Document]
    k: int = 3

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        question = _words(query)
        scored = sorted(
            ((_cosine(question, _words(d.page_content)), d) for d in self.documents), key=lambda pair: -pair[0]
        )
        return [
            Document(id=d.id, page_content=d.page_content, metadata={**d.metadata, "score": round(score, 3)})
            for score, d in scored[: self.k]
        ]


def build_chain() -> Runnable[str, str]:
    retriever = BagOfWordsRetriever(
        documents=[Document(id=key, page_content=text, metadata={"source": key}) for key, text in CORPUS]
    )
    prompt = ChatPromptTemplate.from_template(
        "Answer the question from the context only.\nContext:\n{context}\n\nQuestion: {question}"
    )
    model = FakeListChatModel(responses=[answer for _, answer, _ in TURNS])

    def format_docs(documents: list[Document]) -> str:
        return "\n".join(document.page_content for document in documents)

    return {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()


_print_lock = threading.Lock()


def print_scores(record: EvaluationRecord) -> None:
    """Runs on the emitter thread, once per scored run."""
    with _print_lock:
        question = record.sample.user_input if record.sample else "?"
        print(f"\nQ: {question}")
        if record.sample is not None:
            print(f"A: {record.sample.response}")
            print("   retrieved: " + ", ".join(f"{c.id} ({c.score})" for c in record.sample.contexts))
        if not record.ok:
            print(f"   not scored: {record.error}")
            return
        for metric in SHOWN_METRICS:
            score = record.scores.get(metric)
            if score is None:
                continue
            value = "undetermined" if score.score is None else f"{score.score:.2f}"
            label = f" ({score.label})" if score.label else ""
            print(f"   {metric:<29} {value}{label}")


def main() -> None:
    online = OnlinePipeline(emitters=[CallbackEmitter(print_scores)])
    handler = RagMetricsCallbackHandler(online)
    chain = build_chain()
    for question, _answer, reference in TURNS:
        # The reference is only for this offline demo; production runs are scored without one.
        chain.invoke(question, config={"callbacks": [handler], "metadata": {"ragmetrics_reference": reference}})
    if not online.flush(timeout_s=120):
        print("warning: not every run was scored within 120 s")
    online.shutdown(timeout_s=10)
    pipeline = online.stats()
    print(
        f"\ncaptured {handler.stats().samples_submitted} runs; "
        f"scored {pipeline.completed}, failed {pipeline.failed}, not sampled {pipeline.not_sampled}"
    )


if __name__ == "__main__":
    main()
