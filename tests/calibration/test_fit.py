"""Fitting: monotone maps, the cross-validated choice between isotonic and Platt, and the data a fit refuses."""

from __future__ import annotations

import itertools
import math

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from ragmetrics_core.calibration import Calibration, IsotonicMap, PlattMap
from ragmetrics_core.calibration.fit import (
    CalibrationDataError,
    FitSettings,
    brier,
    expected_calibration_error,
    fit_metric,
    quality,
)
from ragmetrics_core.results import Direction
from tests.calibration.conftest import logistic_data, staircase_data

GRID = [index / 200 for index in range(-20, 221)]  # beyond both ends of [0, 1] too


def probabilities(fitted: object, metric: str = "faithfulness") -> list[float]:
    calibration = Calibration(judge="j", metrics={metric: fitted})  # type: ignore[dict-item]
    values = [calibration.probability(metric, score) for score in GRID]
    assert all(value is not None for value in values)
    return [value for value in values if value is not None]


def rising(values: list[float]) -> bool:
    return all(b >= a - 1e-12 for a, b in itertools.pairwise(values))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_is_chosen_where_the_truth_is_logistic(seed: int) -> None:
    scores, labels = logistic_data(600, seed)
    fitted = fit_metric("faithfulness", scores, labels)
    assert fitted.method == "platt"
    assert fitted.cv_brier["platt"] <= fitted.cv_brier["isotonic"]
    assert isinstance(fitted.map, PlattMap) and fitted.map.slope > 0
    # Close to the curve that drew the labels (slope 6, intercept -3).
    assert abs(fitted.map.slope - 6.0) < 1.5 and abs(fitted.map.intercept + 3.0) < 0.8


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_isotonic_is_chosen_where_the_truth_is_a_staircase(seed: int) -> None:
    scores, labels = staircase_data(600, seed)
    fitted = fit_metric("faithfulness", scores, labels)
    assert fitted.method == "isotonic"
    assert fitted.cv_brier["isotonic"] < fitted.cv_brier["platt"]
    values = probabilities(fitted)
    # The plateau is read as a plateau: mid-range scores get about one half.
    middle = [value for score, value in zip(GRID, values, strict=True) if 0.35 <= score <= 0.75]
    assert all(0.35 < value < 0.65 for value in middle)


@pytest.mark.parametrize("data", [logistic_data, staircase_data])
def test_the_fitted_map_is_monotone_and_a_probability(data: object) -> None:
    scores, labels = data(400, 5)  # type: ignore[operator]
    values = probabilities(fit_metric("faithfulness", scores, labels))
    assert rising(values)
    assert all(0.0 <= value <= 1.0 for value in values)


def test_a_lower_is_better_metric_gets_a_falling_map() -> None:
    scores, labels = logistic_data(500, 3, slope=-6.0, intercept=3.0)  # more hallucination, fewer yes
    fitted = fit_metric("hallucination", scores, labels, direction=Direction.LOWER_IS_BETTER)
    values = probabilities(fitted, "hallucination")
    assert rising(values[::-1]) and values[0] > values[-1] + 0.5
    # "raw" reads 1 - score as the probability for such a metric: near the truth, so far better than the base rate.
    assert fitted.raw.brier[0] < fitted.base_rate_brier


def test_a_score_that_ranks_the_labels_backwards_gets_the_flat_base_rate_with_a_note() -> None:
    scores, labels = logistic_data(500, 4, slope=-6.0, intercept=3.0)  # faithfulness that means the opposite
    fitted = fit_metric("faithfulness", scores, labels)
    values = probabilities(fitted)
    assert rising(values)  # never backwards, whatever the data say
    assert max(values) - min(values) < 0.1
    assert all(abs(value - fitted.base_rate) < 0.1 for value in values)
    # Both candidates are flat here; on the tie Platt is kept, its slope held at 0.
    assert isinstance(fitted.map, PlattMap) and fitted.map.slope == 0.0
    assert max(values) == min(values) and "does not rank the labels" in fitted.notes[0]


def test_calibrated_figures_are_out_of_fold_and_better_than_raw_on_miscalibrated_scores() -> None:
    # Scores squeezed into [0.4, 0.6] while the truth spans 5 % to 95 %: raw is badly calibrated.
    scores, labels = logistic_data(800, 9, slope=6.0, intercept=-3.0)
    squeezed = [0.4 + 0.2 * score for score in scores]
    fitted = fit_metric("faithfulness", squeezed, labels)
    assert fitted.calibrated.brier[0] == pytest.approx(fitted.cv_brier[fitted.method])
    assert fitted.calibrated.brier[0] < fitted.raw.brier[0]
    assert fitted.calibrated.ece[0] < fitted.raw.ece[0]
    for figure in (fitted.raw.brier, fitted.raw.ece, fitted.calibrated.brier, fitted.calibrated.ece):
        value, low, high = figure
        assert low <= value <= high
    assert fitted.n == 800 and fitted.positives == sum(labels)
    assert fitted.base_rate_brier == pytest.approx(fitted.base_rate * (1 - fitted.base_rate))


def test_the_stored_isotonic_map_reads_exactly_as_scikit_learn_predicts() -> None:
    scores, labels = staircase_data(500, 11)
    fitted = fit_metric("faithfulness", scores, labels)
    assert isinstance(fitted.map, IsotonicMap)
    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, labels)
    expected = model.predict(numpy.asarray(GRID))
    assert probabilities(fitted) == pytest.approx(list(expected), abs=1e-12)


def test_too_few_samples_is_a_clear_error() -> None:
    scores, labels = logistic_data(49, 0)
    with pytest.raises(CalibrationDataError, match=r"49 labelled samples .* at least 50"):
        fit_metric("faithfulness", scores, labels, undetermined=7)
    with pytest.raises(CalibrationDataError, match="7 more had an undetermined score"):
        fit_metric("faithfulness", scores, labels, undetermined=7)
    fitted = fit_metric("faithfulness", scores, labels, settings=FitSettings(min_samples=40))
    assert fitted.n == 49


@pytest.mark.parametrize("label", [0, 1])
def test_one_class_only_is_a_clear_error(label: int) -> None:
    scores, _ = logistic_data(100, 0)
    with pytest.raises(CalibrationDataError, match=f"all 100 labels are {'yes' if label else 'no'}"):
        fit_metric("faithfulness", scores, [label] * 100)


def test_a_class_too_rare_to_cross_validate_is_a_clear_error() -> None:
    scores, _ = logistic_data(100, 0)
    labels = [1] * 97 + [0] * 3
    with pytest.raises(CalibrationDataError, match=r"only 3 samples labelled no.* at least 5 of each"):
        fit_metric("faithfulness", scores, labels)


@pytest.mark.parametrize("bad", [math.nan, math.inf, None, "0.5", True])
def test_a_score_that_is_not_a_finite_number_is_refused(bad: object) -> None:
    scores, labels = logistic_data(100, 0)
    scores = [*scores[:10], bad, *scores[11:]]  # type: ignore[list-item]
    with pytest.raises(CalibrationDataError, match=r"score #11 is .*not a finite number"):
        fit_metric("faithfulness", scores, labels)


@pytest.mark.parametrize("bad", [2, -1, 0.5, "yes", None, True])
def test_a_label_that_is_not_0_or_1_is_refused(bad: object) -> None:
    scores, labels = logistic_data(100, 0)
    labels = [*labels[:3], bad, *labels[4:]]  # type: ignore[list-item]
    with pytest.raises(CalibrationDataError, match=r"label #4 is .*not 0 or 1"):
        fit_metric("faithfulness", scores, labels)


def test_scores_and_labels_of_different_lengths_are_refused() -> None:
    with pytest.raises(CalibrationDataError, match="60 scores but 59 labels"):
        fit_metric("faithfulness", [0.5] * 60, [0, 1] * 29 + [1])


@pytest.mark.parametrize("bad", [{"folds": 1}, {"min_samples": 0}, {"resamples": 0}, {"folds": True}])
def test_bad_fit_settings_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be"):
        FitSettings(**bad)  # type: ignore[arg-type]


def test_brier_and_ece_by_hand() -> None:
    assert brier([1.0, 0.0, 0.5], [1, 0, 1]) == pytest.approx(0.25 / 3)
    # Bin 0.9–1.0 holds 0.95 twice with one yes: |1.9 - 1| / 4; bin 0.1–0.2 holds 0.15 twice with no yes: 0.3 / 4.
    assert expected_calibration_error([0.95, 0.95, 0.15, 0.15], [1, 0, 0, 0]) == pytest.approx((0.9 + 0.3) / 4)
    assert expected_calibration_error([1.0, 0.0], [1, 0]) == 0.0  # a score of exactly 1 falls in the last bin
    perfect = quality([1.0, 0.0] * 20, [1, 0] * 20, resamples=50)
    assert perfect.brier == (0.0, 0.0, 0.0) and perfect.ece == (0.0, 0.0, 0.0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=60, max_size=120),
    st.randoms(use_true_random=False),
)
def test_any_fit_is_monotone_in_the_metric_direction(scores: list[float], rng: object) -> None:
    labels = [int(rng.random() < 0.2 + 0.6 * score) for score in scores]  # type: ignore[attr-defined]
    if min(labels.count(0), labels.count(1)) < 5:
        labels[:5], labels[5:10] = [0] * 5, [1] * 5
    values = probabilities(fit_metric("faithfulness", scores, labels, settings=FitSettings(resamples=20)))
    assert rising(values) and all(0.0 <= value <= 1.0 for value in values)
