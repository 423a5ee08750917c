"""Each formula against a case worked out by hand."""

from __future__ import annotations

import pytest

from ragmetrics_core.evidence import Check, Verdict
from ragmetrics_core.metrics import formulas
from ragmetrics_core.metrics.claims import (
    ClaimCategory,
    categorize,
    category_measures,
    chunk_relevance,
    strength_reader,
    strengths_of,
)
from ragmetrics_core.metrics.options import Scoring

E = Check(verdict=Verdict.ENTAILED)
N = Check(verdict=Verdict.NEUTRAL)
C = Check(verdict=Verdict.CONTRADICTED)


def test_shares() -> None:
    assert formulas.overall_precision([True, False, True, True]) == 0.75
    assert formulas.overall_recall([False, False]) == 0.0
    assert formulas.claim_recall([True]) == 1.0
    assert formulas.chunk_precision([True, False, False]) == pytest.approx(1 / 3)
    assert formulas.faithfulness([True, True, False]) == pytest.approx(2 / 3)
    assert formulas.entity_recall([True, False, False, False]) == 0.25


def test_f1_is_zero_when_either_side_is_zero() -> None:
    assert formulas.f1(0.0, 1.0) == 0.0
    assert formulas.f1(1.0, 0.0) == 0.0
    assert formulas.f1(0.5, 0.5) == 0.5
    assert formulas.f1(0.8, 0.75) == pytest.approx(2 * 0.8 * 0.75 / 1.55)


def test_context_utilization_reads_only_grounded_reference_claims() -> None:
    # grounded: g0, g2; recalled among them: g2 only → 1/2 (g1 is recalled but not grounded)
    assert formulas.context_utilization([True, False, True], [False, True, True]) == 0.5
    assert formulas.context_utilization([False, False], [True, True]) is None


@pytest.mark.parametrize(
    ("useful", "expected"),
    [
        ([True, True, True], 1.0),
        ([False, True, True], (1 / 2 + 2 / 3) / 2),  # the Java suite's "poor ordering" shape
        ([True, False, True], (1 + 2 / 3) / 2),
        ([False, False, False], 0.0),
        ([False, False, True], 1 / 3),
    ],
)
def test_average_precision(useful: list[bool], expected: float) -> None:
    assert formulas.average_precision(useful) == pytest.approx(expected)


def test_response_relevancy_is_zero_when_noncommittal_and_clamped() -> None:
    assert formulas.response_relevancy([0.9, 0.8, 1.0], noncommittal=True) == 0.0
    assert formulas.response_relevancy([0.9, 0.6, 0.9], noncommittal=False) == pytest.approx(0.8)
    assert formulas.response_relevancy([-0.5, -0.5], noncommittal=False) == 0.0


def test_relevant_chunks_need_an_entailed_reference_claim() -> None:
    matrix = [[E, N, C], [N, N, C]]
    assert chunk_relevance([strengths_of(row, strength_reader(Scoring.BINARY)) for row in matrix], 3) == [1.0, 0.0, 0.0]


def _verdicts(checks: list[Check]) -> list[float]:
    return [1.0 if check.entailed else 0.0 for check in checks]


@pytest.mark.parametrize(
    ("correct", "row", "joint", "relevant", "expected"),
    [
        (True, [E, N], None, [True, False], ClaimCategory.CORRECT_GROUNDED),
        (True, [N, N], None, [True, False], ClaimCategory.CORRECT_SELF_KNOWLEDGE),
        (True, [N, N], E, [True, False], ClaimCategory.CORRECT_GROUNDED),
        (False, [E, E], None, [True, False], ClaimCategory.NOISE_RELEVANT),
        (False, [N, E], None, [True, False], ClaimCategory.NOISE_IRRELEVANT),
        (False, [N, N], None, [True, False], ClaimCategory.HALLUCINATION),
        (False, [C, C], None, [True, False], ClaimCategory.HALLUCINATION),
        (False, [N, N], E, [True, False], ClaimCategory.NOISE_RELEVANT),
        (False, [N, N], E, [False, False], ClaimCategory.NOISE_IRRELEVANT),
        (False, [N, N], N, [True, True], ClaimCategory.HALLUCINATION),
    ],
)
def test_categorize(
    correct: bool, row: list[Check], joint: Check | None, relevant: list[bool], expected: ClaimCategory
) -> None:
    joint_strength = None if joint is None else _verdicts([joint])[0]
    relevance = [float(flag) for flag in relevant]
    assert categorize(float(correct), _verdicts(row), joint_strength, relevance) is expected
    measures = category_measures(float(correct), _verdicts(row), joint_strength, relevance)
    assert measures == {category: float(category is expected) for category in ClaimCategory}
