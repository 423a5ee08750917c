"""One short explanation per metric, built from the claims: which claims count against it, and why."""

from __future__ import annotations

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
