"""RagSample validation: clear errors for wrong types, empty input allowed, hostile text survives."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from ragmetrics_core.sample import Context, RagSample


def test_plain_strings_become_contexts_in_order() -> None:
    sample = RagSample(retrieved_contexts=["a", Context(text="b", id="7", score=0.5, metadata={"k": 1})])
    assert [c.text for c in sample.retrieved_contexts] == ["a", "b"]
    assert sample.retrieved_contexts[1].id == "7"
    assert sample.context_texts == ["a", "b"]


def test_empty_everything_is_valid() -> None:
    sample = RagSample()
    assert sample.user_input == "" and sample.response == "" and sample.retrieved_contexts == []
    assert not sample.has_reference
    assert not RagSample(reference="   ").has_reference


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"response": 42}, "response"),
        ({"user_input": ["q"]}, "user_input"),
        ({"reference": {"a": 1}}, "reference"),
        ({"retrieved_contexts": "one string"}, "retrieved_contexts"),
        ({"retrieved_contexts": [1, 2]}, "retrieved_contexts"),
        ({"retrieved_contexts": [{"txt": "typo"}]}, "retrieved_contexts"),
        ({"metadata": "x"}, "metadata"),
        ({"respnse": "typo"}, "respnse"),
    ],
)
def test_wrong_types_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        RagSample(**kwargs)  # type: ignore[arg-type]
    assert field in str(info.value)


def test_none_contexts_mean_no_contexts() -> None:
    assert RagSample(retrieved_contexts=None).retrieved_contexts == []  # type: ignore[arg-type]


def test_invalid_unicode_is_repaired_so_it_can_be_serialised() -> None:
    sample = RagSample(response="ok \udc80 bad \ud83d", retrieved_contexts=["x\udfff"])
    assert "\ufffd" in sample.response
    json.dumps(sample.model_dump())
    sample.model_dump_json().encode("utf-8")


def test_large_inputs_are_accepted() -> None:
    big = "word " * 200_000
    sample = RagSample(response=big, retrieved_contexts=[f"chunk {i}" for i in range(200)])
    assert len(sample.response) == 1_000_000
    assert len(sample.retrieved_contexts) == 200
