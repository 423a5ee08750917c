"""The agreement arithmetic of benchmarks/embedded_judge.py (AUROC with ties, balanced accuracy, baseline)."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.embedded_judge import (
    _vocabulary,
    auroc,
    baseline,
    best_balanced_accuracy,
    synthetic_sample,
)
from ragmetrics_core.sample import RagSample


def test_auroc_perfect_reversed_and_tied() -> None:
    assert auroc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert auroc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    assert auroc([0.5, 0.5, 0.5, 0.5], [True, False, True, False]) == 0.5
    # one tie between a positive and a negative counts one half: (3 + 0.5) / 4
    assert auroc([0.9, 0.5, 0.5, 0.1], [True, True, False, False]) == pytest.approx(0.875)
    assert math.isnan(auroc([0.3, 0.4], [True, True]))


def test_best_balanced_accuracy() -> None:
    accuracy, threshold = best_balanced_accuracy([0.9, 0.8, 0.4, 0.1], [True, True, False, False])
    assert accuracy == 1.0
    assert 0.4 < threshold <= 0.8
    accuracy, _ = best_balanced_accuracy([0.9, 0.1, 0.9, 0.1], [True, True, False, False])
    assert accuracy == pytest.approx(0.5)


def test_baseline_share_of_content_words() -> None:
    sample = RagSample(response="The tower is tall and red.", retrieved_contexts=["A tall tower."])
    assert baseline(sample) == pytest.approx(2 / 3)
    assert baseline(RagSample(response="the and of", retrieved_contexts=["x"])) == 0.0


def test_synthetic_samples_are_reproducible() -> None:
    first_rng, second_rng = random.Random(7), random.Random(7)
    first = synthetic_sample(first_rng, _vocabulary(first_rng))
    second = synthetic_sample(second_rng, _vocabulary(second_rng))
    assert first == second
    assert len(first.retrieved_contexts) == 5
    assert all(95 <= len(context.text.split()) <= 140 for context in first.retrieved_contexts)
