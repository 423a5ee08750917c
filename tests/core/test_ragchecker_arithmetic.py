"""RAGChecker's dataset figures to the last printed digit: numpy's pairwise mean and numpy's rounding.

RAGChecker 0.1.9 prints ``round(np.mean(values) * 100, 1)`` (ragchecker/evaluator.py); numpy is the reference
here (installed with the dev extras), never a dependency of the library.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragmetrics_core import aggregate
from ragmetrics_core.aggregate import pairwise_sum, ragchecker_figure
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.results import EvaluationResult, MetricScore


def _numpy_figure(values: list[float]) -> float:
    return float(round(np.mean(np.array(values, dtype=np.float64)) * 100, 1))


@pytest.mark.parametrize("count", [1, 2, 7, 8, 9, 16, 17, 127, 128, 129, 255, 256, 1000, 4099])
def test_pairwise_sum_is_numpys_to_the_bit(count: int) -> None:
    generator = random.Random(count)
    for _ in range(50):
        values = [generator.random() * generator.choice([1e-3, 1.0, 1e3]) for _ in range(count)]
        assert pairwise_sum(values) == float(np.add.reduce(np.array(values)))


def test_thirty_thousand_printed_figures_equal_numpys_including_ties() -> None:
    generator = random.Random(7)
    plain_mismatches = 0
    for _ in range(30_000):
        count = generator.randint(1, 40)
        # Shares of small claim counts (k/n): the per-sample values RAGChecker averages, rich in exact ties.
        values = [generator.randint(0, n) / n for n in (generator.randint(1, 8) for _ in range(count))]
        expected = _numpy_figure(values)
        assert ragchecker_figure(pairwise_sum(values) / len(values)) == expected
        plain_mismatches += round(sum(values) / len(values) * 100, 1) != expected
    assert plain_mismatches > 0  # Python's sum and round alone would miss some: the test can tell the difference


def test_aggregate_in_ragchecker_mode_counts_undetermined_as_zero_with_numpys_mean() -> None:
    spec = METRICS["faithfulness"]
    values = [0.1, None, 0.7, 1 / 3, None, 0.2, 0.9, 0.15, 0.35, 1.0]
    results = [
        EvaluationResult(
            sample_id=str(i), judge="test",
            scores={"faithfulness": MetricScore(metric="faithfulness", score=v, direction=spec.direction,
                                                reason="" if v is not None else "no claims")},
        )
        for i, v in enumerate(values)
    ]
    mean = aggregate(results, "ragchecker").means()["faithfulness"]
    assert mean == float(np.mean([v or 0.0 for v in values]))
    assert aggregate(results).means()["faithfulness"] == pytest.approx(np.mean([v for v in values if v is not None]))
