"""MetricsEmitter through a real OnlinePipeline and the OpenTelemetry SDK's MeterProvider (in-memory reader)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from ragmetrics_core.online import MetricsEmitter, OnlinePipeline, Origin, Route, Sampler
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.emitters.metrics import OTHER, SCORE_BUCKETS, judge_attributes, undetermined_reason
from ragmetrics_core.sample import Context, RagSample
from tests.monitoring.conftest import DictatedEvaluator, Metrics

SECRET_QUESTION = "What is the account number of Jane Doe?"


def sample(**metadata: Any) -> RagSample:
    reference = metadata.pop("reference", None)
    return RagSample(
        user_input=SECRET_QUESTION, response="Jane's account is 12345.", reference=reference,
        retrieved_contexts=[Context(text="Jane Doe holds account 12345.")], metadata=metadata,
    )


def run(metrics: Metrics, submissions: list[tuple[RagSample, Origin]], **kwargs: Any) -> OnlinePipeline:
    emitter = MetricsEmitter(meter_provider=metrics.provider, **kwargs.pop("emitter", {}))
    online = OnlinePipeline(DictatedEvaluator(), emitters=[emitter], **kwargs)
    emitter.observe(online, pipeline="support")
    for item, origin in submissions:
        online.submit(item, origin)
    assert online.flush(timeout_s=10)
    return online


def test_scores_land_in_one_histogram_per_metric_with_the_right_buckets(metrics: Metrics) -> None:
    origin = Origin(framework="langchain", chain_name="support-rag", run_id="run-1")
    values = [1.0, 0.0, 0.5, 0.5, 0.92]
    online = run(metrics, [(sample(faithfulness=v, label="pass" if v >= 0.5 else "fail"), origin) for v in values])
    points = metrics.matching(sc.METRIC_SCORE, {sc.EVALUATION_NAME: "faithfulness"})
    by_label = {dict(p.attributes)[sc.EVALUATION_SCORE_LABEL]: p for p in points}
    assert set(by_label) == {"pass", "fail"}
    passed = by_label["pass"]
    assert passed.count == 4 and passed.sum == pytest.approx(2.92)
    assert list(passed.explicit_bounds) == list(SCORE_BUCKETS)
    # 0.5 falls in (0.4, 0.5], 0.92 in (0.9, 0.95], 1.0 in (0.95, 1.0]
    counts = dict(zip([*SCORE_BUCKETS, float("inf")], passed.bucket_counts, strict=True))
    assert (counts[0.5], counts[0.95], counts[1.0], counts[float("inf")]) == (2, 1, 1, 0)
    assert by_label["fail"].count == 1 and by_label["fail"].bucket_counts[0] == 1  # le="0": exact zeros
    attributes = dict(passed.attributes)
    assert attributes[sc.ORIGIN_CHAIN_NAME] == "support-rag"
    assert attributes[sc.SAMPLING_ROUTE] == "default"
    assert attributes[sc.ORIGIN_FRAMEWORK] == "langchain"
    assert attributes[sc.JUDGE_KIND] == "openai" and attributes[sc.GEN_AI_REQUEST_MODEL] == "gpt-4o-mini"
    assert online.stats().completed == 5
    online.shutdown()


def test_undetermined_scores_count_by_reason_class(metrics: Metrics) -> None:
    items = [
        (sample(faithfulness=None, reason="no claims were extracted from the response"), Origin()),
        (sample(faithfulness=0.7, reference="Jane holds 12345."), Origin()),
        (sample(faithfulness=0.7), Origin()),
    ]
    run(metrics, items).shutdown()
    assert metrics.value(sc.METRIC_UNDETERMINED, {sc.EVALUATION_NAME: "context_recall"}) == 2
    assert metrics.value(
        sc.METRIC_UNDETERMINED, {sc.EVALUATION_NAME: "context_recall", sc.UNDETERMINED_REASON: "no_reference"}
    ) == 2
    assert metrics.value(
        sc.METRIC_UNDETERMINED,
        {sc.EVALUATION_NAME: "faithfulness", sc.UNDETERMINED_REASON: "no_claims_in_the_response"},
    ) == 1
    (recall,) = metrics.matching(sc.METRIC_SCORE, {sc.EVALUATION_NAME: "context_recall"})
    assert recall.count == 1  # the determined one only: an undetermined score is not a zero


def test_judge_tokens_and_cost_are_counted_by_token_type(metrics: Metrics) -> None:
    items = [(sample(faithfulness=1.0, tokens=100, cost=0.002), Origin()) for _ in range(3)]
    items.append((sample(faithfulness=1.0, tokens=40), Origin()))  # no price table: no cost
    run(metrics, items).shutdown()
    assert metrics.value(sc.METRIC_JUDGE_TOKENS, {sc.GEN_AI_TOKEN_TYPE: "input"}) == 340
    assert metrics.value(sc.METRIC_JUDGE_TOKENS, {sc.GEN_AI_TOKEN_TYPE: "output"}) == 170
    assert metrics.value(sc.METRIC_JUDGE_COST) == pytest.approx(0.006)
    (duration,) = metrics.points(sc.METRIC_DURATION)
    assert duration.count == 4 and duration.sum >= 0


def test_the_ledger_is_observed_at_collection_time(metrics: Metrics) -> None:
    sampler = Sampler(routes=[Route(rate=0.0, chain_name="internal")])
    items = [
        (sample(faithfulness=1.0), Origin(chain_name="support")),
        (sample(faithfulness=1.0), Origin(chain_name="support")),
        (sample(fail=True), Origin(chain_name="support")),
        (sample(faithfulness=1.0), Origin(chain_name="internal")),
        (sample(faithfulness=1.0), Origin(chain_name="internal")),
    ]
    online = run(metrics, items, sampler=sampler)
    stats = online.stats()
    pipeline = {sc.PIPELINE: "support"}
    assert metrics.value(sc.METRIC_SUBMITTED, pipeline) == stats.submitted == 5
    assert metrics.value(sc.METRIC_SAMPLED_OUT, {**pipeline, sc.SAMPLING_DECISION: "not_sampled"}) == 2
    assert metrics.value(sc.METRIC_COMPLETED, pipeline) == 2
    assert metrics.value(sc.METRIC_FAILED, {**pipeline, sc.ERROR_TYPE: "judge_error"}) == 1
    # Classes that have not occurred are reported at zero, so that rate() counts their first occurrence.
    (timeouts,) = metrics.matching(sc.METRIC_FAILED, {**pipeline, sc.ERROR_TYPE: "timeout"})
    assert timeouts.value == 0
    assert metrics.value(sc.METRIC_PENDING, pipeline) == 0
    assert metrics.value(sc.METRIC_EMITTER_RECORDS, {sc.EMITTER_NAME: "metrics", sc.EMITTER_OUTCOME: "emitted"}) == 3
    # The failed evaluation's duration carries its error class.
    (failed,) = metrics.matching(sc.METRIC_DURATION, {sc.ERROR_TYPE: "judge_error"})
    assert failed.count == 1
    online.shutdown()
    online.submit(sample(faithfulness=1.0), Origin())  # after shutdown: dropped as rejected
    assert metrics.value(sc.METRIC_DROPPED, {**pipeline, sc.DROP_REASON: "rejected"}) == 1
    assert metrics.value(sc.METRIC_SUBMITTED, pipeline) == 6


def test_attributes_never_carry_texts_or_ids(metrics: Metrics) -> None:
    origin = Origin(chain_name="support", run_id="run-7f3a", metadata={"user": "jane"})
    item = sample(faithfulness=0.5, reference="Jane holds 12345.")
    item = item.model_copy(update={"id": "sample-42"})
    online = run(metrics, [(item, origin)])
    data = metrics.reader.get_metrics_data()
    assert data is not None
    values = {
        str(value)
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        for point in metric.data.data_points
        for value in dict(point.attributes).values()
    }
    forbidden = {SECRET_QUESTION, "run-7f3a", "sample-42", "jane", item.response, item.reference}
    assert not values & forbidden
    assert not any("12345" in value for value in values)
    online.shutdown()


def test_a_chain_name_per_request_folds_into_other(metrics: Metrics) -> None:
    items = [(sample(faithfulness=1.0), Origin(chain_name=f"chain-{i}")) for i in range(8)]
    run(metrics, items, emitter={"max_values_per_attribute": 3}).shutdown()
    names = [dict(p.attributes).get(sc.ORIGIN_CHAIN_NAME) for p in metrics.points(sc.METRIC_SCORE)]
    assert sorted(set(names)) == ["_other", "chain-0", "chain-1", "chain-2"] and OTHER == "_other"
    assert sum(p.count for p in metrics.points(sc.METRIC_SCORE)) == 8


def test_fewer_dimensions_fewer_series(metrics: Metrics) -> None:
    items = [(sample(faithfulness=1.0, judge=f"openai:m{i}"), Origin(chain_name=f"c{i}")) for i in range(4)]
    run(metrics, items, emitter={"dimensions": ()}).shutdown()
    (point,) = metrics.matching(sc.METRIC_SCORE, {sc.EVALUATION_NAME: "faithfulness"})
    assert dict(point.attributes) == {sc.EVALUATION_NAME: "faithfulness"} and point.count == 4


def test_an_evaluator_that_is_gone_is_no_longer_observed(metrics: Metrics) -> None:
    emitter = MetricsEmitter(meter_provider=metrics.provider)
    online = OnlinePipeline(DictatedEvaluator(), emitters=[emitter])
    emitter.observe(online)
    emitter.observe(online)  # twice: still counted once
    online.submit(sample(faithfulness=1.0), Origin())
    assert online.flush(timeout_s=10)
    assert metrics.value(sc.METRIC_SUBMITTED) == 1
    online.shutdown()
    del online
    gc.collect()
    assert metrics.points(sc.METRIC_SUBMITTED) == []


def test_a_prometheus_scrape_after_flush_serves_each_series_once() -> None:
    """Flushing the pipeline must not leave snapshots in a pull reader that the next scrape serves again."""
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry()
    provider = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    emitter = MetricsEmitter(meter_provider=provider)
    online = OnlinePipeline(DictatedEvaluator(), emitters=[emitter])
    emitter.observe(online)
    for _ in range(3):
        online.submit(sample(faithfulness=1.0), Origin())
        assert online.flush(timeout_s=10)
    samples = [line for line in generate_latest(registry).decode().splitlines() if not line.startswith("#")]
    assert len(samples) == len(set(samples)) > 0
    submitted = [line for line in samples if line.startswith("ragmetrics_online_samples_submitted_total")]
    assert len(submitted) == 1 and submitted[0].endswith(" 3.0")
    online.shutdown()
    provider.shutdown()


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown dimensions"):
        MetricsEmitter(dimensions=("user_id",))
    with pytest.raises(ValueError, match="positive int"):
        MetricsEmitter(max_values_per_attribute=0)
    with pytest.raises(TypeError, match="stats"):
        MetricsEmitter().observe(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ("embedded", {sc.JUDGE_KIND: "embedded"}),
        ("openai:gpt-4o-mini", {sc.JUDGE_KIND: "openai", sc.GEN_AI_REQUEST_MODEL: "gpt-4o-mini"}),
        (
            "ensemble[mean](embedded, openai:qwen2.5:7b)",
            {sc.JUDGE_KIND: "ensemble", sc.GEN_AI_REQUEST_MODEL: "embedded,openai:qwen2.5:7b"},
        ),
        (None, {}),
        ("", {}),
    ],
)
def test_judge_kind_and_model(judge: str | None, expected: dict[str, str]) -> None:
    assert judge_attributes(judge) == expected


def test_the_failure_classes_are_the_workers() -> None:
    """FAILURE_CLASSES lists every class the online worker and evaluator settle a sample with."""
    import inspect
    import re

    from ragmetrics_core.online import evaluator, worker
    from ragmetrics_core.online.emitters.metrics import FAILURE_CLASSES

    source = inspect.getsource(worker) + inspect.getsource(evaluator)
    pattern = r'(?:reason, error = |return |settle\(|reasons\[)"([a-z_]+)"'
    assert set(re.findall(pattern, source)) == set(FAILURE_CLASSES)


def test_reason_classes_are_label_values() -> None:
    assert undetermined_reason("missing input: reference") == "no_reference"
    assert undetermined_reason("evidence unavailable: judge timed out") == "judge_error"
    assert undetermined_reason("") == "other"
    assert undetermined_reason("Ünïcode réason 🙂") == "other"
