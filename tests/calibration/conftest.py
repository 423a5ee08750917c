"""Fixtures for the calibration tests: a ready calibration (no fitting needed to apply one) and labelled data."""

from __future__ import annotations

import random

import pytest

from ragmetrics_core.calibration import Calibration, IsotonicMap, MetricCalibration, PlattMap
from ragmetrics_core.calibration.model import Quality
from ragmetrics_core.results import Direction
from tests.cli.conftest import run_cli  # noqa: F401  (the CLI fixture, shared)
from tests.online.conftest import make_online, telemetry  # noqa: F401  (the online fixtures, shared)

_QUALITY = Quality(brier=(0.2, 0.1, 0.3), ece=(0.1, 0.05, 0.15))


def metric_calibration(
    score_map: IsotonicMap | PlattMap, direction: Direction = Direction.HIGHER_IS_BETTER
) -> MetricCalibration:
    return MetricCalibration(
        map=score_map, direction=direction, n=100, positives=40, folds=5, cv_brier={"isotonic": 0.2, "platt": 0.2},
        raw=_QUALITY, calibrated=_QUALITY, base_rate_brier=0.24,
    )


def make_calibration(judge: str = "scripted", **maps: IsotonicMap | PlattMap) -> Calibration:
    maps = maps or {"faithfulness": PlattMap(slope=4.0, intercept=-2.0)}
    return Calibration(judge=judge, metrics={metric: metric_calibration(m) for metric, m in maps.items()})


@pytest.fixture
def calibration() -> Calibration:
    """faithfulness → P = logistic(4 s - 2): 0.5 → 0.5, 1.0 → 0.881, 0.0 → 0.119 (for the scripted judge)."""
    return make_calibration()


def logistic_data(n: int, seed: int, slope: float = 6.0, intercept: float = -3.0) -> tuple[list[float], list[int]]:
    """Scores uniform on [0, 1], labels drawn from a logistic curve of the score: Platt's model is the truth."""
    import math

    rng = random.Random(seed)
    scores = [rng.random() for _ in range(n)]
    labels = [int(rng.random() < 1 / (1 + math.exp(-(slope * s + intercept)))) for s in scores]
    return scores, labels


def staircase_data(n: int, seed: int) -> tuple[list[float], list[int]]:
    """P(yes) is 0.1 below 0.2, 0.5 on a long plateau up to 0.9, then 0.95: no logistic curve has that shape."""
    rng = random.Random(seed)
    scores = [rng.random() for _ in range(n)]

    def truth(score: float) -> float:
        return 0.1 if score < 0.2 else 0.5 if score < 0.9 else 0.95

    labels = [int(rng.random() < truth(s)) for s in scores]
    return scores, labels
