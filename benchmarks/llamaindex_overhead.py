"""Added latency per LlamaIndex query: no instrumentation vs ragmetrics vs OpenInference, in one run.

One process, one offline index (hash embedding, MockLLM), interleaved rounds so that drift of the machine
hits every variant alike. Each variant is instrumented at the start of its turn and uninstrumented at the
end. Reported: median and p99 of the per-query wall time, and the difference to the uninstrumented run.

    python benchmarks/llamaindex_overhead.py [--rounds 15] [--queries 40]

Needs the ``bench`` extra (openinference-instrumentation-llama-index) for the OpenInference column.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import platform
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.response.schema import StreamingResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import BaseQueryEngine

from ragmetrics_core.online.types import Origin
from ragmetrics_llamaindex import HashEmbedding, RagMetricsInstrumentor

CITIES = [
    ("Paris", "France", "the Eiffel Tower"),
    ("Berlin", "Germany", "the Brandenburg Gate"),
    ("Rome", "Italy", "the Colosseum"),
    ("Madrid", "Spain", "the Prado museum"),
    ("Lisbon", "Portugal", "the Belem Tower"),
    ("Vienna", "Austria", "Schoenbrunn Palace"),
    ("Prague", "Czechia", "the Charles Bridge"),
    ("Athens", "Greece", "the Acropolis"),
    ("Dublin", "Ireland", "Trinity College"),
    ("Oslo", "Norway", "the Opera House"),
    ("Warsaw", "Poland", "the Royal Castle"),
    ("Budapest", "Hungary", "the Parliament building"),
]


class CountingSink:
    """Takes samples and counts them (the hot-path cost of a real queueing sink, without its worker)."""

    def __init__(self) -> None:
        self.count = 0

    def submit(self, sample: Any, origin: Origin | None = None) -> object:
        self.count += 1
        return None


MODES = {"sync": "query()", "aio": "aquery()", "stream": "query(streaming) read"}


@dataclass
class Timings:
    """Per mode, per round: (wall seconds, this thread's CPU seconds) of each query."""

    rounds: dict[str, list[list[tuple[float, float]]]] = field(default_factory=lambda: {mode: [] for mode in MODES})

    def start_round(self) -> None:
        for per_round in self.rounds.values():
            per_round.append([])

    def add(self, mode: str, wall: float, cpu: float) -> None:
        self.rounds[mode][-1].append((wall, cpu))

    def walls(self, mode: str) -> list[float]:
        return [wall for per_round in self.rounds[mode] for wall, _ in per_round]

    def round_medians(self, mode: str, column: int) -> list[float]:
        return [statistics.median(m[column] for m in per_round) for per_round in self.rounds[mode]]


class _Clock:
    """Wall time and the calling thread's CPU time: the second is what we add, free of other processes."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.thread_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.thread_time() - self.cpu


def build_engines() -> tuple[BaseQueryEngine, BaseQueryEngine]:
    documents = [
        Document(
            text=f"{city} is the capital of {country}. {sight.capitalize()} is in {city}. "
            f"{city} has museums, parks and a busy old town.",
            metadata={"city": city},
        )
        for city, country, sight in CITIES
    ]
    index = VectorStoreIndex.from_documents(documents, embed_model=HashEmbedding())
    post = [SimilarityPostprocessor(similarity_cutoff=0.05)]
    plain = index.as_query_engine(llm=MockLLM(max_tokens=24), similarity_top_k=4, node_postprocessors=post)
    streaming = index.as_query_engine(
        llm=MockLLM(max_tokens=24), similarity_top_k=4, node_postprocessors=post, streaming=True
    )
    return plain, streaming


def questions(n: int) -> list[str]:
    return [f"What is the capital of {CITIES[i % len(CITIES)][1]}?" for i in range(n)]


def run_round(plain: BaseQueryEngine, streaming: BaseQueryEngine, qs: list[str], into: Timings) -> None:
    into.start_round()
    for q in qs:
        clock = _Clock()
        plain.query(q)
        into.add("sync", *clock.read())

    async def all_async() -> None:
        for q in qs:
            clock = _Clock()
            await plain.aquery(q)
            into.add("aio", *clock.read())

    asyncio.run(all_async())

    for q in qs:
        clock = _Clock()
        response = streaming.query(q)
        assert isinstance(response, StreamingResponse)
        for _ in response.response_gen:
            pass
        into.add("stream", *clock.read())


class _NoOpSpans(BaseSpanHandler[Any]):
    def new_span(self, *args: Any, **kwargs: Any) -> None:
        return None

    def prepare_to_exit_span(self, *args: Any, **kwargs: Any) -> None:
        return None

    def prepare_to_drop_span(self, *args: Any, **kwargs: Any) -> None:
        return None


class _NoOpEvents(BaseEventHandler):
    def handle(self, event: Any, **kwargs: Any) -> None:
        return None


@contextmanager
def floor_variant() -> Iterator[None]:
    """A span handler and an event handler that do nothing: the least any dispatcher-based tool costs."""
    dispatcher = get_dispatcher()
    spans, events = _NoOpSpans(), _NoOpEvents()
    dispatcher.add_span_handler(spans)
    dispatcher.add_event_handler(events)
    try:
        yield
    finally:
        dispatcher.span_handlers = [h for h in dispatcher.span_handlers if h is not spans]
        dispatcher.event_handlers = [h for h in dispatcher.event_handlers if h is not events]


@contextmanager
def ragmetrics_variant(sink: CountingSink) -> Iterator[None]:
    instr = RagMetricsInstrumentor(sink).instrument()
    try:
        yield
    finally:
        instr.uninstrument()


def online_variant() -> Callable[[], AbstractContextManager[None]] | None:
    """Ours into the real :class:`OnlinePipeline` with a 0 % sampling rate: its hot path, no scoring."""
    try:
        from ragmetrics_core.online import OnlinePipeline, Sampler
    except ImportError:
        return None
    online = OnlinePipeline(sampler=Sampler(rate=0.0))

    @contextmanager
    def variant() -> Iterator[None]:
        instr = RagMetricsInstrumentor(online).instrument()
        try:
            yield
        finally:
            instr.uninstrument()

    return variant


def openinference_variant() -> Callable[[], AbstractContextManager[None]] | None:
    try:
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    except ImportError:
        return None
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    @contextmanager
    def variant() -> Iterator[None]:
        instrumentor = LlamaIndexInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            yield
        finally:
            instrumentor.uninstrument()
            exporter.clear()

    return variant


def paired(variant: list[float], base: list[float]) -> float:
    """Median of per-round differences: rounds ran back to back, so machine drift cancels out."""
    return statistics.median(v - b for v, b in zip(variant, base, strict=True))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--queries", type=int, default=40, help="queries per mode per round")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    plain, streaming = build_engines()
    qs = questions(args.queries)
    sink = CountingSink()
    variants: dict[str, Callable[[], AbstractContextManager[None]]] = {
        "none": nullcontext,
        "no-op handlers": floor_variant,
        "ragmetrics": lambda: ragmetrics_variant(sink),
    }
    with_online = online_variant()
    if with_online is not None:
        variants["ragmetrics+online"] = with_online
    oi = openinference_variant()
    if oi is not None:
        variants["openinference"] = oi
    timings = {name: Timings() for name in variants}

    for variant in variants.values():  # warm-up: imports, caches, first-call costs
        with variant():
            run_round(plain, streaming, qs[:5], Timings())
    sink.count = 0
    rng = random.Random(args.seed)
    for _ in range(args.rounds):
        order = list(variants)
        rng.shuffle(order)
        for name in order:
            gc.collect()
            with variants[name]():
                run_round(plain, streaming, qs, timings[name])

    versions = ", ".join(
        f"{pkg} {metadata.version(pkg)}"
        for pkg in ("llama-index-core", "openinference-instrumentation-llama-index")
        if _installed(pkg)
    )
    print(f"# LlamaIndex query overhead — Python {platform.python_version()}, {versions}")
    print(f"# {args.rounds} interleaved rounds × {args.queries} queries per mode; µs per query")
    print("# +median: median over rounds of (variant's round median − uninstrumented round median);")
    print("# cpu: the same on the calling thread's CPU time, which other processes on the machine cannot inflate")
    if oi is None:
        print("# openinference-instrumentation-llama-index not installed: its column is omitted")
    header = f"{'mode':<22}{'variant':<19}{'median':>9}{'p99':>9}{'+median':>10}{'+p99':>10}{'+cpu':>9}"
    print(header)
    print("-" * len(header))
    base = timings["none"]
    for mode, label in MODES.items():
        base_walls = base.walls(mode)
        for name in variants:
            walls = timings[name].walls(mode)
            med, p99 = statistics.median(walls), pct(walls, 0.99)
            line = f"{label:<22}{name:<19}{med * 1e6:>9.0f}{p99 * 1e6:>9.0f}"
            if name != "none":
                added_wall = paired(timings[name].round_medians(mode, 0), base.round_medians(mode, 0))
                added_cpu = paired(timings[name].round_medians(mode, 1), base.round_medians(mode, 1))
                added_p99 = p99 - pct(base_walls, 0.99)
                line += f"{added_wall * 1e6:>+10.0f}{added_p99 * 1e6:>+10.0f}{added_cpu * 1e6:>+9.0f}"
            print(line)
    expected = args.rounds * args.queries * 3
    print(f"# ragmetrics samples submitted: {sink.count} (expected {expected})")


def _installed(pkg: str) -> bool:
    try:
        metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return False
    return True


if __name__ == "__main__":
    main()
