"""Score a LlamaIndex query engine's live answers, offline, without touching the engine's code.

A small index over a few facts, an offline "LLM" that answers by quoting the retrieved text (one of its
modes also adds a sentence the sources do not support), and ragmetrics' embedded judge scoring every query
in the background. Run it with:

    pip install "ragmetrics[llamaindex,otel]"
    python examples/llamaindex_rag.py
"""

from __future__ import annotations

import re
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.base.response.schema import StreamingResponse
from llama_index.core.llms import CustomLLM
from llama_index.core.postprocessor import SimilarityPostprocessor

from ragmetrics_core.online import CallbackEmitter, EvaluationRecord, OnlinePipeline
from ragmetrics_llamaindex import HashEmbedding, RagMetricsInstrumentor

CORPUS = [
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.",
    "The Colosseum is in Rome. It could hold about 50,000 spectators.",
    "The Brandenburg Gate is in Berlin. It was built in the 1790s.",
    "The Prado Museum is in Madrid. It opened to the public in 1819.",
    "The Acropolis of Athens stands on a rocky hill above the city.",
]
QUESTIONS = [
    ("When was the Eiffel Tower completed?", "faithful"),
    ("How many spectators could the Colosseum hold?", "faithful"),
    ("When did the Prado Museum open?", "embellishing"),
]
SHOWN = ("faithfulness", "response_relevancy", "context_precision")

_PROMPT = re.compile(r"-{5,}\n(?P<context>.*)\n-{5,}.*Query: (?P<query>.*?)\nAnswer:", re.DOTALL)


class QuotingLLM(CustomLLM):
    """Answers by quoting the best-ranked retrieved passage (no model, no network).

    With ``embellish=True`` it adds a sentence of its own, as an LLM drifting from its sources would.
    """

    embellish: bool = False

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="quoting-llm")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        match = _PROMPT.search(prompt)
        passages = [p.strip() for p in match["context"].split("\n\n") if p.strip()] if match else []
        answer = passages[0] if passages else "I do not know."
        if self.embellish:
            answer += " It was designed by Gustave Eiffel."
        return CompletionResponse(text=answer)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        text = self.complete(prompt).text
        words = text.split(" ")

        def gen() -> CompletionResponseGen:
            so_far = ""
            for i, word in enumerate(words):
                delta = word if i == len(words) - 1 else word + " "
                so_far += delta
                yield CompletionResponse(text=so_far, delta=delta)

        return gen()


def print_record(record: EvaluationRecord) -> None:
    question = record.sample.user_input if record.sample else "?"
    if not record.ok:
        print(f"  {question!r}: not scored ({record.error})")
        return
    shown = ", ".join(
        f"{metric}={score.score:.2f}" if score.score is not None else f"{metric}=n/a"
        for metric, score in sorted(record.scores.items())
        if metric in SHOWN
    )
    print(f"  {question!r}\n    answer: {record.sample.response if record.sample else ''!r}\n    {shown}")


def main() -> None:
    index = VectorStoreIndex.from_documents([Document(text=t) for t in CORPUS], embed_model=HashEmbedding())
    postprocessors = [SimilarityPostprocessor(similarity_cutoff=0.1)]
    engines = {
        "faithful": index.as_query_engine(llm=QuotingLLM(), similarity_top_k=2, node_postprocessors=postprocessors),
        "embellishing": index.as_query_engine(
            llm=QuotingLLM(embellish=True), similarity_top_k=2, node_postprocessors=postprocessors
        ),
    }

    records: list[EvaluationRecord] = []  # filled on the emitter's thread while the app keeps answering
    online = OnlinePipeline(emitters=[CallbackEmitter(records.append)])
    instrumentor = RagMetricsInstrumentor(online).instrument()
    try:
        print("Answers as the application sees them:")
        for question, engine_name in QUESTIONS:
            print(f"  {question} -> {engines[engine_name].query(question)}")
        # Streaming works too: the sample is taken when the stream has been read to its end.
        stream_engine = index.as_query_engine(llm=QuotingLLM(), similarity_top_k=2, streaming=True)
        response = stream_engine.query("Where is the Brandenburg Gate?")
        assert isinstance(response, StreamingResponse)
        print("  Where is the Brandenburg Gate? -> ", end="")
        response.print_response_stream()
        print()

        online.flush(timeout_s=120)
        print("\nScores from the embedded judge (computed in the background):")
        for record in sorted(records, key=lambda r: r.submitted_ns):
            print_record(record)
    finally:
        instrumentor.uninstrument()
        online.shutdown(timeout_s=10)
    print(f"\ncapture: {instrumentor.stats()}")


if __name__ == "__main__":
    main()
