"""``builder(Model)`` builds exactly what ``Model(**fields)`` builds, with the same validation."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Check, Claim, Verdict
from ragmetrics_core.results import ClaimExplanation, Direction, MetricScore


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (MetricScore, {"metric": "faithfulness", "score": 0.5, "direction": Direction.HIGHER_IS_BETTER,
                       "reason": "", "label": "pass", "threshold": 0.5}),
        (MetricScore, {"metric": "hallucination", "score": None, "direction": "lower_is_better"}),
        (ClaimExplanation, {"source": "response", "index": 0, "text": "Paris is in France",
                            "against_reference": Verdict.ENTAILED, "supporting_chunks": [0, 2],
                            "contradicting_chunks": [], "supported_by_contexts_jointly": True,
                            "grounding": 0.75, "category": "correct_grounded", "rationale": None}),
        (Claim, {"text": "Paris is in France"}),
        (Check, {"verdict": Verdict.NEUTRAL, "confidence": 0.5, "rationale": "x", "support": 0.2}),
    ],
)
def test_builder_gives_the_models_own_instance(model: type[BaseModel], fields: dict[str, Any]) -> None:
    built = builder(model)(fields)
    reference = model(**fields)
    assert type(built) is model
    assert built == reference
    assert built.model_fields_set == reference.model_fields_set
    assert built.model_dump_json() == reference.model_dump_json()


def test_builder_validates_like_the_constructor() -> None:
    with pytest.raises(ValidationError, match="contradicts the verdict"):
        builder(Check)({"verdict": Verdict.ENTAILED, "support": 0.2})
    with pytest.raises(ValidationError):
        builder(MetricScore)({"metric": "faithfulness", "score": "high", "direction": "sideways"})
    with pytest.raises(ValidationError):
        builder(Claim)({"text": None})
