"""Stand-ins for the user's own objects that a docs example presupposes (its data, its chain, its index...).

An example marked ``<!-- the tests run this with stand-ins for: sample, chain -->`` runs after
``from tests.docs.stand_ins import sample, chain``. Each stand-in is the smallest real thing of its kind (a real
LangChain chain on a fake chat model, a real LlamaIndex index on a hash embedding and a mock LLM), built only when
imported, so an example pays for the frameworks it uses and no more.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

EIFFEL = "The Eiffel Tower was completed in 1889."
CORPUS = [
    EIFFEL + " It stands in Paris.",
    "Rome is the capital of Italy. The Colosseum stands in Rome.",
    "Lake Baikal is 1,642 metres deep, the deepest lake in the world.",
]


@dataclass(frozen=True)
class Doc:
    """A retrieved document as an app of the user's own might hold it."""

    id: str
    text: str
    score: float


def _sample() -> Any:
    from ragmetrics_core import RagSample

    return RagSample(
        user_input="When was the Eiffel Tower completed?",
        retrieved_contexts=[EIFFEL, "Paris weather is mild in spring."],
        response="The Eiffel Tower was completed in 1889. It is in Paris.",
        reference=EIFFEL,
    )


def _df() -> Any:
    import pandas as pd

    return pd.DataFrame([
        {"question": "When was the Eiffel Tower completed?", "contexts": [EIFFEL, "Paris is in France."],
         "answer": "It was completed in 1889.", "ground_truth": EIFFEL},
        {"question": "What is the capital of Italy?", "contexts": [CORPUS[1]],
         "answer": "Rome is the capital of Italy.", "ground_truth": "Rome."},
    ])


def _chain() -> Any:
    """The LangChain example's chain: a retriever, a prompt, a fake chat model, a parser."""
    spec = importlib.util.spec_from_file_location("langchain_rag_example", REPO / "examples" / "langchain_rag.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the retriever's annotations through it
    spec.loader.exec_module(module)
    return module.build_chain()


def _retrieve(question: str) -> list[Doc]:
    words = set(question.lower().rstrip("?").split())
    ranked = sorted(CORPUS, key=lambda text: -len(words & set(text.lower().split())))
    return [Doc(id=f"doc-{CORPUS.index(text)}", text=text, score=1.0 / (rank + 1)) for rank, text in
            enumerate(ranked[:2])]


def _generate(question: str, contexts: list[Doc]) -> str:
    return contexts[0].text.split(". ")[0].rstrip(".") + "."


def _rag(question: str) -> tuple[str, list[Doc]]:
    docs = _retrieve(question)
    return _generate(question, docs), docs


def _tracer() -> Any:
    from opentelemetry import trace

    return trace.get_tracer("support-bot")


def _index() -> Any:
    """A real VectorStoreIndex; the app's LLM is LlamaIndex's MockLLM (it echoes the prompt)."""
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.llms import MockLLM

    from ragmetrics_llamaindex import HashEmbedding

    Settings.llm = MockLLM()
    return VectorStoreIndex.from_documents([Document(text=text) for text in CORPUS], embed_model=HashEmbedding())


def _my_llm(question: str, nodes: list[Any]) -> str:
    return str(nodes[0].node.get_content()).split(". ")[0] + "."


def _online() -> Any:
    from ragmetrics_core.online import OnlinePipeline

    return OnlinePipeline()


BUILDERS: dict[str, Callable[[], Any]] = {
    "sample": _sample,
    "df": _df,
    "chain": _chain,
    "question": lambda: "When was the Eiffel Tower completed?",
    "request_id": lambda: "request-0001",
    "retrieve": lambda: _retrieve,
    "generate": lambda: _generate,
    "rag": lambda: _rag,
    "tracer": _tracer,
    "index": _index,
    "retriever": lambda: _index().as_retriever(similarity_top_k=2),
    "query_engine": lambda: _index().as_query_engine(),
    "my_llm": lambda: _my_llm,
    "online": _online,
    # The OTLP collector's URL and auth headers; nothing is exported to them, as the example records no span.
    "ENDPOINT": lambda: "http://127.0.0.1:4318/v1/traces",
    "HEADERS": lambda: {"authorization": "Bearer docs-example"},
}


def __getattr__(name: str) -> Any:
    if name in BUILDERS:
        return BUILDERS[name]()
    raise AttributeError(name)
