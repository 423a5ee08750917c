"""The user's labels: yes/no in the usual spellings, paired with scores; the rest skipped and counted, or refused."""

from __future__ import annotations

import math

import pytest

from ragmetrics_core.calibration.fit import CalibrationDataError
from ragmetrics_core.calibration.labels import pair_labels, parse_label
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1), (0, 0), (1.0, 1), (0.0, 0), (True, 1), (False, 0),
        ("yes", 1), ("No", 0), (" TRUE ", 1), ("false", 0), ("1", 1), ("0", 0), ("pass", 1), ("FAIL", 0),
        ("y", 1), ("n", 0), (None, None), ("", None), ("  ", None), (math.nan, None),
    ],
)
def test_labels_in_the_usual_spellings(value: object, expected: int | None) -> None:
    assert parse_label(value) == expected


@pytest.mark.parametrize("value", [2, -1, 0.5, "maybe", "oui", "2", [1], {"label": 1}])
def test_anything_else_is_not_a_label(value: object) -> None:
    with pytest.raises(ValueError, match="expected"):
        parse_label(value)


def result(
    sample_id: str, score: float | None, *, judge: str = "embedded", error: str | None = None
) -> EvaluationResult:
    entry = MetricScore(metric="faithfulness", score=score, direction=Direction.HIGHER_IS_BETTER, reason="")
    return EvaluationResult(sample_id=sample_id, judge=judge, scores={"faithfulness": entry}, error=error)


def sample(sample_id: str, **metadata: object) -> RagSample:
    return RagSample(id=sample_id, user_input="q", response="a", retrieved_contexts=["c"], metadata=metadata)


def test_pairs_skip_and_count_unlabelled_failed_and_undetermined() -> None:
    samples = {
        "a": sample("a", label="yes"), "b": sample("b", label=0), "c": sample("c"), "d": sample("d", label=""),
        "e": sample("e", label=1), "f": sample("f", label="no"),
    }
    results = [
        result("a", 0.9), result("b", 0.2), result("c", 0.5), result("d", 0.4),
        result("e", None), result("f", None, error="judge failed"),
    ]
    pairs = pair_labels(results, samples, ["faithfulness"])
    assert pairs.label == "label"
    assert pairs.scores["faithfulness"] == [0.9, 0.2] and pairs.labels["faithfulness"] == [1, 0]
    assert (pairs.rows, pairs.labelled, pairs.unlabelled, pairs.failed) == (6, 4, 2, 1)
    assert pairs.undetermined["faithfulness"] == 1
    assert pairs.judges == {"embedded"}


def test_the_label_column_can_be_named_and_is_otherwise_looked_up() -> None:
    samples = {"a": sample("a", faithful="true", label="no")}
    assert pair_labels([result("a", 0.5)], samples, ["faithfulness"]).labels["faithfulness"] == [0]  # label first
    named = pair_labels([result("a", 0.5)], samples, ["faithfulness"], label="faithful")
    assert named.label == "faithful" and named.labels["faithfulness"] == [1]
    only_faithful = pair_labels([result("a", 0.5)], {"a": sample("a", faithful=1)}, ["faithfulness"])
    assert only_faithful.label == "faithful"


def test_labels_of_the_wrong_type_are_refused_naming_the_samples() -> None:
    samples = {f"s{i}": sample(f"s{i}", label=value) for i, value in enumerate(["yes", "maybe", 3, [1], "no"] * 3)}
    results = [result(sample_id, 0.5) for sample_id in samples]
    with pytest.raises(CalibrationDataError, match=r"sample s1: label expected .*'maybe'.*sample s2.*\(and 4 more\)"):
        pair_labels(results, samples, ["faithfulness"])


def test_a_nan_score_in_a_results_file_is_refused() -> None:
    with pytest.raises(CalibrationDataError, match="sample a: faithfulness score is nan"):
        pair_labels([result("a", math.nan)], {"a": sample("a", label=1)}, ["faithfulness"])


def test_a_metric_missing_from_a_result_counts_as_undetermined() -> None:
    pairs = pair_labels([result("a", 0.7)], {"a": sample("a", label=1)}, ["faithfulness", "context_recall"])
    assert pairs.undetermined == {"faithfulness": 0, "context_recall": 1}
