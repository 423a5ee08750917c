"""LLM judge throughput in one process beside the bare ``openai`` client, against a local fake endpoint.

Two rows, measured alternately in one run (``--rounds`` each), every run with a fresh fake server in a process of
its own (so its CPU is not the measured process's; the machine's other core serves it):

- **judge**: ``Evaluator`` with ``OpenAIJudge``, all fifteen metrics, ``CONCURRENCY`` samples in flight. Each sample
  costs 4 requests in 3 rounds: the extraction, then the two checks at once, then the embeddings.
- **openai alone**: the official client posting the very requests the judge posts for a sample (recorded from it),
  in the same shape: ``CONCURRENCY`` samples in flight, each the extraction, then the two checks at once, then the
  embeddings; it reads nothing of the answers. This is the ceiling for one process on this machine: what the
  judge would reach if its own work (prompts, reading answers, masking secrets, metrics) cost nothing. Both rows'
  time includes building one ``AsyncOpenAI`` client (an SSL context: tens of ms of CPU on a loaded VM).

- **judge, answers replayed** (``--rows replay``, not by default): the judge with the endpoint's answers to a sample
  recorded once and replayed without HTTP: the CPU our own work costs a sample (prompts, reading answers, masking
  secrets, the engine's metrics and explanations), apart from the client and the machine's other load. This is a
  floor: interleaved with the client's requests in one process the same work costs more (the two share the CPU's
  caches, and the objects the judge and the engine keep make the garbage collector run more often during the
  client's calls), so the judge row exceeds the bare one by more than this row.
- **judge's calls** (``--rows calls``): the judge's own three calls of a sample (extract, check, similarity) with the
  recorded answers, one sample at a time, without the engine: the judge's part of the replayed row (the rest is the
  engine carrying a sample through the calls and scoring it).
- **scoring alone** and **openai + scoring** (``--rows scoring interleaved``): the engine scoring the evidence of the
  recorded sample (metrics and explanations, as after each of the judge's samples), alone in a loop, and after each
  sample's requests in the bare client's loop (results kept in both): what one part of our work costs when it is
  interleaved with the client's requests, beside what it costs alone.

Printed: samples/s, CPU ms per sample of the measuring process, garbage collections per sample by generation (what
the objects a row allocates and keeps cost beyond their own work), and per round the judge's ratio to the bare client
(the target: at least 0.9 of its samples/s at 0 ms) in samples/s and in CPU per sample (the bare client's ms over
the judge's: at 0 ms one process is bound by its CPU, so this is the ratio samples/s tend to when the process has a
core to itself, and it moves less when other work shares the machine); at a non-zero latency, the share of the
concurrency bound (``CONCURRENCY`` samples / 3 rounds of latency).

    .venv/bin/python benchmarks/llm_client.py                       # 200 samples, 0 and 200 ms, 2 rounds
    .venv/bin/python benchmarks/llm_client.py --samples 100 --latency-ms 0 --rounds 3
    .venv/bin/python benchmarks/llm_client.py --rows judge --rounds 1   # one row, e.g. from another checkout
    .venv/bin/python benchmarks/llm_client.py --latency-ms 0 --rounds 5 --rows bare scoring interleaved
    .venv/bin/python benchmarks/llm_client.py --latency-ms 0 --rounds 3 --rows replay calls scoring
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import CHECK_PARTS, EXTRACTION_PARTS
from ragmetrics_core.judges.base import CheckRequest, ExtractionRequest
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, wire
from ragmetrics_core.judges.openai.client import OpenAIEndpoint
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample
from tests.llm.samples import synthetic_sample

CONCURRENCY = 16
ROUNDS = 3  # extraction, then the two checking calls together, then the embeddings call
CHUNKS = 4

SERVE = """
import sys
from tests.llm.fake_openai_server import FakeOpenAIServer
with FakeOpenAIServer(latency_s=float(sys.argv[1])) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
"""

Request = tuple[str, dict[str, Any]]


class Figures(NamedTuple):
    rate: float
    """Samples per second."""
    cpu_ms: float
    """CPU ms per sample of the measuring process."""
    collections: tuple[float, float, float]
    """Garbage collections per sample, by generation (young, middle, full)."""


class Stopwatch:
    """Wall time, CPU time and garbage collections from when it is made to :meth:`figures`."""

    def __init__(self) -> None:
        self._counts = [0, 0, 0]
        gc.callbacks.append(self._collected)
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            self._counts[info["generation"]] += 1

    def figures(self, samples: int) -> Figures:
        wall, cpu = time.perf_counter() - self._wall, time.process_time() - self._cpu
        gc.callbacks.remove(self._collected)
        young, middle, full = (count / samples for count in self._counts)
        return Figures(samples / wall, 1000 * cpu / samples, (young, middle, full))


@contextmanager
def fake_server(latency_s: float) -> Iterator[str]:
    """The fake endpoint in a process of its own, so its CPU is not the judge's (2 cores: one each)."""
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(latency_s)], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)


def _judge(base_url: str) -> OpenAIJudge:
    return OpenAIJudge(OpenAIJudgeConfig(
        model="fake-judge-1", base_url=base_url, api_key="sk-bench", embedding_model="fake-embedding",
        concurrency=4 * CONCURRENCY,
    ))


def judge_row(samples: int, latency_s: float) -> Figures:
    """The judge scoring ``samples`` samples."""
    with fake_server(latency_s) as base_url:
        judge = _judge(base_url)
        batch = [synthetic_sample(CHUNKS) for _ in range(samples)]
        clock = Stopwatch()
        asyncio.run(Evaluator(judge=judge).aevaluate_many(batch, concurrency=CONCURRENCY, progress=False))
        return clock.figures(samples)


def recorded_requests(base_url: str) -> tuple[list[Request], Evaluator, EvaluationResult]:
    """The four requests the judge posts for one sample, in its order (extraction, two checks, embeddings), the
    evaluator that posted them and its result."""
    recorded: list[Request] = []
    chat, embeddings = OpenAIEndpoint._create_completion, OpenAIEndpoint._create_embeddings

    async def record_chat(self: OpenAIEndpoint, request: dict[str, Any]) -> Any:
        recorded.append(("/chat/completions", dict(request)))
        return await chat(self, request)

    async def record_embeddings(self: OpenAIEndpoint, model: str, texts: list[str]) -> Any:
        recorded.append(("/embeddings", {"model": model, "input": list(texts)}))
        return await embeddings(self, model, texts)

    OpenAIEndpoint._create_completion = record_chat  # type: ignore[method-assign]
    OpenAIEndpoint._create_embeddings = record_embeddings  # type: ignore[method-assign]
    evaluator = Evaluator(judge=_judge(base_url))
    try:
        result = evaluator.evaluate(synthetic_sample(CHUNKS))
    finally:
        OpenAIEndpoint._create_completion = chat  # type: ignore[method-assign]
        OpenAIEndpoint._create_embeddings = embeddings  # type: ignore[method-assign]
    paths = [path for path, _ in recorded]
    assert paths == ["/chat/completions"] * 3 + ["/embeddings"], paths
    return recorded, evaluator, result


def bare_row(samples: int, latency_s: float, *, scoring: bool = False) -> Figures:
    """The bare client posting the judge's requests in the judge's shape; with
    ``scoring``, the engine also scores the recorded sample's evidence after each sample's requests."""
    with fake_server(latency_s) as base_url:
        (extraction, first_check, second_check, embeddings), evaluator, recorded = recorded_requests(base_url)
        sample = synthetic_sample(CHUNKS)
        kept: list[EvaluationResult] = []  # kept, as the judge row's results are

        async def post_all() -> Figures:
            # Timed from before the client is built, as the judge row's time includes building the judge's client.
            clock = Stopwatch()
            client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)

            async def post(request: Request) -> None:
                await client.post(request[0], body=request[1], cast_to=bytes)

            async def one_sample() -> None:
                await post(extraction)
                await asyncio.gather(post(first_check), post(second_check))
                await post(embeddings)
                if scoring:
                    kept.append(evaluator.score(sample, recorded.evidence))

            remaining = iter(range(samples))

            async def worker() -> None:
                for _ in remaining:
                    await one_sample()

            await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
            figures = clock.figures(samples)
            await client.close()
            return figures

        return asyncio.run(post_all())


def scoring_row(samples: int, latency_s: float) -> Figures:
    """The engine alone scoring a recorded sample's evidence (no client)."""
    with fake_server(latency_s) as base_url:
        _, evaluator, recorded = recorded_requests(base_url)
    sample = synthetic_sample(CHUNKS)
    clock = Stopwatch()
    kept = [evaluator.score(sample, recorded.evidence) for _ in range(samples)]
    figures = clock.figures(samples)
    assert len(kept) == samples
    return figures


@contextmanager
def replaying(base_url: str, judge: OpenAIJudge, sample: RagSample) -> Iterator[EvaluationResult]:
    """Inside, every endpoint answers the judge's requests from a recording of its answers to ``sample`` (made on
    entry, over HTTP); yields that first evaluation's result."""
    bodies: dict[str, bytes] = {}
    chat, embeddings = OpenAIEndpoint._create_completion, OpenAIEndpoint._create_embeddings

    def task_of(body: dict[str, Any]) -> str:
        # The answer's schema names the task (cheap: this lookup is counted in the judge's CPU per sample).
        response_format = body.get("response_format") or {}
        if "json_schema" in response_format:
            return str(response_format["json_schema"]["name"])
        return str(json.loads(body["messages"][-1]["content"].split("<data>")[1].split("</data>")[0])["task"])

    async def record(path: str, body: dict[str, Any]) -> bytes:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
        answer = await client.post(path, body=body, cast_to=bytes)
        await client.close()
        bodies[task_of(body) if path == "/chat/completions" else "embed"] = answer
        return answer

    async def record_chat(self: OpenAIEndpoint, request: dict[str, Any]) -> Any:
        return wire.read_completion(await record("/chat/completions", request))

    async def record_embeddings(self: OpenAIEndpoint, model: str, texts: list[str]) -> Any:
        return wire.read_embeddings(await record("/embeddings", {"model": model, "input": list(texts)}))

    async def replay_chat(self: OpenAIEndpoint, request: dict[str, Any]) -> Any:
        return wire.read_completion(bodies[task_of(request)])

    async def replay_embeddings(self: OpenAIEndpoint, model: str, texts: list[str]) -> Any:
        return wire.read_embeddings(bodies["embed"])

    try:
        OpenAIEndpoint._create_completion = record_chat  # type: ignore[method-assign]
        OpenAIEndpoint._create_embeddings = record_embeddings  # type: ignore[method-assign]
        result = Evaluator(judge=judge).evaluate(sample)
        OpenAIEndpoint._create_completion = replay_chat  # type: ignore[method-assign]
        OpenAIEndpoint._create_embeddings = replay_embeddings  # type: ignore[method-assign]
        yield result
    finally:
        OpenAIEndpoint._create_completion = chat  # type: ignore[method-assign]
        OpenAIEndpoint._create_embeddings = embeddings  # type: ignore[method-assign]


def replay_row(samples: int, latency_s: float) -> Figures:
    """The judge reading recorded answers instead of posting requests."""
    with fake_server(latency_s) as base_url:
        judge = _judge(base_url)
        batch = [synthetic_sample(CHUNKS) for _ in range(samples)]
        with replaying(base_url, judge, batch[0]):
            clock = Stopwatch()
            asyncio.run(Evaluator(judge=judge).aevaluate_many(batch, concurrency=CONCURRENCY, progress=False))
            return clock.figures(samples)


def calls_row(samples: int, latency_s: float) -> Figures:
    """The judge's own three calls of a sample (extract, check, similarity) with recorded answers, one sample at a
    time and without the engine: what the judge's part of the replayed row costs."""
    with fake_server(latency_s) as base_url:
        judge = _judge(base_url)
        sample = synthetic_sample(CHUNKS)
        with replaying(base_url, judge, sample) as recorded:
            evidence = recorded.evidence
            extraction = ExtractionRequest(
                user_input=sample.user_input, response=sample.response, reference=sample.reference,
                want=EXTRACTION_PARTS, n_questions=Evaluator(judge=judge).options.n_questions,
            )
            check = CheckRequest(
                response=sample.response, reference=sample.reference, contexts=sample.context_texts,
                user_input=sample.user_input, response_claims=evidence.response_claims or [],
                reference_claims=evidence.reference_claims or [],
                reference_entities=evidence.reference_entities or [], want=CHECK_PARTS,
            )
            questions = [question.text for question in evidence.generated_questions or []]

            async def all_calls() -> list[object]:
                kept: list[object] = []  # kept, as the engine keeps what the judge returns
                for _ in range(samples):
                    kept += [await judge.extract(extraction), await judge.check(check),
                             await judge.similarity(sample.user_input, questions)]
                return kept

            clock = Stopwatch()
            asyncio.run(all_calls())
            return clock.figures(samples)


ROWS: dict[str, Callable[[int, float], Figures]] = {
    "judge": judge_row, "openai alone": bare_row, "judge, replayed": replay_row, "judge's calls": calls_row,
    "scoring alone": scoring_row, "openai + scoring": partial(bare_row, scoring=True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, nargs="+", default=[0.0, 200.0])
    parser.add_argument("--rounds", type=int, default=2, help="each row this many times, alternating")
    parser.add_argument(
        "--rows", nargs="+", choices=["judge", "bare", "replay", "calls", "scoring", "interleaved"],
        default=["judge", "bare"],
    )
    args = parser.parse_args()
    keys = {
        "judge": "judge", "openai alone": "bare", "judge, replayed": "replay", "judge's calls": "calls",
        "scoring alone": "scoring", "openai + scoring": "interleaved",
    }
    rows = [name for name, key in keys.items() if key in args.rows]
    print(f"{args.samples} samples of {CHUNKS} chunks, concurrency {CONCURRENCY}; the fake server runs in a process "
          "of its own")
    print(f"{'latency':>8} {'round':>5} {'row':>15} {'samples/s':>10} {'CPU ms/sample':>14} {'of bound':>9} "
          f"{'GC/sample (young, middle, full)':>32}")
    for latency_ms in args.latency_ms:
        bound = CONCURRENCY / (ROUNDS * latency_ms / 1000) if latency_ms else None
        measured: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        for round_ in range(1, args.rounds + 1):
            for name in rows:
                rate, cpu, (young, middle, full) = ROWS[name](args.samples, latency_ms / 1000)
                measured[name].append((rate, cpu))
                posts = name not in ("judge, replayed", "judge's calls", "scoring alone")  # the others post
                share = f"{rate / bound:8.0%}" if bound and posts else "       –"
                print(f"{latency_ms:6.0f}ms {round_:5d} {name:>15} {rate:10.1f} {cpu:14.1f} {share:>9} "
                      f"{young:16.2f} {middle:6.3f} {full:6.3f}", flush=True)
            if {"judge", "openai alone"} <= set(rows):
                (judge_rate, judge_cpu), (bare_rate, bare_cpu) = measured["judge"][-1], measured["openai alone"][-1]
                print(f"{'':>8} {round_:5d} {'judge / bare':>15} {judge_rate / bare_rate:10.2f} "
                      f"{bare_cpu / judge_cpu:14.2f}   (CPU: bare's ms / judge's ms)")
        if {"judge", "openai alone"} <= set(rows) and args.rounds > 1:
            pairs = list(zip(measured["judge"], measured["openai alone"], strict=True))
            rate_ratio = statistics.median(judge[0] / bare[0] for judge, bare in pairs)
            cpu_ratio = statistics.median(bare[1] / judge[1] for judge, bare in pairs)
            print(f"{latency_ms:6.0f}ms median of {args.rounds} rounds: judge / bare samples/s {rate_ratio:.2f}, "
                  f"bare / judge CPU per sample {cpu_ratio:.2f}")

if __name__ == "__main__":
    main()
