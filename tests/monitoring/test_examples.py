"""examples/monitoring: the alert rules pass promtool (syntax and their own unit tests), and every metric and label
the rules and the Grafana dashboard name is one the OpenTelemetry Prometheus exporter really exposes for
ragmetrics' metrics."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from prometheus_client import CollectorRegistry, generate_latest

from ragmetrics_core.online import MetricsEmitter, OnlinePipeline, Origin
from ragmetrics_core.sample import Context, RagSample
from tests.monitoring.conftest import DictatedEvaluator
from tests.monitoring.promql import (
    DASHBOARD,
    RULES,
    RULES_TEST,
    Query,
    dashboard,
    dashboard_queries,
    dashboard_variables,
    exposed,
    legend_labels,
    rule_queries,
)

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not found: install Debian's prometheus package (scripts/test.sh does, as root)"
)


@needs_promtool
def test_promtool_accepts_the_rules() -> None:
    assert PROMTOOL is not None
    done = subprocess.run([PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 9 rules found" in done.stdout


@needs_promtool
def test_the_rules_fire_on_a_degraded_chain_and_not_on_a_healthy_one() -> None:
    assert PROMTOOL is not None
    done = subprocess.run(
        [PROMTOOL, "test", "rules", RULES_TEST.name], capture_output=True, text=True, timeout=60,
        cwd=RULES_TEST.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


@needs_promtool
def test_promtool_rejects_a_broken_rule(tmp_path: Path) -> None:
    """The check above could not pass on anything: a rule with a PromQL syntax error fails it."""
    assert PROMTOOL is not None
    broken = tmp_path / "broken.yml"
    failed_rate = "rate(ragmetrics_online_samples_failed_total[15m])"
    broken.write_text(RULES.read_text().replace(failed_rate, "rate(oops[15m", 1))
    done = subprocess.run([PROMTOOL, "check", "rules", str(broken)], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0


@pytest.fixture(scope="module")
def exposition() -> Iterator[dict[str, set[str]]]:
    """Every series ragmetrics exposes, from a pipeline that scored, left undetermined, failed, spent and dropped."""
    registry = CollectorRegistry()
    provider = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    emitter = MetricsEmitter(meter_provider=provider)
    online = OnlinePipeline(DictatedEvaluator(), emitters=[emitter])
    emitter.observe(online)

    def sample(**metadata: object) -> RagSample:
        return RagSample(user_input="q", response="a", retrieved_contexts=[Context(text="c")], metadata=metadata)

    online.submit(sample(faithfulness=0.8, label="pass", tokens=20, cost=0.01), Origin(chain_name="support-rag"))
    online.submit(sample(faithfulness=None, reason="evidence unavailable"), Origin(chain_name="support-rag"))
    online.submit(sample(fail=True), Origin(chain_name="support-rag"))
    assert online.flush(timeout_s=10)
    online.shutdown()
    online.submit(sample(faithfulness=1.0), Origin())  # dropped: rejected after shutdown
    yield exposed(generate_latest(registry).decode())
    provider.shutdown()


def _check(query: Query, names: dict[str, set[str]]) -> None:
    assert query.metrics, f"{query.where}: no ragmetrics metric in {query.expr!r}"
    unknown = query.metrics - set(names)
    assert not unknown, f"{query.where}: {sorted(unknown)} are not exposed; exposed: {sorted(names)}"
    available = set().union(*(names[m] for m in query.metrics)) | {"le"}
    for metric, labels in query.selectors:
        own = names.get(metric, available) if metric else available
        assert labels <= own, f"{query.where}: {metric} has no label {sorted(labels - own)}"
    assert query.grouping <= available, f"{query.where}: no label {sorted(query.grouping - available)}"
    assert legend_labels(query.legend) <= query.grouping, f"{query.where}: the legend names a label summed away"


def test_every_rule_names_exposed_metrics_and_labels(exposition: dict[str, set[str]]) -> None:
    queries = [q for q in rule_queries() if not q.expr.lstrip().startswith("ragmetrics:")]
    assert len(queries) >= 7
    for query in queries:
        _check(query, exposition)


def test_alerts_read_only_recording_rules_defined_in_the_file() -> None:
    text = RULES.read_text()
    for query in rule_queries():
        for recorded in set(re.findall(r"ragmetrics:[a-z0-9_:]+", query.expr)):
            assert f"record: {recorded}\n" in text, f"{query.where} reads {recorded}, which no rule records"


def test_every_dashboard_query_names_exposed_metrics_and_labels(exposition: dict[str, set[str]]) -> None:
    queries = list(dashboard_queries())
    assert len(queries) >= 12
    for query in queries:
        _check(query, exposition)
    for variable, metric, label in dashboard_variables():
        assert metric in exposition and label in exposition[metric], f"variable {variable}: {metric}/{label}"


def test_the_dashboard_is_importable_json() -> None:
    board = dashboard()
    assert board["uid"] and board["title"] and DASHBOARD.suffix == ".json"
    ids = [panel["id"] for panel in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in board["panels"]:
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}"
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"])
        assert [t["refId"] for t in panel["targets"]] == [chr(65 + i) for i in range(len(panel["targets"]))]


def test_the_name_check_catches_a_misspelt_metric(exposition: dict[str, set[str]]) -> None:
    with pytest.raises(AssertionError, match="not exposed"):
        _check(Query("sum(rate(ragmetrics_evaluation_scores_bucket[5m]))", "typo"), exposition)
    with pytest.raises(AssertionError, match="no label"):
        _check(Query('sum(ragmetrics_online_samples_failed_total{error="x"})', "typo"), exposition)
    with pytest.raises(AssertionError, match="no label"):
        _check(Query("sum by (chain) (ragmetrics_evaluation_score_count)", "typo"), exposition)
