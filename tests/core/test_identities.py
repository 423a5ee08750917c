"""DESIGN.md's identities hold for any evidence whatsoever (hypothesis-generated)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Check, Claim, Evidence, Verdict
from ragmetrics_core.sample import RagSample
from tests.core.conftest import SubstringJudge

plain_checks = st.sampled_from([Check(verdict=v) for v in Verdict])


@st.composite
def sample_and_evidence(
    draw: st.DrawFn, checks: st.SearchStrategy[Check] = plain_checks, max_size: int = 6
) -> tuple[RagSample, Evidence]:
    """A sample and complete evidence for it: every claim list and verdict matrix, drawn from ``checks``."""
    n_r = draw(st.integers(1, max_size))
    n_g = draw(st.integers(1, max_size))
    k = draw(st.integers(1, min(5, max_size)))
    with_joint = draw(st.booleans())
    sample = RagSample(user_input="q", response="r", reference="g", retrieved_contexts=[f"c{j}" for j in range(k)])
    evidence = Evidence(
        response_claims=[Claim(text=f"r{i}") for i in range(n_r)],
        reference_claims=[Claim(text=f"g{i}") for i in range(n_g)],
        response_vs_reference=draw(st.lists(checks, min_size=n_r, max_size=n_r)),
        reference_vs_response=draw(st.lists(checks, min_size=n_g, max_size=n_g)),
        response_vs_chunks=draw(st.lists(st.lists(checks, min_size=k, max_size=k), min_size=n_r, max_size=n_r)),
        reference_vs_chunks=draw(st.lists(st.lists(checks, min_size=k, max_size=k), min_size=n_g, max_size=n_g)),
        response_vs_contexts=draw(st.lists(checks, min_size=n_r, max_size=n_r)) if with_joint else None,
        reference_vs_contexts=draw(st.lists(checks, min_size=n_g, max_size=n_g)) if with_joint else None,
    )
    return sample, evidence


METRICS = [
    "overall_precision", "overall_recall", "overall_f1", "claim_recall", "chunk_precision",
    "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge",
    "faithfulness", "context_precision", "context_recall",
]


@settings(max_examples=300, deadline=None)
@given(sample_and_evidence())
def test_identities(pair: tuple[RagSample, Evidence]) -> None:
    sample, evidence = pair
    judge = SubstringJudge()
    result = Evaluator(judge=judge, metrics=METRICS).evaluate(sample, evidence)
    assert judge.calls == [], "complete evidence must not call the judge"
    s = result.values()
    assert all(value is not None and 0.0 <= value <= 1.0 for value in s.values()), s
    assert s["faithfulness"] + s["hallucination"] + s["self_knowledge"] == pytest.approx(1.0)
    assert s["noise_sensitivity_relevant"] + s["noise_sensitivity_irrelevant"] + s["hallucination"] == pytest.approx(
        1.0 - s["overall_precision"]
    )
    assert s["claim_recall"] <= s["context_recall"] + 1e-12  # joint support can only add
    assert min(s["overall_precision"], s["overall_recall"]) <= s["overall_f1"] + 1e-12
    assert s["overall_f1"] <= max(s["overall_precision"], s["overall_recall"]) + 1e-12
    categories = [e.category for e in result.explanations if e.source == "response"]
    assert len(categories) == len(evidence.response_claims or [])
    assert categories.count("hallucination") / len(categories) == pytest.approx(s["hallucination"])
