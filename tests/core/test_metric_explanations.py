"""One short explanation per metric, built from the claims: which claims count against it, and why."""

from __future__ import annotations

import pytest

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.explain import metric_explanations
from ragmetrics_core.metrics import METRICS

SAMPLE = RagSample(
    user_input="When was the Tower of London founded, and how tall is it?",
    retrieved_contexts=["The Tower of London was founded in 1066.", "The Eiffel Tower is 330 metres tall."],
    response="The Tower of London was founded in 1066 and is 330 metres tall.",
    reference="The Tower of London was founded in 1066. Its White Tower is 27 metres tall.",
)


def test_every_metric_gets_an_explanation_that_names_the_failing_claims() -> None:
    result = Evaluator().evaluate(SAMPLE)
    explained = metric_explanations(result)
    assert set(explained) == set(METRICS)
    assert all(explained.values())
    assert explained["overall_precision"].startswith("1 of 2 response claims not in the reference")
    assert "330" in explained["overall_precision"] and "premise says 27" in explained["overall_precision"]
    assert "27 metres" in explained["overall_recall"]
    assert "noise irrelevant" in explained["noise_sensitivity_irrelevant"] and "330" in explained[
        "noise_sensitivity_irrelevant"]
    assert explained["overall_f1"] == "harmonic mean of precision 0.50 and recall 0.50"


def test_undetermined_metrics_carry_their_reason_and_texts_left_out_are_not_quoted() -> None:
    no_reference = Evaluator().evaluate(SAMPLE.model_copy(update={"reference": None}))
    assert metric_explanations(no_reference)["overall_recall"] == "missing input: reference"
    result = Evaluator().evaluate(SAMPLE)
    blank = result.model_copy(update={
        "explanations": [claim.model_copy(update={"text": ""}) for claim in result.explanations]
    })
    assert metric_explanations(blank)["overall_precision"] == "1 of 2 response claims not in the reference"


def test_each_generator_metric_is_the_mean_of_its_category_shares() -> None:
    from ragmetrics_core.evidence import Check, Claim, Evidence, Verdict

    def graded(support: float) -> Check:
        return Check(verdict=Verdict.ENTAILED if support >= 0.5 else Verdict.NEUTRAL, support=support)

    evidence = Evidence(
        response_claims=[Claim(text="a"), Claim(text="b")],
        reference_claims=[Claim(text="g")],
        response_vs_reference=[graded(0.6), graded(0.2)],
        response_vs_chunks=[[graded(1.0), graded(0.3)], [graded(0.7), graded(0.9)]],
        reference_vs_chunks=[[graded(0.8), graded(0.1)]],
    )
    sample = RagSample(user_input="q", response="a. b.", reference="g", retrieved_contexts=["c1", "c2"])
    result = Evaluator().score(sample, evidence)
    shares = [claim.category_shares or {} for claim in result.explanations if claim.source == "response"]
    assert all(abs(sum(share.values()) - 1) < 1e-9 for share in shares)
    by_metric = {
        "noise_sensitivity_relevant": "noise_relevant", "noise_sensitivity_irrelevant": "noise_irrelevant",
        "hallucination": "hallucination", "self_knowledge": "correct_self_knowledge",
    }
    for metric, category in by_metric.items():
        mean = sum(share.get(category, 0.0) for share in shares) / len(shares)
        assert result.score(metric) == pytest.approx(mean, abs=1e-3), metric
    # The first claim is correct-and-grounded at the judge's verdicts, yet partly noise: shown, not hidden.
    first = result.explanations[0]
    assert first.category == "correct_grounded" and first.category_shares is not None
    assert set(first.category_shares) - {"correct_grounded"}


def test_self_knowledge_has_no_pass_fail_label_unless_a_threshold_is_set() -> None:
    from ragmetrics_core.metrics import MetricOptions

    result = Evaluator().evaluate(SAMPLE)
    assert result.scores["self_knowledge"].label is None
    assert result.scores["faithfulness"].label in ("pass", "fail")
    configured = Evaluator(options=MetricOptions(thresholds={"self_knowledge": 0.5})).evaluate(SAMPLE)
    assert configured.scores["self_knowledge"].label == "fail"
