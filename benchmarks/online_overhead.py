"""What the online pipeline costs the app: ``submit`` latency, and memory/accounting under sustained overload.

Run by hand (not a test): ``python benchmarks/online_overhead.py`` (add ``--duration 5`` for a quick look).

1. ``submit`` cost, median and p99 over many calls, on each path (accepted, not sampled, throttled, queue
   full), measured with ``time.perf_counter_ns`` around each call (the timer's own cost is printed too),
   next to the two queue candidates (``deque`` + lock vs ``queue.Queue.put_nowait``).
2. Sustained offered load (default 2,000 submissions/s for 30 s) with a judge much slower than the traffic
   (it sleeps on every call), through the real engine, the OTel emitter (batch processor, discarding
   exporter) and the JSONL emitter: peak RSS growth (VmHWM), the exact accounting, completed throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import queue
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Check, Claim, EvidencePart, Verdict
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    SimilarityResult,
    Usage,
)
from ragmetrics_core.online import (
    JsonlEmitter,
    OnlinePipeline,
    Origin,
    OtelEmitter,
    Sampler,
)
from ragmetrics_core.online.types import ContextDraft, SampleDraft, SpanRef

METRICS = ["faithfulness", "overall_precision", "context_recall", "hallucination"]


class SleepingJudge:
    """Answers every call after ``delay_s`` (asynchronously), like a remote LLM judge would."""

    name = "sleeping"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    async def extract(self, request: ExtractionRequest) -> Extraction:
        await asyncio.sleep(self.delay_s)
        out = Extraction(usage=Usage(calls=1, prompt_tokens=300, completion_tokens=60))
        if EvidencePart.RESPONSE_CLAIMS in request.want:
            out.response_claims = [Claim(text=s) for s in request.response.split(".") if s.strip()]
        if EvidencePart.REFERENCE_CLAIMS in request.want:
            out.reference_claims = [Claim(text=s) for s in (request.reference or "").split(".") if s.strip()]
        return out

    async def check(self, request: CheckRequest) -> CheckResult:
        await asyncio.sleep(self.delay_s)
        yes = Check(verdict=Verdict.ENTAILED)
        r, g, k = len(request.response_claims), len(request.reference_claims), len(request.contexts)
        want = request.want
        return CheckResult(
            usage=Usage(calls=1, prompt_tokens=500, completion_tokens=80),
            response_vs_reference=[yes] * r if EvidencePart.RESPONSE_VS_REFERENCE in want else None,
            reference_vs_response=[yes] * g if EvidencePart.REFERENCE_VS_RESPONSE in want else None,
            response_vs_chunks=[[yes] * k for _ in range(r)] if EvidencePart.RESPONSE_VS_CHUNKS in want else None,
            reference_vs_chunks=[[yes] * k for _ in range(g)] if EvidencePart.REFERENCE_VS_CHUNKS in want else None,
            response_vs_contexts=[yes] * r if EvidencePart.RESPONSE_VS_CONTEXTS in want else None,
            reference_vs_contexts=[yes] * g if EvidencePart.REFERENCE_VS_CONTEXTS in want else None,
        )

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        await asyncio.sleep(self.delay_s)
        return SimilarityResult(similarities=[1.0] * len(candidates))


class DiscardingExporter(SpanExporter):
    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def draft(i: int) -> SampleDraft:
    return SampleDraft(
        user_input=f"Where is Paris? ({i})",
        contexts=[ContextDraft(f"Paris is in France. Chunk {i}.", id=f"doc-{i}"), ContextDraft("Rome is in Italy.")],
        response=f"Paris is in France. It has {i} bridges.",
        reference="Paris is in France.",
    )


def percentiles(samples: list[int]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) / 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1000


def timed(calls: int, action: Callable[[int], object]) -> list[int]:
    clock = time.perf_counter_ns
    out = [0] * calls
    gc.disable()
    try:
        for i in range(calls):
            start = clock()
            action(i)
            out[i] = clock() - start
    finally:
        gc.enable()
    return out


def vm_hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def bench_submit(calls: int) -> None:
    print(f"== submit() cost, {calls:,} calls per path (µs; perf_counter_ns around each call) ==")
    rng = random.Random(1)
    origins = [Origin(span=SpanRef(rng.getrandbits(128) | 1, 1, 1)) for _ in range(calls)]
    sample = draft(0)
    rows: list[tuple[str, list[int]]] = [("timer alone", timed(calls, lambda i: None))]

    slow = Evaluator(judge=SleepingJudge(3600.0), metrics=METRICS)  # never finishes: the queue only grows
    accepted = OnlinePipeline(slow, max_queue=calls + 10, concurrency=1, evaluation_timeout_s=None)
    rows.append(("accepted (queued)", timed(calls, lambda i: accepted.submit(sample, origins[i]))))
    assert accepted.stats().accepted == calls
    rows.append(("queue full (dropped)", timed(calls, lambda i: accepted.submit(sample, origins[i]))))
    accepted.shutdown(1.0)

    none = OnlinePipeline(slow, sampler=Sampler(0.0))
    rows.append(("not sampled (rate 0)", timed(calls, lambda i: none.submit(sample, origins[i]))))
    none.shutdown(1.0)
    half = OnlinePipeline(slow, sampler=Sampler(0.5), max_queue=calls + 10, evaluation_timeout_s=None)
    rows.append(("rate 0.5 on trace id", timed(calls, lambda i: half.submit(sample, origins[i]))))
    half.shutdown(1.0)
    runs = [Origin(run_id=f"{i:08x}-0000-4000-8000-000000000000") for i in range(calls)]
    by_run = OnlinePipeline(slow, sampler=Sampler(0.5), max_queue=calls + 10, evaluation_timeout_s=None)
    rows.append(("rate 0.5 on run id (hash)", timed(calls, lambda i: by_run.submit(sample, runs[i]))))
    by_run.shutdown(1.0)
    throttled = OnlinePipeline(slow, sampler=Sampler(1.0, max_per_minute=1))
    throttled.submit(sample, origins[0])
    rows.append(("throttled", timed(calls, lambda i: throttled.submit(sample, origins[i]))))
    throttled.shutdown(1.0)

    lock = threading.Lock()
    candidate: deque[object] = deque()

    def deque_put(i: int) -> None:
        with lock:
            if len(candidate) < calls + 10:
                candidate.append(i)

    rows.append(("candidate: lock + deque.append", timed(calls, deque_put)))
    bounded: queue.Queue[object] = queue.Queue(maxsize=calls + 10)
    rows.append(("candidate: queue.Queue.put_nowait", timed(calls, bounded.put_nowait)))

    print(f"{'path':<36}{'median':>10}{'p99':>10}")
    for label, samples in rows:
        median, p99 = percentiles(samples)
        print(f"{label:<36}{median:>10.2f}{p99:>10.2f}")


def bench_sustained(rate: int, duration_s: float, judge_delay_s: float, concurrency: int, sample_rate: float) -> None:
    per_eval_s = 2 * judge_delay_s  # the engine makes one extract and one check call for these metrics
    print(
        f"== sustained load: {rate:,} submissions/s for {duration_s:g} s; judge sleeps {judge_delay_s * 1000:g} ms "
        f"per call (≈{concurrency / per_eval_s:,.0f} evaluations/s at concurrency {concurrency}); "
        f"sampling rate {sample_rate:g} =="
    )
    exporter = DiscardingExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    with tempfile.TemporaryDirectory() as tmp:
        online = OnlinePipeline(
            Evaluator(judge=SleepingJudge(judge_delay_s), metrics=METRICS),
            sampler=Sampler(sample_rate),
            emitters=[OtelEmitter(tracer_provider=provider), JsonlEmitter(Path(tmp) / "scores.jsonl")],
            max_queue=1000,
            concurrency=concurrency,
        )
        rng = random.Random(2)
        # Warm up the worker, the engine and the emitters before taking the memory baseline.
        online.submit(draft(0), Origin(span=SpanRef(1, 1, 1)))
        online.flush(30)
        gc.collect()
        baseline_kib = vm_hwm_kib()
        latencies: list[int] = []
        clock = time.perf_counter_ns
        start = time.perf_counter()
        offered = 0
        total = int(rate * duration_s)
        while offered < total:
            due = start + offered / rate
            now = time.perf_counter()
            if now < due:
                time.sleep(due - now)
            sample = draft(offered)
            origin = Origin(span=SpanRef(rng.getrandbits(128) | 1, rng.getrandbits(64) | 1, 1))
            t0 = clock()
            online.submit(sample, origin)
            latencies.append(clock() - t0)
            offered += 1
        elapsed = time.perf_counter() - start
        during = online.stats()
        peak_growth_mib = (vm_hwm_kib() - baseline_kib) / 1024
        queued_at_end = during.queued
        online.shutdown(timeout_s=5.0)
        final = online.stats()
    provider.shutdown()

    median, p99 = percentiles(latencies)
    completed_in_window = during.completed - 1
    print(f"offered {offered:,} in {elapsed:.2f} s ({offered / elapsed:,.0f}/s achieved)")
    print(f"submit under load: median {median:.2f} µs, p99 {p99:.2f} µs")
    print(f"peak RSS growth (VmHWM delta): {peak_growth_mib:.1f} MiB (target < 64 MiB); queue at end {queued_at_end}")
    print(f"completed evaluations during the load: {completed_in_window:,} = {completed_in_window / elapsed:,.1f}/s")
    print(
        f"accounting after shutdown: submitted {final.submitted:,} = completed {final.completed:,} "
        f"+ sampled out {final.sampled_out:,} + dropped {final.dropped:,} "
        f"(queue full {final.queue_full:,}, abandoned at shutdown {final.abandoned:,}, rejected {final.rejected:,}) "
        f"+ failed {final.failed:,} {dict(final.failure_reasons)}"
    )
    settled = final.completed + final.sampled_out + final.dropped + final.failed
    print(f"identity holds exactly: {final.submitted == settled} (queued {final.queued}, in flight {final.in_flight})")
    print(f"judge usage: {final.usage.calls:,} calls, {final.usage.total_tokens:,} tokens; spans exported "
          f"{exporter.exported:,}; emitters {dict(final.emitters)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=200_000, help="submit() calls per measured path")
    parser.add_argument("--rate", type=int, default=2000, help="offered submissions per second")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of sustained load")
    parser.add_argument("--judge-delay", type=float, default=0.05, help="seconds the judge sleeps per call")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--sample-rate", type=float, default=1.0)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    # The sustained run goes first so its memory baseline is not inflated by the submit() runs' queues.
    bench_sustained(args.rate, args.duration, args.judge_delay, args.concurrency, args.sample_rate)
    print()
    bench_submit(args.calls)


if __name__ == "__main__":
    main()
