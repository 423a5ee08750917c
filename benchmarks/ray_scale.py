"""Scoring on Ray beside one process, printed side by side.

1. Embedded judge, all 15 metrics, synthetic samples of 5 contexts of ~100 words (as ``embedded_judge.py``):
   samples/s of one process (``Evaluator.evaluate_many``, and the file run that writes JSONL) against a local Ray
   with 1 and 2 scoring workers. For Ray, ``steady`` counts from the first finished batch to the last (the pool is
   up and every worker warm); ``end to end`` includes starting the actors (not Ray itself).
2. LLM judge (3 chat calls + 1 embeddings call per sample) on 2 Ray workers against a fake OpenAI-compatible
   server in its own process that answers after 200 ms and with 429 above its request rate: throughput as a share
   of that rate, 429s seen and failed samples, with the shared limit (``--requests-per-second``) and without.

    .venv/bin/python benchmarks/ray_scale.py                  # 3000 embedded samples, 120 LLM samples
    .venv/bin/python benchmarks/ray_scale.py --samples 1000 --llm-samples 60

Ray listens on 127.0.0.1 only here (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, set before Ray is imported).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray  # noqa: E402
from embedded_judge import _vocabulary, synthetic_sample  # noqa: E402

from ragmetrics_core.batch import evaluate_file  # noqa: E402
from ragmetrics_core.engine import Evaluator  # noqa: E402
from ragmetrics_core.judge_factory import JudgeSettings  # noqa: E402
from ragmetrics_core.judges.quota import ProviderLimits  # noqa: E402
from ragmetrics_core.sample import RagSample  # noqa: E402
from ragmetrics_core.scale import RowScorer  # noqa: E402
from ragmetrics_core.scale.ray_backend import RayBackend, connect, evaluate_on_ray  # noqa: E402

SERVE = """
import json, sys, time
from tests.llm.fake_openai_server import FakeOpenAIServer
with FakeOpenAIServer(latency_s=float(sys.argv[1]), requests_per_s=float(sys.argv[2])) as server:
    print(server.base_url, flush=True)
    for line in sys.stdin:  # one line per run: report what the server saw since the last one, then forget it
        ok = sorted(call.received_at for call in server.calls(succeeded_only=True))
        print(json.dumps({"ok": len(ok), "span_s": ok[-1] - ok[0] if len(ok) > 1 else 0.0,
                          "rate_limited": server.rate_limited}), flush=True)
        server.reset()
        server.rate_limited = 0
"""


def samples(count: int, seed: int = 20240601) -> list[RagSample]:
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng)
    return [synthetic_sample(rng, vocabulary).model_copy(update={"id": f"b{index}"}) for index in range(count)]


WARM_UP = 200
"""Samples the single process scores untimed first: the embedded judge is faster once its caches fill, and Ray's
steady figure likewise leaves out the first batch, scored while the pool comes up."""


def one_process(batch: Sequence[RagSample], workdir: Path) -> tuple[float, float]:
    evaluator = Evaluator()
    evaluator.evaluate_many(samples(WARM_UP, seed=7), concurrency=1, progress=False)
    started = time.perf_counter()
    evaluator.evaluate_many(batch, concurrency=1, progress=False)
    many = len(batch) / (time.perf_counter() - started)
    rows = workdir / "rows.jsonl"
    rows.write_text("".join(sample.model_dump_json() + "\n" for sample in batch), encoding="utf-8")
    started = time.perf_counter()
    evaluate_file(rows, out=workdir / "one.jsonl", concurrency=1, progress=False)
    return many, len(batch) / (time.perf_counter() - started)


def on_ray(batch: Sequence[RagSample], workers: int) -> tuple[float, float]:
    rows = [sample.model_dump(mode="json") for sample in batch]
    dataset = evaluate_on_ray(rows, workers=workers, batch_size=100, concurrency=1)
    started = time.perf_counter()
    first_at: float | None = None
    first_rows = done = 0
    for table in dataset.iter_batches(batch_size=None, batch_format="pyarrow"):
        done += table.num_rows
        if first_at is None:
            first_at, first_rows = time.perf_counter(), table.num_rows
    ended = time.perf_counter()
    assert done == len(batch)
    steady = (done - first_rows) / (ended - first_at) if first_at is not None and ended > first_at else 0.0
    return steady, done / (ended - started)


def embedded(count: int) -> None:
    batch = samples(count)
    print(f"\n1. Embedded judge, {count} samples (all 15 metrics, 5 contexts of ~100 words), 2 cores")
    with tempfile.TemporaryDirectory() as workdir:
        many, file_run = one_process(batch, Path(workdir))
    print(f"  {'one process, evaluate_many':<34} {many:7.0f} samples/s")
    print(f"  {'one process, file run (JSONL)':<34} {file_run:7.0f} samples/s")
    for workers in (1, 2):
        connect(workers=workers)
        steady, end_to_end = on_ray(batch, workers)
        ray.shutdown()
        print(f"  {f'Ray, {workers} worker(s)':<34} {steady:7.0f} samples/s steady ({steady / many:.2f}x), "
              f"{end_to_end:.0f} end to end with actor start")


@contextmanager
def fake_server(latency_s: float, limit: float) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    child = subprocess.Popen([sys.executable, "-c", SERVE, str(latency_s), str(limit)], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip(), child
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)


def server_report(child: subprocess.Popen[str]) -> dict[str, float]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("report\n")
    child.stdin.flush()
    report: dict[str, float] = json.loads(child.stdout.readline())
    return report


def llm(count: int, limit: float, workers: int, concurrency: int) -> None:
    print(f"\n2. LLM judge, {count} samples (4 requests each) on {workers} Ray workers x {concurrency} samples in "
          f"flight; fake server: 200 ms a request, 429 above {limit:g} requests/s")
    connect(workers=workers)
    with tempfile.TemporaryDirectory() as workdir, fake_server(0.2, limit) as (base_url, child):
        rows = Path(workdir) / "rows.jsonl"
        batch = samples(count)
        rows.write_text("".join(sample.model_dump_json() + "\n" for sample in batch), encoding="utf-8")
        os.environ["RAGMETRICS_EMBEDDING_MODEL"] = "fake-embedding"
        for label, limits in (("shared limit", ProviderLimits(requests_per_s=limit)), ("no shared limit", None)):
            settings = JudgeSettings(kind="openai", models=["fake-judge"], base_url=base_url, limits=limits)
            backend = RayBackend(RowScorer(settings, concurrency=concurrency), workers=workers, batch_size=10)
            started = time.perf_counter()
            run = evaluate_file(rows, out=Path(workdir) / f"{label}.jsonl", backend=backend, progress=False)
            wall = time.perf_counter() - started
            seen = server_report(child)
            rate = (seen["ok"] - 1) / seen["span_s"] if seen["span_s"] else 0.0
            print(f"  {label:<16} {rate:5.1f} requests/s answered = {rate / limit:.2f} of the limit; "
                  f"{int(seen['rate_limited'])} answered 429; {run.failed} failed samples; {wall:.1f} s in all")
    ray.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=3000, help="embedded-judge samples (0: skip that part)")
    parser.add_argument("--llm-samples", type=int, default=120, help="LLM-judge samples (0: skip that part)")
    parser.add_argument("--limit", type=float, default=20.0, help="the fake provider's requests per second")
    parser.add_argument("--concurrency", type=int, default=8, help="LLM samples in flight per worker")
    args = parser.parse_args(argv)
    if args.samples:
        embedded(args.samples)
    if args.llm_samples:
        llm(args.llm_samples, args.limit, 2, args.concurrency)


if __name__ == "__main__":
    main()
