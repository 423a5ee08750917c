"""What the monitoring emitters cost per evaluation record, next to the OTel span emitter, and what a scrape costs.

Run by hand (not a test): ``python benchmarks/monitoring_overhead.py`` (``--records 2000`` for a quick look).

Per record, on the thread that calls ``emit`` (median and p99 of ``time.perf_counter_ns`` around each call):
``MetricsEmitter`` into an SDK ``MeterProvider`` (what the scoring worker pays), ``LangfuseEmitter`` (building the
scores and queueing them; posting is its sender thread's), and ``OtelEmitter`` into a ``BatchSpanProcessor`` with
a discarding exporter (the span emitter every deployment already runs). Then one Prometheus scrape
(``generate_latest``) with the ledger observed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from prometheus_client import CollectorRegistry, generate_latest

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.online import LangfuseEmitter, MetricsEmitter, OnlinePipeline, Origin, OtelEmitter
from ragmetrics_core.online.types import EvaluationRecord, SamplingDecision, SpanRef
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore

METRICS = ("faithfulness", "overall_precision", "context_recall", "hallucination")


class Discard(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def record(n: int) -> EvaluationRecord:
    scores = {
        metric: MetricScore(
            metric=metric, score=(n % 10) / 10 if metric != "context_recall" or n % 3 else None,
            direction=Direction.HIGHER_IS_BETTER, label="pass" if n % 10 >= 5 else "fail", threshold=0.5,
            reason="" if n % 3 or metric != "context_recall" else "missing input: reference",
        )
        for metric in METRICS
    }
    usage = Usage(calls=3, prompt_tokens=900, completion_tokens=120, cost_usd=0.0004)
    return EvaluationRecord(
        record_id=f"{n:032x}", origin=Origin(framework="langchain", chain_name=f"chain-{n % 5}"),
        decision=SamplingDecision.EVALUATED, route="default", rate=1.0,
        subject=SpanRef(trace_id=n + 1, span_id=n + 1), sample_id=None, sample=None,
        result=EvaluationResult(judge="openai:gpt-4o-mini", scores=scores, usage=usage), error=None,
        judge="openai:gpt-4o-mini", usage=usage, submitted_ns=0, started_ns=1, finished_ns=2_000_000,
    )


def per_call(emit: Callable[[EvaluationRecord], None], records: list[EvaluationRecord]) -> tuple[float, float]:
    for item in records[:200]:  # warm-up: instruments and series created
        emit(item)
    times = []
    for item in records:
        start = time.perf_counter_ns()
        emit(item)
        times.append(time.perf_counter_ns() - start)
    times.sort()
    return statistics.median(times) / 1000, times[int(len(times) * 0.99)] / 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20_000)
    args = parser.parse_args()
    records = [record(n) for n in range(args.records)]

    registry = CollectorRegistry()
    meters = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    metrics = MetricsEmitter(meter_provider=meters)
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Discard()))
    otel = OtelEmitter(tracer_provider=tracer_provider, log_events=False, claim_events=False)
    langfuse = LangfuseEmitter(
        public_key="pk", secret_key="sk", base_url="http://127.0.0.1:9", batch_size=10**9, max_delay_s=3600,
        max_pending=10**9, max_retries=0, timeout_s=0.2,
    )
    print(f"{args.records} records of {len(METRICS)} metrics; µs per emit call (median / p99)")
    for label, emitter in (("MetricsEmitter", metrics), ("LangfuseEmitter (queue)", langfuse), ("OtelEmitter", otel)):
        median, p99 = per_call(emitter.emit, records)
        print(f"  {label:<24} {median:8.1f} / {p99:8.1f}")

    online = OnlinePipeline(emitters=[metrics])
    metrics.observe(online)
    start = time.perf_counter()
    text = generate_latest(registry)
    elapsed_ms = (time.perf_counter() - start) * 1000
    series = sum(1 for line in text.splitlines() if line and not line.startswith(b"#"))
    print(f"one scrape: {elapsed_ms:.1f} ms for {series} series ({len(text) / 1024:.0f} KiB)")
    online.shutdown()
    tracer_provider.shutdown()
    meters.shutdown()
    langfuse.shutdown(0.5)


if __name__ == "__main__":
    main()
