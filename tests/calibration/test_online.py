"""The online pipeline with a calibration: every emitter carries the probability beside the score (OTel span
attributes and gen_ai.evaluation.result events, JSONL records, Phoenix annotations); none does without one."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from ragmetrics_core.calibration import Calibration
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import CallbackEmitter, JsonlEmitter, OnlinePipeline, OtelEmitter, SamplingDecision
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.emitters.phoenix import PhoenixEmitter
from ragmetrics_core.online.types import EvaluationRecord
from tests.calibration.conftest import make_calibration
from tests.online.conftest import Telemetry, paris_draft
from tests.online.judges import ScriptedJudge

MakeOnline = Callable[..., OnlinePipeline]
HALF = 0.5  # the scripted judge's faithfulness of paris_draft (one claim of two grounded): P = logistic(0) = 0.5


def run(online: OnlinePipeline) -> None:
    assert online.submit(paris_draft()) is SamplingDecision.EVALUATED
    assert online.flush(10)


def emitters(telemetry: Telemetry, tmp_path: Path, records: list[EvaluationRecord]) -> list[object]:
    return [
        OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider),
        JsonlEmitter(tmp_path / "records.jsonl"),
        CallbackEmitter(records.append),
    ]


def test_every_emitter_carries_the_probability(
    make_online: MakeOnline, telemetry: Telemetry, tmp_path: Path, calibration: Calibration
) -> None:
    records: list[EvaluationRecord] = []
    online = make_online(emitters=emitters(telemetry, tmp_path, records), calibration=calibration)
    run(online)
    (span,) = [s for s in telemetry.spans.get_finished_spans() if s.name == sc.EVALUATION_SPAN_NAME]
    attributes = dict(span.attributes or {})
    assert attributes[sc.score_attribute("faithfulness")] == HALF
    assert attributes["ragmetrics.probability.faithfulness"] == pytest.approx(0.5)
    assert sc.probability_attribute("context_recall") not in attributes  # not calibrated
    events = {
        log.log_record.attributes[sc.EVALUATION_NAME]: dict(log.log_record.attributes or {})  # type: ignore[index]
        for log in telemetry.logs.get_finished_logs()
    }
    assert events["faithfulness"]["ragmetrics.evaluation.probability"] == pytest.approx(0.5)
    assert sc.EVALUATION_PROBABILITY not in events["context_recall"]
    line = json.loads((tmp_path / "records.jsonl").read_text(encoding="utf-8"))
    assert line["scores"]["faithfulness"]["probability"] == pytest.approx(0.5)
    assert "probability" not in line["scores"]["context_recall"]
    (record,) = records
    assert record.subject is not None  # the RAG span the OTel emitter created: what Phoenix annotates
    annotations = PhoenixEmitter(base_url="http://127.0.0.1:9").annotations(record)
    by_name = {annotation["name"]: annotation for annotation in annotations}
    assert by_name["faithfulness"]["metadata"]["probability"] == pytest.approx(0.5)
    assert by_name["faithfulness"]["result"]["score"] == HALF
    assert "probability" not in by_name["context_recall"]["metadata"]


def test_without_a_calibration_no_emitter_says_probability(
    make_online: MakeOnline, telemetry: Telemetry, tmp_path: Path
) -> None:
    records: list[EvaluationRecord] = []
    run(make_online(emitters=emitters(telemetry, tmp_path, records)))
    for span in telemetry.spans.get_finished_spans():
        assert not [name for name in (span.attributes or {}) if "probability" in name]
    for log in telemetry.logs.get_finished_logs():
        assert not [name for name in (log.log_record.attributes or {}) if "probability" in name]
    assert "probability" not in (tmp_path / "records.jsonl").read_text(encoding="utf-8")
    annotations = PhoenixEmitter(base_url="http://127.0.0.1:9").annotations(records[0])
    assert all("probability" not in annotation["metadata"] for annotation in annotations)


def test_the_calibration_file_is_taken_and_the_default_evaluator_calibrated(
    telemetry: Telemetry, tmp_path: Path
) -> None:
    path = make_calibration(judge="embedded").save(tmp_path / "calibration.json")
    records: list[EvaluationRecord] = []
    online = OnlinePipeline(emitters=[CallbackEmitter(records.append)], calibration=path)
    try:
        run(online)
    finally:
        online.shutdown(5)
    (record,) = records
    entry = record.scores["faithfulness"]
    assert entry.score is not None
    assert entry.probability == pytest.approx(1 / (1 + math.exp(-(4 * entry.score - 2))))


def test_a_calibration_of_another_judge_is_refused_for_the_default_evaluator(calibration: Calibration) -> None:
    with pytest.raises(ValueError, match="fitted on judge 'scripted'"):
        OnlinePipeline(calibration=calibration)


def test_results_of_another_judge_go_out_without_a_probability(make_online: MakeOnline) -> None:
    records: list[EvaluationRecord] = []
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(name="other"), metrics=["faithfulness"]),
        emitters=[CallbackEmitter(records.append)],
        calibration=make_calibration(judge="scripted"),
    )
    try:
        run(online)
    finally:
        online.shutdown(5)
    assert records[0].scores["faithfulness"].score == HALF
    assert records[0].scores["faithfulness"].probability is None


def test_langfuse_scores_and_otel_metrics_carry_the_probability(
    calibration: Calibration, telemetry: Telemetry
) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from ragmetrics_core.online.emitters.langfuse import LangfuseEmitter
    from ragmetrics_core.online.emitters.metrics import MetricsEmitter

    records: list[EvaluationRecord] = []
    plain: list[EvaluationRecord] = []
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    metrics = MetricsEmitter(meter_provider=provider)
    for sink, given in ((records, calibration), (plain, None)):
        online = OnlinePipeline(
            Evaluator(judge=ScriptedJudge(), metrics=["faithfulness", "context_recall"]),
            emitters=[
                CallbackEmitter(sink.append), OtelEmitter(tracer_provider=telemetry.tracer_provider, log_events=False)
            ],
            calibration=given,
        )
        try:
            run(online)
        finally:
            online.shutdown(5)
    metrics.emit(records[0])
    metrics.emit(plain[0])
    points = [
        point
        for resource in reader.get_metrics_data().resource_metrics  # type: ignore[union-attr]
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == sc.METRIC_PROBABILITY
        for point in metric.data.data_points
    ]
    assert [(dict(p.attributes)[sc.EVALUATION_NAME], p.count, p.sum) for p in points] == [("faithfulness", 1, 0.5)]
    provider.shutdown()

    langfuse = LangfuseEmitter(public_key="pk", secret_key="sk", base_url="http://127.0.0.1:9")
    try:
        calibrated = {item["name"]: item for item in langfuse.scores(records[0])}
        uncalibrated = {item["name"] for item in langfuse.scores(plain[0])}
    finally:
        langfuse.shutdown(1)
    assert calibrated["faithfulness_probability"]["value"] == pytest.approx(0.5)
    assert calibrated["faithfulness_probability"]["dataType"] == "NUMERIC"
    assert "context_recall_probability" not in calibrated
    assert not [name for name in uncalibrated if name.endswith("_probability")]
