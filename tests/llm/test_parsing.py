"""Reading JSON out of endpoint answers and aligning items by id."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragmetrics_core.judges.openai.parsing import AnswerFormatError, align_by_id, parse_json_answer, read_model
from ragmetrics_core.judges.openai.schemas import (
    CHUNK_CHECK_SCHEMA,
    EXTRACTION_SCHEMA,
    TextVerdict,
    normalize_verdict,
)


def test_plain_fenced_prose_and_think_blocks() -> None:
    assert parse_json_answer('{"a": 1}').value == {"a": 1}
    assert parse_json_answer('Sure!\n```json\n{"a": [1, 2]}\n```\nAnything else?').value == {"a": [1, 2]}
    assert parse_json_answer('<think>maybe {"a": 0}?</think>\nHere: {"a": 1} done {"b": 2}').value == {"a": 1}
    assert parse_json_answer('Notes {not json} then {"a": "x"}').value == {"a": "x"}


def test_truncated_answer_keeps_the_complete_items_only() -> None:
    parsed = parse_json_answer('{"verdicts": [{"id": "R1", "verdict": "entailed"}, {"id": "R2", "verd')
    assert parsed.repaired
    assert parsed.value == {"verdicts": [{"id": "R1", "verdict": "entailed"}, {"id": "R2"}]}
    cut_number = parse_json_answer('{"a": {"b": [1, 2')
    assert cut_number.value == {"a": {"b": [1]}}  # "2" may have been "25": dropped


@pytest.mark.parametrize("text", ["", "   ", "no json here", "{", "[1, 2, 3]", "```json\n```", '{"a": 1]}'])
def test_unreadable_answers_raise(text: str) -> None:
    with pytest.raises(AnswerFormatError):
        parse_json_answer(text)


@given(st.dictionaries(st.text(max_size=5), st.lists(st.text(max_size=8), max_size=4), max_size=4))
def test_any_prefix_of_a_json_object_parses_or_raises_cleanly(document: dict[str, list[str]]) -> None:
    text = json.dumps(document, ensure_ascii=False)
    for end in range(1, len(text) + 1):
        try:
            parsed = parse_json_answer(text[:end])
        except AnswerFormatError:
            continue
        assert isinstance(parsed.value, dict)
        for key, values in parsed.value.items():
            assert key in document and values == document[key][: len(values)]


def test_verdict_labels_models_use() -> None:
    assert normalize_verdict("Entailment") == "entailed"
    assert normalize_verdict(" Contradiction. ") == "contradicted"
    assert normalize_verdict("supported") == "entailed"
    assert normalize_verdict("Not enough info") == "neutral"
    assert normalize_verdict(True) == "entailed"
    assert normalize_verdict("perhaps") == "perhaps"  # left for validation to reject
    with pytest.raises(AnswerFormatError):
        read_model({"id": "R1", "verdict": "perhaps"}, TextVerdict)


def read(raw: object) -> TextVerdict:
    return read_model(raw, TextVerdict)


def test_alignment_by_id_detects_short_reordered_duplicate_and_unknown() -> None:
    ids = ["R1", "R2", "R3"]
    items = [
        {"id": "R3", "verdict": "neutral"},
        {"id": "R1", "verdict": "entailed"},
        {"id": "R1", "verdict": "contradicted"},
        {"id": "R9", "verdict": "entailed"},
        {"id": "R2", "verdict": "maybe"},
    ]
    aligned = align_by_id(items, ids, read, lambda item: item.id)
    assert {key: item.verdict for key, item in aligned.items.items()} == {"R3": "neutral", "R1": "entailed"}
    assert aligned.missing == ["R2"]
    assert any("duplicate" in note for note in aligned.notes)
    assert any("unknown id 'R9'" in note for note in aligned.notes)


def test_alignment_by_position_needs_no_ids_and_the_exact_count() -> None:
    ids = ["G1", "G2"]
    same_length = align_by_id([{"verdict": "entailed"}, {"verdict": "neutral"}], ids, read, lambda i: i.id)
    assert {k: v.verdict for k, v in same_length.items.items()} == {"G1": "entailed", "G2": "neutral"}
    shorter = align_by_id([{"verdict": "entailed"}], ids, read, lambda i: i.id)
    assert shorter.items == {} and shorter.missing == ids


def test_integer_ids_are_read_as_strings() -> None:
    aligned = align_by_id([{"id": 1, "verdict": "neutral"}], ["1"], read, lambda i: i.id)
    assert aligned.missing == []


def test_schemas_are_closed_for_strict_structured_output() -> None:
    def objects(node: object) -> list[dict[str, object]]:
        found: list[dict[str, object]] = []
        if isinstance(node, dict):
            if node.get("type") == "object":
                found.append(node)
            for value in node.values():
                found += objects(value)
        elif isinstance(node, list):
            for value in node:
                found += objects(value)
        return found

    for schema in (EXTRACTION_SCHEMA, CHUNK_CHECK_SCHEMA):
        for node in objects(schema):
            assert node["additionalProperties"] is False
            assert set(node["required"]) == set(node["properties"])  # type: ignore[call-overload]
