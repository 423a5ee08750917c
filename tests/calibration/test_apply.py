"""Applying a calibration: the Evaluator, batch runs and their results files, and the report; nothing changes
without one."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from ragmetrics_core.batch import evaluate_file, results_to_pandas
from ragmetrics_core.calibration import Calibration, PlattMap
from ragmetrics_core.calibration.apply import CalibratedEvaluator
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.formats.results_io import read_results
from ragmetrics_core.metrics import MetricOptions, Scoring
from ragmetrics_core.report.html import render_report
from ragmetrics_core.sample import RagSample
from tests.calibration.conftest import make_calibration
from tests.online.judges import ScriptedJudge

METRICS = ["faithfulness", "context_recall"]
FAITHFUL = RagSample(
    id="good", user_input="Where is Paris?", retrieved_contexts=["Paris is in France."],
    response="Paris is in France.", reference="Paris is in France.",
)
HALF = RagSample(
    id="half", user_input="Where is Paris?", retrieved_contexts=["Paris is in France."],
    response="Paris is in France. Paris has ten million cats.", reference="Paris is in France.",
)


def logistic(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_the_evaluator_adds_a_probability_beside_each_calibrated_score(calibration: Calibration) -> None:
    evaluator = Evaluator(judge=ScriptedJudge(), metrics=METRICS, calibration=calibration)
    good, half = evaluator.evaluate(FAITHFUL), evaluator.evaluate(HALF)
    assert good.scores["faithfulness"].score == 1.0 and half.scores["faithfulness"].score == 0.5
    assert good.scores["faithfulness"].probability == pytest.approx(logistic(2.0))
    assert half.scores["faithfulness"].probability == pytest.approx(0.5)
    assert good.scores["context_recall"].probability is None  # not calibrated
    dumped = good.model_dump(mode="json")["scores"]
    assert dumped["faithfulness"]["probability"] == pytest.approx(logistic(2.0))
    assert "probability" not in dumped["context_recall"]


def test_the_evaluator_takes_the_calibration_file_too(calibration: Calibration, tmp_path: Path) -> None:
    path = calibration.save(tmp_path / "calibration.json")
    evaluator = Evaluator(judge=ScriptedJudge(), metrics=METRICS, calibration=str(path))
    assert evaluator.evaluate(FAITHFUL).scores["faithfulness"].probability == pytest.approx(logistic(2.0))


def test_without_a_calibration_results_serialise_as_before() -> None:
    result = Evaluator(judge=ScriptedJudge(), metrics=METRICS).evaluate(FAITHFUL)
    for entry in result.model_dump(mode="json")["scores"].values():
        assert set(entry) == {"metric", "score", "direction", "reason", "label", "threshold"}
    assert '"probability"' not in result.model_dump_json()


def test_a_calibration_of_another_judge_or_scoring_is_refused(calibration: Calibration) -> None:
    with pytest.raises(ValueError, match="fitted on judge 'scripted', this evaluator's judge is 'embedded'"):
        Evaluator(metrics=METRICS, calibration=calibration)
    with pytest.raises(ValueError, match="fitted on graded scores, this evaluator scores binary"):
        Evaluator(judge=ScriptedJudge(), options=MetricOptions(scoring=Scoring.BINARY), calibration=calibration)


def test_a_result_of_another_judge_is_left_without_probabilities(
    calibration: Calibration, caplog: pytest.LogCaptureFixture
) -> None:
    other = Evaluator(judge=ScriptedJudge(name="other"), metrics=METRICS).evaluate(FAITHFUL)
    assert calibration.apply(other) is other
    assert "not applied to a result of judge 'other'" in caplog.text


async def test_a_calibrated_evaluator_wraps_any_evaluator(calibration: Calibration) -> None:
    wrapped = CalibratedEvaluator(Evaluator(judge=ScriptedJudge(), metrics=METRICS), calibration)
    assert list(wrapped.metrics) == METRICS
    result = await wrapped.aevaluate(HALF)
    assert result.scores["faithfulness"].probability == pytest.approx(0.5)


def rows(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(json.dumps(sample.model_dump(mode="json")) + "\n" for sample in (FAITHFUL, HALF)), encoding="utf-8"
    )
    return path


def test_a_batch_run_writes_probabilities_to_jsonl_and_csv_and_reads_them_back(
    calibration: Calibration, tmp_path: Path
) -> None:
    source = rows(tmp_path)
    for name in ("out.jsonl", "out.csv"):
        out = tmp_path / name
        run = evaluate_file(source, out=out, judge=ScriptedJudge(), metrics=METRICS, calibration=calibration)
        assert [r.scores["faithfulness"].probability for r in run.results] == pytest.approx([logistic(2.0), 0.5])
        stored = read_results(out)
        assert stored.rows["good"].result.scores["faithfulness"].probability == pytest.approx(logistic(2.0))
        assert stored.rows["good"].result.scores["context_recall"].probability is None
    with (tmp_path / "out.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert "faithfulness_probability" in table[0] and "context_recall_probability" not in table[0]
    assert float(table[1]["faithfulness_probability"]) == pytest.approx(0.5)
    first = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["scores"]["faithfulness"]["probability"] == pytest.approx(logistic(2.0))
    assert "probability" not in first["scores"]["context_recall"]


def test_without_a_calibration_the_results_files_are_unchanged(tmp_path: Path) -> None:
    source = rows(tmp_path)
    evaluate_file(source, out=tmp_path / "out.csv", judge=ScriptedJudge(), metrics=METRICS)
    evaluate_file(source, out=tmp_path / "out.jsonl", judge=ScriptedJudge(), metrics=METRICS)
    header = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "probability" not in header
    assert "probability" not in (tmp_path / "out.jsonl").read_text(encoding="utf-8")


def test_rows_resumed_from_an_uncalibrated_run_get_probabilities_in_the_run(
    calibration: Calibration, tmp_path: Path
) -> None:
    source, out = rows(tmp_path), tmp_path / "out.jsonl"
    evaluate_file(source, out=out, judge=ScriptedJudge(), metrics=METRICS)
    judge = ScriptedJudge()
    run = evaluate_file(source, out=out, judge=judge, metrics=METRICS, calibration=calibration)
    assert run.resumed == 2 and judge.calls == 0
    assert [r.scores["faithfulness"].probability for r in run.results] == pytest.approx([logistic(2.0), 0.5])


def test_the_report_shows_the_probability_only_when_there_is_one(calibration: Calibration) -> None:
    calibrated = Evaluator(judge=ScriptedJudge(), metrics=METRICS, calibration=calibration).evaluate(FAITHFUL)
    plain = Evaluator(judge=ScriptedJudge(), metrics=METRICS).evaluate(FAITHFUL)
    page = render_report([calibrated], samples={"good": FAITHFUL})
    assert "P(yes)</th>" in page and f"{logistic(2.0):.3f}" in page and "<small>p 0.88</small>" in page
    page = render_report([plain], samples={"good": FAITHFUL})
    assert "P(yes)" not in page and "<small>p " not in page


def test_a_calibration_for_two_metrics_calibrates_both() -> None:
    calibration = make_calibration(
        faithfulness=PlattMap(slope=4.0, intercept=-2.0), context_recall=PlattMap(slope=2.0, intercept=0.0)
    )
    result = Evaluator(judge=ScriptedJudge(), metrics=METRICS, calibration=calibration).evaluate(FAITHFUL)
    recall = result.scores["context_recall"]
    assert recall.score == 1.0 and recall.probability == pytest.approx(logistic(2.0))


def test_to_pandas_has_a_probability_column_for_calibrated_metrics_only(calibration: Calibration) -> None:
    calibrated = Evaluator(judge=ScriptedJudge(), metrics=METRICS, calibration=calibration)
    frame = results_to_pandas([calibrated.evaluate(FAITHFUL), calibrated.evaluate(HALF)])
    assert list(frame["faithfulness_probability"]) == pytest.approx([logistic(2.0), 0.5])
    assert "context_recall_probability" not in frame.columns
    plain = results_to_pandas([Evaluator(judge=ScriptedJudge(), metrics=METRICS).evaluate(FAITHFUL)])
    assert not [column for column in plain.columns if column.endswith("_probability")]


def test_the_one_call_api_takes_a_calibration_file(calibration: Calibration, tmp_path: Path) -> None:
    from ragmetrics_core import evaluate

    path = calibration.save(tmp_path / "calibration.json")
    run = evaluate([FAITHFUL, HALF], judge=ScriptedJudge(), metrics=METRICS, calibration=path)
    assert [r.scores["faithfulness"].probability for r in run.results] == pytest.approx([logistic(2.0), 0.5])


def test_resuming_a_csv_written_without_probabilities_with_a_calibration_is_refused_clearly(
    calibration: Calibration, tmp_path: Path
) -> None:
    from ragmetrics_core.formats import InputError

    source, out = rows(tmp_path), tmp_path / "out.csv"
    evaluate_file(source, out=out, judge=ScriptedJudge(), metrics=METRICS)
    with pytest.raises(InputError, match="calibration added or dropped"):
        evaluate_file(source, out=out, judge=ScriptedJudge(), metrics=METRICS, calibration=calibration)
