"""Added latency per LangChain call of ragmetrics' handler, a do-nothing handler and two tracing peers.

One offline LCEL RAG chain (in-memory vector store, fake embeddings, fake chat model), measured in one
process with the variants interleaved in shuffled order over many rounds, for ``invoke`` and ``ainvoke``.
Each round runs a block of calls per variant (in shuffled order). Added p50 = the median over rounds of
(variant's block median - bare chain's block median in the same round): pairing by round cancels the load
drift of a shared machine. Added p99 = p99 of all the variant's calls - p99 of all bare calls. Added CPU =
the same paired median of process CPU time per call (all threads: it counts the work a variant adds,
including its background threads, and moves less than wall time with other processes' load).

Peers export nowhere that blocks: Langfuse gets fake keys, a closed 127.0.0.1 port and a span exporter that
drops spans; OpenInference gets a tracer provider whose exporter drops spans. OpenInference instruments
LangChain globally, so it is switched on only around its own variant.

    python benchmarks/langchain_overhead.py [--rounds 30] [--calls 40]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_langchain import RagMetricsCallbackHandler

QUESTIONS = [
    "Where is the Eiffel Tower?",
    "What is the capital of Italy?",
    "Which river flows through Paris?",
    "What is the most visited museum?",
]


class DroppingExporter(SpanExporter):
    """Accepts spans and drops them: the peers do all their work except the network write."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


class CountingSink:
    """Stands for the online pipeline's ``submit``: takes the sample and returns."""

    def __init__(self) -> None:
        self.count = 0

    def submit(self, sample: SampleDraft, origin: Origin | None = None) -> object:
        self.count += 1
        return None


class NoOpHandler(BaseCallbackHandler):
    """The floor: a handler that receives every event and does nothing."""


class InlineNoOpHandler(BaseCallbackHandler):
    """The floor for async runs: without run_inline LangChain sends every sync handler call to a thread."""

    run_inline = True


def build_chain() -> Runnable[str, str]:
    documents = [
        Document(id=f"doc-{i}", page_content=text, metadata={"source": f"kb/{i}"})
        for i, text in enumerate(
            [
                "The Eiffel Tower is in Paris.",
                "Rome is the capital of Italy.",
                "The Seine flows through Paris.",
                "The Louvre is the most visited museum in the world.",
                "Berlin is the capital of Germany.",
                "Madrid is the capital of Spain.",
            ]
        )
    ]
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
    store.add_documents(documents)
    prompt = ChatPromptTemplate.from_template("Answer from the context.\n{context}\nQuestion: {question}")
    model = FakeListChatModel(responses=["The Eiffel Tower is in Paris."])

    def join(docs: list[Document]) -> str:
        return "\n".join(d.page_content for d in docs)

    retriever = store.as_retriever(search_kwargs={"k": 3})
    return {"context": retriever | join, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()


@dataclass
class Variant:
    name: str
    callbacks: list[BaseCallbackHandler]
    around: Callable[[], AbstractContextManager[None]] = nullcontext
    sync_ns: list[int] = field(default_factory=list)
    async_ns: list[int] = field(default_factory=list)
    # per round: median wall time of the block, CPU time per call in the block (ns)
    sync_blocks: list[float] = field(default_factory=list)
    async_blocks: list[float] = field(default_factory=list)
    sync_cpu: list[float] = field(default_factory=list)
    async_cpu: list[float] = field(default_factory=list)

    def clear(self) -> None:
        for values in (self.sync_ns, self.async_ns, self.sync_blocks, self.async_blocks, self.sync_cpu, self.async_cpu):
            values.clear()


def langfuse_handler() -> BaseCallbackHandler | None:
    try:
        from langfuse import Langfuse
        from langfuse.langchain import CallbackHandler
    except ImportError:
        return None
    Langfuse(
        public_key="pk-lf-benchmark",
        secret_key="sk-lf-benchmark",
        host="http://127.0.0.1:9",  # closed port; nothing is sent anyway (the exporter drops spans)
        span_exporter=DroppingExporter(),
        tracer_provider=TracerProvider(),
    )
    handler: BaseCallbackHandler = CallbackHandler(public_key="pk-lf-benchmark")
    return handler


def openinference_switch() -> Callable[[], AbstractContextManager[None]] | None:
    try:
        from openinference.instrumentation.langchain import LangChainInstrumentor
    except ImportError:
        return None
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(DroppingExporter()))

    @contextmanager
    def instrumented() -> Iterator[None]:
        instrumentor = LangChainInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            yield
        finally:
            instrumentor.uninstrument()

    return instrumented


def run_round(chain: Runnable[str, str], variant: Variant, calls: int, loop: asyncio.AbstractEventLoop) -> None:
    config: Any = {"callbacks": variant.callbacks}
    with variant.around():
        block: list[int] = []
        cpu = time.process_time_ns()
        for i in range(calls):
            question = QUESTIONS[i % len(QUESTIONS)]
            start = time.perf_counter_ns()
            chain.invoke(question, config=config)
            block.append(time.perf_counter_ns() - start)
        variant.sync_cpu.append((time.process_time_ns() - cpu) / calls)
        variant.sync_blocks.append(statistics.median(block))
        variant.sync_ns.extend(block)
        block = []
        cpu = time.process_time_ns()
        for i in range(calls):
            question = QUESTIONS[i % len(QUESTIONS)]
            start = time.perf_counter_ns()
            loop.run_until_complete(chain.ainvoke(question, config=config))
            block.append(time.perf_counter_ns() - start)
        variant.async_cpu.append((time.process_time_ns() - cpu) / calls)
        variant.async_blocks.append(statistics.median(block))
        variant.async_ns.extend(block)


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--calls", type=int, default=20, help="calls per variant per round and mode")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    # OpenInference calls a LangChain method deprecated in this version; one warning per call would be noise.
    warnings.filterwarnings("ignore", message=r"Calling \.text\(\) as a method is deprecated")
    chain = build_chain()
    sink = CountingSink()
    variants = [
        Variant("no callback", []),
        Variant("do-nothing BaseCallbackHandler (floor)", [NoOpHandler()]),
        Variant("do-nothing handler, run_inline=True", [InlineNoOpHandler()]),
        Variant("ragmetrics RagMetricsCallbackHandler", [RagMetricsCallbackHandler(sink)]),
    ]
    missing: list[str] = []
    langfuse = langfuse_handler()
    if langfuse is None:
        missing.append("langfuse")
    else:
        variants.append(Variant("Langfuse CallbackHandler", [langfuse]))
    switch = openinference_switch()
    if switch is None:
        missing.append("openinference-instrumentation-langchain")
    else:
        variants.append(Variant("OpenInference LangChainInstrumentor", [], around=switch))

    loop = asyncio.new_event_loop()
    rng = random.Random(args.seed)
    for variant in variants:  # warm-up: imports, caches, first spans
        run_round(chain, variant, 5, loop)
        variant.clear()
    for _ in range(args.rounds):
        order = variants[:]
        rng.shuffle(order)
        for variant in order:
            gc.collect()
            run_round(chain, variant, args.calls, loop)
    loop.close()

    base = variants[0]
    floor = variants[1]
    inline_floor = variants[2]
    ours = variants[3]
    calls = len(base.sync_ns)
    print(f"langchain-core {_version('langchain-core')}, python {sys.version.split()[0]}")
    print(f"{args.rounds} rounds x {args.calls} calls per variant and mode, interleaved ({calls} calls each)")
    print(
        f"bare chain: invoke median {statistics.median(base.sync_ns) / 1000:.0f} µs, "
        f"ainvoke median {statistics.median(base.async_ns) / 1000:.0f} µs"
    )
    if missing:
        print(f"not measured (not installed): {', '.join(missing)}")
    print()
    columns = ("invoke p50", "invoke p99", "invoke CPU", "ainvoke p50", "ainvoke p99", "ainvoke CPU")
    header = f"{'added per call (µs)':<42}" + "".join(f"{c:>12}" for c in columns)
    print(header)
    print("-" * len(header))
    for variant in variants[1:]:
        cells = (
            _paired(variant.sync_blocks, base.sync_blocks),
            _p99(variant.sync_ns, base.sync_ns),
            _paired(variant.sync_cpu, base.sync_cpu),
            _paired(variant.async_blocks, base.async_blocks),
            _p99(variant.async_ns, base.async_ns),
            _paired(variant.async_cpu, base.async_cpu),
        )
        print(f"{variant.name:<42}" + "".join(f"{cell:>12.0f}" for cell in cells))
    print()

    def ratios(other: Variant, async_other: Variant | None = None) -> str:
        async_other = async_other or other
        cells = [
            ("invoke p50", "sync_blocks", other),
            ("CPU", "sync_cpu", other),
            ("ainvoke p50", "async_blocks", async_other),
            ("CPU", "async_cpu", async_other),
        ]
        parts = []
        for label, key, peer in cells:
            added_ours = _paired(getattr(ours, key), getattr(base, key))
            parts.append(f"{label} {_ratio(added_ours, _paired(getattr(peer, key), getattr(base, key)))}")
        return ", ".join(parts)

    print(f"ours / floor: {ratios(floor, inline_floor)} (async vs the run_inline floor)")
    for peer in variants[4:]:
        print(f"ours / {peer.name}: {ratios(peer)}")
    print(f"samples handed over by ours: {sink.count}")
    return 0


def _paired(values: list[float], base: list[float]) -> float:
    """Median over rounds of the difference to the bare chain in the same round, in µs."""
    return statistics.median(v - b for v, b in zip(values, base, strict=True)) / 1000


def _p99(values: list[int], base: list[int]) -> float:
    return (percentile(values, 0.99) - percentile(base, 0.99)) / 1000


def _ratio(ours: float, other: float) -> str:
    return "n/a" if other <= 0 else f"{ours / other:.2f}x"


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    raise SystemExit(main())
