"""End to end against a real Prometheus server scraping the OpenTelemetry Prometheus exporter of a LangChain app.

The app (in this process): a LangChain RAG chain (in-memory vector store, fake embeddings and chat model) with
ragmetrics' callback handler, an ``OnlinePipeline`` around the real engine with a transparent judge, and a
``MetricsEmitter`` on an SDK ``MeterProvider`` whose ``PrometheusMetricReader`` is served on 127.0.0.1. Prometheus
(Debian's package) runs as a child process on 127.0.0.1, scrapes the app every second and evaluates the shipped
alert rules. The test reads everything back through Prometheus' HTTP API: score histograms and counters with the
right counts, the rules healthy and the quality alerts pending, and every Grafana panel's query valid.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from prometheus_client import CollectorRegistry, start_http_server

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, JudgeError
from ragmetrics_core.online import MetricsEmitter, OnlinePipeline, Route, Sampler
from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import make_store, rag_chain
from tests.monitoring.promql import RULES, dashboard_queries, instantiate
from tests.online.judges import ScriptedJudge
from tests.servers import free_port, poll, stop, wait_until_ready

PROMETHEUS = shutil.which("prometheus")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        PROMETHEUS is None,
        reason="the prometheus binary is absent: install Debian's prometheus package (scripts/test.sh does, as root)",
    ),
]

QUESTION = "Where is the Eiffel Tower?"
GROUNDED = "The Eiffel Tower is in Paris."
HALLUCINATED = "The Eiffel Tower is in Rome."
OUTAGE = "The judge is down for this one."
REFERENCE = "The Eiffel Tower is in Paris."
METRICS = ["faithfulness", "context_recall"]


class OutageJudge(ScriptedJudge):
    """The transparent judge, failing (as an upstream 503) on any answer that mentions an outage."""

    async def extract(self, request: ExtractionRequest) -> Extraction:
        if "judge is down" in request.response:
            raise JudgeError("upstream answered 503")
        return await super().extract(request)

    async def check(self, request: CheckRequest) -> CheckResult:
        if "judge is down" in request.response:
            raise JudgeError("upstream answered 503")
        return await super().check(request)


@dataclass
class App:
    online: OnlinePipeline
    handler: RagMetricsCallbackHandler
    judge: OutageJudge
    port: int

    def ask(self, answer: str, *, run_name: str = "support-rag", reference: str | None = REFERENCE) -> None:
        metadata = {"ragmetrics_reference": reference} if reference is not None else {}
        config: Any = {"callbacks": [self.handler], "run_name": run_name, "metadata": metadata}
        assert rag_chain(make_store().as_retriever(search_kwargs={"k": 2}), [answer]).invoke(QUESTION, config) == answer


@pytest.fixture
def app() -> Iterator[App]:
    registry = CollectorRegistry()
    provider = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    judge = OutageJudge()
    emitter = MetricsEmitter(meter_provider=provider)
    online = OnlinePipeline(
        Evaluator(judge=judge, metrics=METRICS), emitters=[emitter],
        sampler=Sampler(routes=[Route(rate=0.0, chain_name="internal-tools", name="internal")]),
    )
    emitter.observe(online, pipeline="support")
    try:
        yield App(online, RagMetricsCallbackHandler(online), judge, server.server_port)
    finally:
        online.shutdown(timeout_s=5)
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        provider.shutdown()


@dataclass
class Prometheus:
    url: str
    client: httpx.Client

    def query(self, expr: str) -> list[dict[str, Any]]:
        response = self.client.get(f"{self.url}/api/v1/query", params={"query": expr})
        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", f"{expr}: {body}"
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    def scalar(self, expr: str) -> float | None:
        result = self.query(expr)
        assert len(result) <= 1, f"{expr}: {result}"
        return float(result[0]["value"][1]) if result else None

    def by(self, expr: str, label: str) -> dict[str, float]:
        return {series["metric"].get(label, ""): float(series["value"][1]) for series in self.query(expr)}

    def wait_for(self, expr: str, expected: float, timeout_s: float = 30) -> float | None:
        return poll(lambda: self.scalar(expr), lambda value: value == expected, timeout_s)


@pytest.fixture
def prometheus(app: App, tmp_path: Path) -> Iterator[Prometheus]:
    assert PROMETHEUS is not None
    port = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files:\n  - {RULES}\n"
        "scrape_configs:\n  - job_name: rag-app\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{app.port}']\n",
        encoding="utf-8",
    )
    log_path = tmp_path / "prometheus.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn",
            ],
            stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(timeout=5) as client:
                wait_until_ready("prometheus", server, f"{url}/-/ready", log_path, timeout_s=60)
                yield Prometheus(url, client)
        finally:
            stop(server)


def test_prometheus_scrapes_scores_and_counters_of_a_langchain_app(app: App, prometheus: Prometheus) -> None:
    up = 'up{job="rag-app"}'
    assert prometheus.wait_for(up, 1.0) == 1.0, "Prometheus never scraped the app"
    submitted = "sum(ragmetrics_online_samples_submitted_total)"

    # First batch: one run of each kind, scraped before the rest. Prometheus' rate() counts nothing for a series'
    # first sample, so every series the second batch moves must exist before it (docs/monitoring.md).
    app.ask(GROUNDED)
    app.ask(HALLUCINATED, reference=None)
    app.ask(OUTAGE)
    assert app.online.flush(timeout_s=30)
    assert prometheus.wait_for(submitted, 3.0) == 3.0
    time.sleep(1.5)  # one more scrape of the first values

    # Second batch: 3 good answers, 2 hallucinated ones without a reference, 1 the judge fails on, and 2 runs of
    # a chain the sampler leaves out.
    for _ in range(3):
        app.ask(GROUNDED)
    for _ in range(2):
        app.ask(HALLUCINATED, reference=None)
    app.ask(OUTAGE)
    for _ in range(2):
        app.ask(GROUNDED, run_name="internal-tools")
    assert app.online.flush(timeout_s=30)
    stats = app.online.stats()
    assert (stats.submitted, stats.completed, stats.failed, stats.not_sampled) == (11, 7, 2, 2)

    assert prometheus.wait_for(submitted, 11.0) == 11.0
    assert prometheus.wait_for("sum(ragmetrics_online_samples_completed_total)", 7.0) == 7.0
    assert prometheus.by("sum by (ragmetrics_sampling_decision) (ragmetrics_online_samples_sampled_out_total)",
                         "ragmetrics_sampling_decision") == {"not_sampled": 2.0, "throttled": 0.0, "over_budget": 0.0}
    failed = prometheus.by("sum by (error_type) (ragmetrics_online_samples_failed_total)", "error_type")
    assert failed.pop("judge_error") == 2.0 and set(failed.values()) == {0.0}
    assert prometheus.scalar("sum(ragmetrics_online_samples_dropped_total)") == 0.0
    assert prometheus.scalar('sum(ragmetrics_online_samples_pending{ragmetrics_pipeline="support"})') == 0.0

    # The faithfulness histogram: 4 grounded answers score 1, 3 hallucinated ones 0 (the failed ones have no score).
    faithfulness = 'gen_ai_evaluation_name="faithfulness"'
    assert prometheus.wait_for(f"sum(ragmetrics_evaluation_score_count{{{faithfulness}}})", 7.0) == 7.0
    assert prometheus.scalar(f"sum(ragmetrics_evaluation_score_sum{{{faithfulness}}})") == 4.0
    buckets = prometheus.by(f"sum by (le) (ragmetrics_evaluation_score_bucket{{{faithfulness}}})", "le")
    assert {float(le): count for le, count in buckets.items()} == {
        **{bound: 3.0 for bound in (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)},
        1.0: 7.0, float("inf"): 7.0,
    }
    chains = prometheus.by(
        f"sum by (ragmetrics_origin_chain_name) (ragmetrics_evaluation_score_count{{{faithfulness}}})",
        "ragmetrics_origin_chain_name",
    )
    assert chains == {"support-rag": 7.0}
    assert prometheus.by(f"sum by (ragmetrics_judge_kind) (ragmetrics_evaluation_score_count{{{faithfulness}}})",
                         "ragmetrics_judge_kind") == {"scripted": 7.0}

    # context_recall: 4 scored (with a reference), 3 undetermined for want of one, 2 for the judge's failure.
    recall = 'gen_ai_evaluation_name="context_recall"'
    assert prometheus.scalar(f"sum(ragmetrics_evaluation_score_count{{{recall}}})") == 4.0
    assert prometheus.by(
        f"sum by (ragmetrics_undetermined_reason) (ragmetrics_evaluation_undetermined_total{{{recall}}})",
        "ragmetrics_undetermined_reason",
    ) == {"no_reference": 3.0, "judge_error": 2.0}

    # Judge tokens as the ledger counted them, on a separate path (records → counter vs the evaluator's usage).
    assert stats.usage.prompt_tokens > 0
    assert prometheus.scalar('sum(ragmetrics_judge_token_usage_total{gen_ai_token_type="input"})') == float(
        stats.usage.prompt_tokens
    )
    assert prometheus.scalar("sum(ragmetrics_evaluation_duration_seconds_count)") == 9.0

    # The shipped rules load and evaluate. Over the second batch p10 is 0, the mean 3/5, context_recall's
    # undetermined share 3/6 and the failure share 1/6, so those alerts are pending (their `for:` has not elapsed);
    # nothing was dropped.
    def alerts() -> dict[str, str]:
        body = prometheus.client.get(f"{prometheus.url}/api/v1/alerts").json()
        return {alert["labels"]["alertname"]: alert["state"] for alert in body["data"]["alerts"]}

    quality = {"RagFaithfulnessP10Low", "RagFaithfulnessMeanLow", "RagUndeterminedShareHigh", "RagJudgeFailures"}
    active = poll(alerts, lambda found: quality <= set(found), timeout_s=30)
    assert quality <= set(active), active
    assert "RagSamplesDropped" not in active and "RagEmitterDropping" not in active
    groups = prometheus.client.get(f"{prometheus.url}/api/v1/rules").json()["data"]["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert len(rules) == 9 and all(rule["health"] == "ok" for rule in rules), rules
    p10 = prometheus.by("ragmetrics:faithfulness:p10_30m", "ragmetrics_origin_chain_name")
    assert p10 == {"support-rag": 0.0}

    # Every scrape went through cleanly (a series served twice in one scrape would show here).
    (target,) = prometheus.client.get(f"{prometheus.url}/api/v1/targets").json()["data"]["activeTargets"]
    assert (target["health"], target["lastError"]) == ("up", ""), target

    # Every Grafana panel's query runs and returns data, but the cost panel's (the scripted judge has no price).
    queries = list(dashboard_queries())
    assert "panel 'Judge cost per hour'" in {query.where for query in queries}
    for query in queries:
        result = prometheus.query(instantiate(query.expr, metric="faithfulness", chain=".*"))
        if query.where != "panel 'Judge cost per hour'":
            assert result, f"{query.where}: {query.expr} returned nothing"
