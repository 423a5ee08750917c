"""Graded scores: every metric is its binary value averaged over the judge's strictness τ ∈ (0, 1].

The closed forms (max/min of strengths, the per-claim category measures, the level integration of F1, ratios and
average precision) are checked against that definition computed by brute force: for every level τ the evidence is
turned into plain verdicts (entailed iff support ≥ τ), scored in binary mode, and the results integrated over τ.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Check, Evidence, Verdict
from ragmetrics_core.metrics import MetricOptions, Scoring
from ragmetrics_core.metrics.claims import ClaimCategory, categorize, category_measures
from ragmetrics_core.metrics.formulas import f1, over_levels
from ragmetrics_core.sample import RagSample
from tests.core.conftest import SubstringJudge
from tests.core.test_identities import sample_and_evidence

GRADED = MetricOptions(scoring=Scoring.GRADED)
BINARY = MetricOptions(scoring=Scoring.BINARY)
VERDICT_METRICS = [
    "overall_precision", "overall_recall", "overall_f1", "claim_recall", "chunk_precision", "context_utilization",
    "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge",
    "faithfulness", "context_precision", "context_recall",
]
# Strengths on a coarse grid so that ties between checks (the interesting case for the intervals) are common.
_GRID = [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0]


@st.composite
def graded_checks(draw: st.DrawFn) -> Check:
    support = draw(st.one_of(st.none(), st.sampled_from(_GRID)))
    if support is None:
        return Check(verdict=draw(st.sampled_from(list(Verdict))))
    if support >= 0.5:
        return Check(verdict=Verdict.ENTAILED, support=support)
    return Check(verdict=draw(st.sampled_from([Verdict.NEUTRAL, Verdict.CONTRADICTED])), support=support)


def graded_evidence() -> st.SearchStrategy[tuple[RagSample, Evidence]]:
    return sample_and_evidence(checks=graded_checks(), max_size=4)


def _at_level(check: Check, level: float) -> Check:
    return Check(verdict=Verdict.ENTAILED if check.strength >= level else Verdict.NEUTRAL)


def _evidence_at_level(evidence: Evidence, level: float) -> Evidence:
    def row(checks: list[Check] | None) -> list[Check] | None:
        return None if checks is None else [_at_level(check, level) for check in checks]

    def matrix(rows: list[list[Check]] | None) -> list[list[Check]] | None:
        return None if rows is None else [[_at_level(check, level) for check in r] for r in rows]

    return evidence.model_copy(update={
        "response_vs_reference": row(evidence.response_vs_reference),
        "reference_vs_response": row(evidence.reference_vs_response),
        "response_vs_chunks": matrix(evidence.response_vs_chunks),
        "reference_vs_chunks": matrix(evidence.reference_vs_chunks),
        "response_vs_contexts": row(evidence.response_vs_contexts),
        "reference_vs_contexts": row(evidence.reference_vs_contexts),
    })


def _scores(sample: RagSample, evidence: Evidence, options: MetricOptions) -> dict[str, float | None]:
    judge = SubstringJudge()
    values = Evaluator(judge=judge, metrics=VERDICT_METRICS, options=options).evaluate(sample, evidence).values()
    assert judge.calls == [], "complete evidence must not call the judge"
    return values


@settings(max_examples=200, deadline=None)
@given(graded_evidence())
def test_graded_scores_are_binary_scores_averaged_over_strictness(pair: tuple[RagSample, Evidence]) -> None:
    sample, evidence = pair
    graded = _scores(sample, evidence, GRADED)
    # Brute force: between two consecutive grid values no check changes, so each interval is one binary run.
    levels = [level for level in _GRID if level > 0]
    totals: dict[str, float] = dict.fromkeys(VERDICT_METRICS, 0.0)
    determined: dict[str, float] = dict.fromkeys(VERDICT_METRICS, 0.0)
    lower = 0.0
    for level in levels:
        binary = _scores(sample, _evidence_at_level(evidence, level), BINARY)
        for metric, value in binary.items():
            if value is not None:
                totals[metric] += value * (level - lower)
                determined[metric] += level - lower
        lower = level
    averaged = {metric: totals[metric] / determined[metric] if determined[metric] else None for metric in totals}
    precision, recall = averaged.get("overall_precision"), averaged.get("overall_recall")
    if "overall_f1" in averaged:
        # F1 is not averaged over τ: it is the harmonic mean of the precision and recall shown beside it.
        averaged["overall_f1"] = None if precision is None or recall is None else f1(precision, recall)
    for metric in VERDICT_METRICS:
        expected = averaged[metric]
        if expected is None:
            assert graded[metric] is None, metric
        else:
            assert graded[metric] == pytest.approx(expected, abs=1e-9), metric


@settings(max_examples=200, deadline=None)
@given(graded_evidence())
def test_identities_hold_for_graded_scores(pair: tuple[RagSample, Evidence]) -> None:
    sample, evidence = pair
    s = _scores(sample, evidence, GRADED)
    assert all(value is None or 0.0 <= value <= 1.0 for value in s.values()), s
    assert s["faithfulness"] is not None and s["hallucination"] is not None and s["self_knowledge"] is not None
    assert s["faithfulness"] + s["hallucination"] + s["self_knowledge"] == pytest.approx(1.0)
    assert s["noise_sensitivity_relevant"] is not None and s["noise_sensitivity_irrelevant"] is not None
    assert s["overall_precision"] is not None
    assert s["noise_sensitivity_relevant"] + s["noise_sensitivity_irrelevant"] + s["hallucination"] == pytest.approx(
        1.0 - s["overall_precision"]
    )


@settings(max_examples=200, deadline=None)
@given(graded_evidence())
def test_binary_scoring_reads_the_verdicts_only(pair: tuple[RagSample, Evidence]) -> None:
    sample, evidence = pair
    plain = _evidence_at_level(evidence.model_copy(), 0.5)  # the verdicts, supports dropped
    assert _scores(sample, evidence, BINARY) == _scores(sample, plain, BINARY) == _scores(sample, plain, GRADED)


@settings(max_examples=300, deadline=None)
@given(
    correct=st.sampled_from([0.0, 1.0]),
    chunks=st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=4),
    joint=st.one_of(st.none(), st.sampled_from([0.0, 1.0])),
    data=st.data(),
)
def test_category_measures_of_plain_verdicts_follow_ragcheckers_rule(
    correct: float, chunks: list[float], joint: float | None, data: st.DataObject
) -> None:
    relevance = data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=len(chunks), max_size=len(chunks)))
    expected = _category_by_rule(bool(correct), [bool(s) for s in chunks], None if joint is None else bool(joint),
                                 [bool(r) for r in relevance])
    assert category_measures(correct, chunks, joint, relevance) == {
        category: 1.0 if category is expected else 0.0 for category in ClaimCategory
    }
    assert categorize(correct, chunks, joint, relevance) is expected


def _category_by_rule(
    correct: bool, entailed_by: list[bool], joint: bool | None, relevant: list[bool]
) -> ClaimCategory:
    """The category rule written out on plain verdicts, independently of the interval code it checks."""
    by_relevant = any(e and r for e, r in zip(entailed_by, relevant, strict=True))
    by_irrelevant = any(e and not r for e, r in zip(entailed_by, relevant, strict=True))
    grounded = by_relevant or by_irrelevant or bool(joint)
    if correct:
        return ClaimCategory.CORRECT_GROUNDED if grounded else ClaimCategory.CORRECT_SELF_KNOWLEDGE
    if by_relevant:
        return ClaimCategory.NOISE_RELEVANT
    if by_irrelevant:
        return ClaimCategory.NOISE_IRRELEVANT
    if grounded:
        return ClaimCategory.NOISE_RELEVANT if any(relevant) else ClaimCategory.NOISE_IRRELEVANT
    return ClaimCategory.HALLUCINATION


def test_category_measures_split_the_levels() -> None:
    # Correct up to 0.3; chunk 0 (relevant up to 0.6) supports it up to 0.8; chunk 1 (irrelevant) up to 0.9.
    measures = category_measures(0.3, [0.8, 0.9], None, [0.6, 0.0])
    assert measures[ClaimCategory.CORRECT_GROUNDED] == pytest.approx(0.3)
    assert measures[ClaimCategory.NOISE_RELEVANT] == pytest.approx(0.3)  # (0.3, 0.6]: a relevant chunk entails it
    assert measures[ClaimCategory.NOISE_IRRELEVANT] == pytest.approx(0.3)  # (0.6, 0.9]: only irrelevant ones
    assert measures[ClaimCategory.HALLUCINATION] == pytest.approx(0.1)
    assert measures[ClaimCategory.CORRECT_SELF_KNOWLEDGE] == 0.0


def test_over_levels_averages_where_determined() -> None:
    assert over_levels([], lambda level: 0.5) == 0.5
    assert over_levels([0.25, 0.75], lambda level: 1.0 if level <= 0.25 else 0.0) == pytest.approx(0.25)
    assert over_levels([0.4], lambda level: 1.0 if level <= 0.4 else None) == 1.0
    assert over_levels([0.4], lambda level: None) is None


def test_support_must_agree_with_the_verdict() -> None:
    assert Check(verdict=Verdict.ENTAILED, support=0.5).strength == 0.5
    assert Check(verdict=Verdict.NEUTRAL, support=0.49).strength == 0.49
    assert Check(verdict=Verdict.CONTRADICTED).strength == 0.0
    assert Check(verdict=Verdict.ENTAILED).strength == 1.0
    with pytest.raises(ValidationError, match="contradicts the verdict 'entailed'"):
        Check(verdict=Verdict.ENTAILED, support=0.3)
    with pytest.raises(ValidationError, match="contradicts the verdict 'neutral'"):
        Check(verdict=Verdict.NEUTRAL, support=0.5)
    with pytest.raises(ValidationError):
        Check(verdict=Verdict.ENTAILED, support=1.5)


def test_scoring_option_is_validated() -> None:
    assert MetricOptions().scoring is Scoring.GRADED
    assert MetricOptions(scoring="binary").scoring is Scoring.BINARY  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        MetricOptions(scoring="fuzzy")  # type: ignore[arg-type]
