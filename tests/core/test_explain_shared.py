"""Explanations read with the metrics' own strengths (the engine's one pass) say exactly what they say alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core.evidence import Check, Claim, Evidence, Verdict
from ragmetrics_core.explain import explain
from ragmetrics_core.metrics import MetricOptions, Scoring
from ragmetrics_core.metrics.claims import chunk_relevance
from ragmetrics_core.metrics.strengths import Strengths
from ragmetrics_core.sample import RagSample
from tests.core.test_graded import graded_evidence


def _drop(evidence: Evidence, parts: list[str]) -> Evidence:
    return evidence.model_copy(update=dict.fromkeys(parts))


@settings(max_examples=200, deadline=None)
@given(
    graded_evidence(),
    st.sampled_from([Scoring.GRADED, Scoring.BINARY]),
    st.lists(st.sampled_from(["response_vs_reference", "response_vs_chunks", "reference_vs_chunks",
                              "response_vs_contexts", "reference_vs_response"]), max_size=2),
)
def test_explanations_with_the_metrics_strengths_equal_those_read_alone(
    pair: tuple[RagSample, Evidence], scoring: Scoring, dropped: list[str]
) -> None:
    sample, evidence = pair
    evidence = _drop(evidence, dropped)
    strengths = Strengths(evidence, sample, MetricOptions(scoring=scoring))
    assert explain(evidence, sample, strengths) == explain(evidence, sample)


def test_shared_strengths_that_cannot_be_derived_fall_back_to_each_claim() -> None:
    # No response claim was checked against the reference: the metrics cannot derive categories
    # (Undetermined), and the explanations still read what the chunks say of each claim.
    entailed = Check(verdict=Verdict.ENTAILED, support=0.8, rationale="stated")
    evidence = Evidence(
        response_claims=[Claim(text="a")], reference_claims=[Claim(text="g")],
        response_vs_reference=[], response_vs_chunks=[[entailed]], reference_vs_chunks=[[entailed]],
    )
    sample = RagSample(user_input="q", response="a", reference="g", retrieved_contexts=["c"])
    shared = explain(evidence, sample, Strengths(evidence, sample, MetricOptions()))
    assert shared == explain(evidence, sample)
    assert shared[0].supporting_chunks == [0] and shared[0].grounding == 0.8 and shared[0].category is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.floats(0.0, 1.0), min_size=0, max_size=5), max_size=5), st.integers(0, 5))
def test_chunk_relevance_is_the_best_strength_per_chunk_for_any_shape(rows: list[list[float]], n_chunks: int) -> None:
    # Rows of another length than n_chunks (a misshapen answer) take the general path: equal to the definition.
    if any(len(row) < n_chunks for row in rows):
        return  # the definition indexes every chunk of every row
    expected = [max((row[j] for row in rows), default=0.0) for j in range(n_chunks)]
    assert chunk_relevance(rows, n_chunks) == expected
