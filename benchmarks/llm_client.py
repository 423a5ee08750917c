"""LLM judge throughput in one process against a local fake OpenAI-compatible server.

Samples/s and CPU ms per sample (this process only), all fifteen metrics (3 chat calls + 1 embeddings call per
sample), at 0 ms and 200 ms of server latency, with one client per endpoint and loop (now) beside one client
built per request (how the judge worked before: every client builds an SSL context, ~18 ms of CPU). At 200 ms
the bound is set by concurrency: ``concurrency`` samples in flight, each waiting for 3 sequential rounds.
The last row of each latency is the ``openai`` client alone, posting the judge's own four requests per sample
with nothing of ours around them: the ceiling this machine and the fake server allow one process.

    .venv/bin/python benchmarks/llm_client.py              # 200 samples per run
    .venv/bin/python benchmarks/llm_client.py --samples 50
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
from ragmetrics_core.judges.openai.client import OpenAIEndpoint
from tests.llm.samples import synthetic_sample

CONCURRENCY = 16
ROUNDS = 3  # extraction, then the two checking calls together, then the embeddings call
REQUESTS = 4  # per sample: 3 chat calls and 1 embeddings call


SERVE = """
import sys
from tests.llm.fake_openai_server import FakeOpenAIServer
with FakeOpenAIServer(latency_s=float(sys.argv[1])) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
"""


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


@asynccontextmanager
async def _client_per_request(self: OpenAIEndpoint) -> AsyncIterator[object]:
    """The judge's old behaviour, for comparison: a new client (and SSL context) for every request."""
    client = self._new_client()
    try:
        yield client
    finally:
        await client.close()


def run(samples: int, latency_s: float, per_request: bool) -> tuple[float, float]:
    original = OpenAIEndpoint._client
    if per_request:
        OpenAIEndpoint._client = _client_per_request  # type: ignore[assignment,method-assign]
    try:
        with fake_server(latency_s) as base_url:
            judge = OpenAIJudge(OpenAIJudgeConfig(
                model="fake-judge-1", base_url=base_url, api_key="sk-bench", embedding_model="fake-embedding",
                concurrency=4 * CONCURRENCY,
            ))
            batch = [synthetic_sample(4) for _ in range(samples)]
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(Evaluator(judge=judge).aevaluate_many(batch, concurrency=CONCURRENCY, progress=False))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        OpenAIEndpoint._client = original  # type: ignore[method-assign]
    return samples / wall, 1000 * cpu / samples


def client_alone(samples: int, latency_s: float) -> tuple[float, float]:
    """Samples/s and CPU ms per sample of the bare client posting one sample's recorded requests over and over."""
    recorded: list[tuple[str, dict[str, object]]] = []
    with fake_server(latency_s) as base_url:
        judge = OpenAIJudge(OpenAIJudgeConfig(
            model="fake-judge-1", base_url=base_url, api_key="sk-bench", embedding_model="fake-embedding",
        ))
        original = OpenAIEndpoint._create_completion

        async def record(self: OpenAIEndpoint, request: dict[str, object]) -> object:
            recorded.append(("/chat/completions", dict(request)))
            return await original(self, request)

        OpenAIEndpoint._create_completion = record  # type: ignore[assignment,method-assign]
        try:
            Evaluator(judge=judge).evaluate(synthetic_sample(4))
        finally:
            OpenAIEndpoint._create_completion = original  # type: ignore[method-assign]
        recorded.append(("/embeddings", {"model": "fake-embedding", "input": ["a claim", "another claim"]}))

        async def post_all() -> tuple[float, float]:
            client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
            limit = asyncio.Semaphore(CONCURRENCY * 2)  # the judge has up to two requests of a sample in flight

            async def post(path: str, body: dict[str, object]) -> None:
                async with limit:
                    await client.post(path, body=body, cast_to=bytes)

            wall, cpu = time.perf_counter(), time.process_time()
            await asyncio.gather(*[post(*recorded[i % len(recorded)]) for i in range(samples * REQUESTS)])
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            await client.close()
            return samples / wall, 1000 * cpu / samples

        return asyncio.run(post_all())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    print(f"{args.samples} samples, concurrency {CONCURRENCY}; the fake server runs in a process of its own")
    print(f"{'latency':>8} {'client':>18} {'samples/s':>10} {'CPU ms/sample':>14} {'of bound':>9}")
    for latency in (0.0, 0.2):
        bound = CONCURRENCY / (ROUNDS * latency) if latency else None
        for per_request in (True, False):
            rate, cpu = run(args.samples, latency, per_request)
            share = f"{rate / bound:8.0%}" if bound else "       –"
            label = "per request (old)" if per_request else "per loop (now)"
            print(f"{latency * 1000:6.0f}ms {label:>18} {rate:10.1f} {cpu:14.1f} {share:>9}")
        rate, cpu = client_alone(args.samples, latency)
        print(f"{latency * 1000:6.0f}ms {'openai alone':>18} {rate:10.1f} {cpu:14.1f} {'':>9}")


if __name__ == "__main__":
    main()
