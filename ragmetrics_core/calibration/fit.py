"""Fitting a calibration on the user's labels: isotonic or Platt per metric, chosen by cross-validated Brier.

Needs scikit-learn (``pip install 'ragmetrics[calibrate]'``); applying the result does not (see ``model``).

Per metric, both candidate maps are fitted ``folds`` times (stratified folds, seeded) and scored on the fold they
did not see; the map with the lower out-of-fold Brier score wins (Platt on a tie: two parameters overfit less than
a step function) and is fitted again on every row. The figures reported as "calibrated" are those out-of-fold
probabilities, so they measure the map on labels it was not fitted on; "raw" reads the score itself as the
probability. Both come with 95 % bootstrap intervals.

Both maps are monotone in the metric's direction: a higher ``faithfulness`` never lowers P(yes), a higher
``hallucination`` never raises it. Where the score ranks the labels backwards, the best such map is flat: the base
rate (a note says so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragmetrics_core.calibration.model import Interval, IsotonicMap, MetricCalibration, PlattMap, Quality
from ragmetrics_core.results import Direction

if TYPE_CHECKING:
    import numpy

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

MIN_SAMPLES = 50
"""Labelled samples with a determined score below which a metric is not calibrated (the fit would be noise)."""
MIN_PER_CLASS = 5
"""Samples of each label a fit needs at least (and at least one per fold)."""
FOLDS = 5
RESAMPLES = 1000
ECE_BINS = 10
_TIE = 1e-9


class CalibrationDataError(ValueError):
    """The labelled data cannot support a calibration (too few samples, one class only, bad values)."""


@dataclass(frozen=True, slots=True)
class FitSettings:
    folds: int = FOLDS
    min_samples: int = MIN_SAMPLES
    resamples: int = RESAMPLES
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.folds, bool) or not isinstance(self.folds, int) or self.folds < 2:
            raise ValueError(f"folds must be an int of at least 2, got {self.folds!r}")
        if isinstance(self.min_samples, bool) or not isinstance(self.min_samples, int) or self.min_samples < 1:
            raise ValueError(f"min_samples must be a positive int, got {self.min_samples!r}")
        if isinstance(self.resamples, bool) or not isinstance(self.resamples, int) or self.resamples < 1:
            raise ValueError(f"resamples must be a positive int, got {self.resamples!r}")


def fit_metric(
    metric: str,
    scores: Sequence[float],
    labels: Sequence[int],
    *,
    direction: Direction = Direction.HIGHER_IS_BETTER,
    undetermined: int = 0,
    settings: FitSettings | None = None,
) -> MetricCalibration:
    """The calibration of one metric from determined ``scores`` and their 0/1 ``labels``.

    Raises :class:`CalibrationDataError` when there are fewer than ``settings.min_samples`` pairs, fewer than
    :data:`MIN_PER_CLASS` (and than ``folds``) of either label, or a score or label that is not a number / not 0 or 1.
    """
    np = _numpy()
    settings = settings or FitSettings()
    x, y = _checked(metric, scores, labels)
    n = len(y)
    positives = int(y.sum())
    if n < settings.min_samples:
        raise CalibrationDataError(
            f"{metric}: {n} labelled samples with a determined score; calibration needs at least "
            f"{settings.min_samples} (a map fitted on fewer is noise)"
            + (f"; {undetermined} more had an undetermined score" if undetermined else "")
        )
    if positives in (0, n):
        only = "yes" if positives else "no"
        raise CalibrationDataError(
            f"{metric}: all {n} labels are {only}: calibration needs samples of both labels to tell what a score means"
        )
    fewest = min(positives, n - positives)
    needed = max(MIN_PER_CLASS, settings.folds)
    if fewest < needed:
        rarer = "yes" if positives < n - positives else "no"
        raise CalibrationDataError(
            f"{metric}: only {fewest} samples labelled {rarer}; calibration needs at least {needed} of each label"
        )
    rising = direction is Direction.HIGHER_IS_BETTER
    out_of_fold = {method: np.empty(n) for method in ("isotonic", "platt")}
    for train, test in _folds(y, settings):
        out_of_fold["isotonic"][test] = _isotonic(x[train], y[train], rising).predict(x[test])
        out_of_fold["platt"][test] = _predict_platt(_platt(x[train], y[train], rising)[0], x[test])
    cv_brier = {method: _brier(predicted, y) for method, predicted in out_of_fold.items()}
    chosen = "isotonic" if cv_brier["isotonic"] < cv_brier["platt"] - _TIE else "platt"
    score_map: IsotonicMap | PlattMap
    if chosen == "isotonic":
        model = _isotonic(x, y, rising)
        score_map = IsotonicMap(
            x=[float(value) for value in model.X_thresholds_], y=[float(value) for value in model.y_thresholds_]
        )
        flat = max(score_map.y) - min(score_map.y) < _TIE
    else:
        score_map, flat = _platt(x, y, rising)
    notes = [
        f"the score does not rank the labels the way {metric} should ({direction.value}) on this data: the best "
        "monotone map is flat, the base rate"
    ] if flat else []
    raw = x if rising else 1.0 - x
    raw_quality = quality(np.clip(raw, 0.0, 1.0), y, resamples=settings.resamples, seed=settings.seed)
    calibrated_quality = quality(out_of_fold[chosen], y, resamples=settings.resamples, seed=settings.seed)
    base_rate = positives / n
    return MetricCalibration(
        map=score_map,
        direction=direction,
        n=n,
        positives=positives,
        undetermined=undetermined,
        folds=settings.folds,
        cv_brier=cv_brier,
        raw=raw_quality,
        calibrated=calibrated_quality,
        base_rate_brier=base_rate * (1.0 - base_rate),
        notes=notes,
    )


def brier(probabilities: Sequence[float], labels: Sequence[int]) -> float:
    """Mean squared difference between the probabilities and the 0/1 labels."""
    np = _numpy()
    return _brier(np.asarray(probabilities, dtype=float), np.asarray(labels, dtype=float))


def expected_calibration_error(probabilities: Sequence[float], labels: Sequence[int], bins: int = ECE_BINS) -> float:
    """ECE over ``bins`` equal-width bins of [0, 1]: the row-weighted mean gap between mean probability and the
    share of yes-labels in each bin."""
    np = _numpy()
    return _ece(np.asarray(probabilities, dtype=float), np.asarray(labels, dtype=float), bins)


def quality(
    probabilities: Sequence[float] | numpy.ndarray,
    labels: Sequence[int] | numpy.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Quality:
    """Brier score and ECE with 95 % intervals from ``resamples`` bootstrap resamples of the rows. The resamples
    depend on ``seed`` and the row count only, so two probability sets for the same rows are compared on the same
    resamples."""
    np = _numpy()
    p = np.asarray(probabilities, dtype=float)
    y = np.asarray(labels, dtype=float)
    rng = np.random.default_rng(seed)
    briers, eces = np.empty(resamples), np.empty(resamples)
    for draw in range(resamples):
        rows = rng.integers(0, len(y), len(y))
        briers[draw] = _brier(p[rows], y[rows])
        eces[draw] = _ece(p[rows], y[rows])

    def interval(value: float, values: numpy.ndarray) -> Interval:
        low, high = np.quantile(values, [0.025, 0.975])
        return value, float(low), float(high)

    return Quality(brier=interval(_brier(p, y), briers), ece=interval(_ece(p, y), eces))


# ---------------------------------------------------------------------- internals


def _numpy() -> Any:
    try:
        import numpy
        import sklearn  # noqa: F401  (checked here so the error names the extra once)
    except ImportError:
        raise ImportError(
            "fitting a calibration needs scikit-learn: pip install 'ragmetrics[calibrate]' (applying one does not)"
        ) from None
    return numpy


def _checked(metric: str, scores: Sequence[float], labels: Sequence[int]) -> tuple[numpy.ndarray, numpy.ndarray]:
    np = _numpy()
    if len(scores) != len(labels):
        raise CalibrationDataError(f"{metric}: {len(scores)} scores but {len(labels)} labels")
    for index, score in enumerate(scores):
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise CalibrationDataError(f"{metric}: score #{index + 1} is {score!r}, not a finite number")
    for index, label in enumerate(labels):
        if isinstance(label, bool) or label not in (0, 1):
            raise CalibrationDataError(f"{metric}: label #{index + 1} is {label!r}, not 0 or 1")
    return np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)


def _folds(y: numpy.ndarray, settings: FitSettings) -> Any:
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_splits=settings.folds, shuffle=True, random_state=settings.seed)
    return splitter.split(y.reshape(-1, 1), y)


def _isotonic(x: numpy.ndarray, y: numpy.ndarray, rising: bool) -> Any:
    from sklearn.isotonic import IsotonicRegression

    model = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=rising, out_of_bounds="clip")
    return model.fit(x, y)


def _platt(x: numpy.ndarray, y: numpy.ndarray, rising: bool) -> tuple[PlattMap, bool]:
    """Platt's fit: a logistic regression on the score against smoothed targets (Platt 1999: (N+ + 1)/(N+ + 2) for
    yes, 1/(N- + 2) for no, so that separable data still gives finite parameters), unpenalised. The target smoothing
    is a weighted pair of rows per sample. Returns the map and whether the slope had to be flattened to keep it
    monotone in the metric's direction."""
    np = _numpy()
    from sklearn.linear_model import LogisticRegression

    positives = float(y.sum())
    negatives = float(len(y) - positives)
    targets = np.where(y == 1, (positives + 1) / (positives + 2), 1 / (negatives + 2))
    features = np.concatenate([x, x]).reshape(-1, 1)
    outcomes = np.concatenate([np.ones(len(x)), np.zeros(len(x))])
    weights = np.concatenate([targets, 1 - targets])
    model = LogisticRegression(C=np.inf, max_iter=1000).fit(features, outcomes, sample_weight=weights)
    slope, intercept = float(model.coef_[0][0]), float(model.intercept_[0])
    if (slope < 0) if rising else (slope > 0):
        # The likelihood is concave in the slope, so under the monotone constraint its best is at slope 0, where
        # the best intercept is the smoothed base rate's logit.
        rate = float(targets.mean())
        return PlattMap(slope=0.0, intercept=math.log(rate / (1 - rate))), True
    return PlattMap(slope=slope, intercept=intercept), False


def _predict_platt(score_map: PlattMap, x: numpy.ndarray) -> numpy.ndarray:
    np = _numpy()
    predicted: numpy.ndarray = 1.0 / (1.0 + np.exp(-(score_map.slope * x + score_map.intercept)))
    return predicted


def _brier(probabilities: numpy.ndarray, labels: numpy.ndarray) -> float:
    return float(((probabilities - labels) ** 2).mean())


def _ece(probabilities: numpy.ndarray, labels: numpy.ndarray, bins: int = ECE_BINS) -> float:
    # Per bin, count * |mean probability - share of yes| is |sum of probabilities - number of yes|.
    np = _numpy()
    which = np.minimum((probabilities * bins).astype(int), bins - 1)
    predicted = np.bincount(which, weights=probabilities, minlength=bins)
    observed = np.bincount(which, weights=labels, minlength=bins)
    return float(np.abs(predicted - observed).sum() / len(labels))
