"""Reading JSON out of endpoint answers and aligning items by id."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.openai.answers import read_chunk_check, read_extraction, read_text_check
from ragmetrics_core.judges.openai.client import ChatAnswer
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
    aligned = align_by_id(items, ids, read, lambda item: item.get("id"))
    assert {key: item["verdict"] for key, item in aligned.items.items()} == {"R3": "neutral", "R1": "entailed"}
    assert aligned.missing == ["R2"]
    assert any("duplicate" in note for note in aligned.notes)
    assert any("unknown id 'R9'" in note for note in aligned.notes)


def test_alignment_by_position_needs_no_ids_and_the_exact_count() -> None:
    ids = ["G1", "G2"]
    same_length = align_by_id([{"verdict": "entailed"}, {"verdict": "neutral"}], ids, read, lambda i: i.get("id"))
    assert {k: v["verdict"] for k, v in same_length.items.items()} == {"G1": "entailed", "G2": "neutral"}
    shorter = align_by_id([{"verdict": "entailed"}], ids, read, lambda i: i.get("id"))
    assert shorter.items == {} and shorter.missing == ids


def test_integer_ids_are_read_as_strings() -> None:
    aligned = align_by_id([{"id": 1, "verdict": "neutral"}], ["1"], read, lambda i: i.get("id"))
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


def _chunk_answer(claims: list[dict[str, object]], entities: list[dict[str, object]]) -> str:
    return json.dumps({"claims": claims, "entities": entities})


def test_a_whole_answer_in_loose_forms_reads_as_its_strict_form() -> None:
    """The strict form is read without the repairing functions; each loose form a model sends still reaches them
    inside an answer read whole (ids as numbers or padded, verdict synonyms and booleans), and cells that came out
    of order are placed by their ids."""
    strict = _chunk_answer(
        [
            {"id": "R1", "chunks": [{"id": "C1", "verdict": "entailed"}, {"id": "C2", "verdict": "neutral"}],
             "all_chunks": "entailed", "rationale": "C1 says so"},
            {"id": "R2", "chunks": [{"id": "C1", "verdict": "contradicted"}, {"id": "C2", "verdict": "neutral"}],
             "all_chunks": "contradicted", "rationale": ""},
        ],
        [{"id": "E1", "found": True}],
    )
    loose = _chunk_answer(
        [
            {"id": " R1 ", "chunks": [{"id": "C2", "verdict": "Not mentioned"}, {"id": "C1", "verdict": True}],
             "all_chunks": "Entailment", "rationale": "  C1 says so "},
            {"id": "R2", "chunks": [{"id": "C1", "verdict": "Contradiction."}, {"id": "C2", "verdict": "unknown"}],
             "all_chunks": "refuted"},
        ],
        [{"id": " E1", "found": True}],
    )
    read = [
        read_chunk_check(ChatAnswer(text, "stop"), ["R1", "R2"], ["E1"], ["C1", "C2"]) for text in (strict, loose)
    ]
    for rows, found in read:
        assert not rows.missing and not rows.notes and not found.missing
        assert rows.items["R1"].chunks == {"C1": Verdict.ENTAILED, "C2": Verdict.NEUTRAL}
        assert rows.items["R1"].together is Verdict.ENTAILED and rows.items["R1"].rationale == "C1 says so"
        assert rows.items["R2"].chunks == {"C1": Verdict.CONTRADICTED, "C2": Verdict.NEUTRAL}
        assert rows.items["R2"].together is Verdict.CONTRADICTED
        assert found.items == {"E1": True}
    assert read[0] == read[1]


def test_a_claim_lacking_a_chunk_cell_is_missing_not_shifted() -> None:
    answer = _chunk_answer(
        [
            {"id": "R1", "chunks": [{"id": "C2", "verdict": "entailed"}], "all_chunks": "entailed"},
            {"id": "R2", "chunks": [{"id": "C1", "verdict": "neutral"}, {"id": "C2", "verdict": "entailed"}],
             "all_chunks": "entailed"},
        ],
        [],
    )
    rows, _ = read_chunk_check(ChatAnswer(answer, "stop"), ["R1", "R2"], [], ["C1", "C2"])
    assert rows.missing == ["R1"] and any("R1 lacks verdicts for C1" in note for note in rows.notes)
    assert rows.items["R2"].chunks == {"C1": Verdict.NEUTRAL, "C2": Verdict.ENTAILED}


def test_keys_an_answer_may_leave_out_read_as_their_defaults() -> None:
    """Answers are read into typed dicts: a rationale, an id, the entities list or the set-aside pieces left out read
    as empty (no ``KeyError``), and keys the shape does not know are ignored."""
    text_answer = json.dumps({"verdicts": [{"id": "R1", "verdict": "entailed", "confidence": 0.9}]})
    verdicts, entities = read_text_check(ChatAnswer(text_answer, "stop"), ["R1"], [])
    assert verdicts.items["R1"].verdict is Verdict.ENTAILED and verdicts.items["R1"].rationale == ""
    assert not verdicts.missing and entities.items == {}

    no_entities = json.dumps({"claims": [{"id": "R1", "chunks": [{"id": "C1", "verdict": "neutral"}],
                                          "all_chunks": "neutral", "score": 3}]})
    rows, found = read_chunk_check(ChatAnswer(no_entities, "stop"), ["R1"], ["E1"], ["C1"])
    assert rows.items["R1"].rationale == "" and not rows.missing
    assert found.missing == ["E1"]  # asked for, not answered: asked again, never guessed

    no_ids = json.dumps({"claims": [{"chunks": [{"verdict": "entailed"}, {"verdict": "neutral"}],
                                     "all_chunks": "entailed", "rationale": " C1 "}]})
    rows, _ = read_chunk_check(ChatAnswer(no_ids, "stop"), ["R1"], [], ["C1", "C2"])
    assert rows.items["R1"].chunks == {"C1": Verdict.ENTAILED, "C2": Verdict.NEUTRAL}
    assert rows.items["R1"].rationale == "C1" and any("without ids" in note for note in rows.notes)

    extraction = json.dumps({"response_claims": [" Paris is in France. "], "reference_claims": [],
                             "reference_entities": [], "questions": [{"question": "Where is Paris?",
                                                                      "noncommittal": False}]})
    answer = read_extraction(ChatAnswer(extraction, "stop"), ["response_claims", "questions"])
    assert answer["response_claims"] == ["Paris is in France."] and "set_aside" not in answer


@pytest.mark.parametrize("content", ['{"claims": "R1 entailed"}', '["R1", "entailed"]', "R1: entailed", ""])
def test_a_chunk_check_of_the_wrong_shape_raises_a_format_error(content: str) -> None:
    with pytest.raises(AnswerFormatError):  # the call is asked once more with the reason
        read_chunk_check(ChatAnswer(content, "stop"), ["R1"], [], ["C1"])


@pytest.mark.parametrize("content", [
    '{"claims": [{"id": "R1", "chunks": "all neutral", "all_chunks": "neutral"}]}',
    '{"claims": [{"id": "R1", "chunks": [{"id": "C1", "verdict": "perhaps"}], "all_chunks": "neutral"}]}',
    '{"claims": [{"id": "R1", "chunks": [{"id": "C1", "verdict": "neutral"}]}]}',
    '{"claims": [null, 7, {"id": "R1"}]}',
])
def test_a_malformed_chunk_check_leaves_its_claim_missing(content: str) -> None:
    rows, found = read_chunk_check(ChatAnswer(content, "stop"), ["R1"], [], ["C1"])
    assert rows.items == {} and rows.missing == ["R1"] and found.missing == []


def test_a_malformed_extraction_raises_a_format_error() -> None:
    for content in ('{"response_claims": "Paris", "reference_claims": [], "reference_entities": [], "questions": []}',
                    '{"response_claims": [["nested"]], "questions": []}', "[]", '{"questions": [{"question": 3}]}'):
        with pytest.raises(AnswerFormatError):
            read_extraction(ChatAnswer(content, "stop"), ["response_claims"])


def test_an_unreadable_set_aside_piece_is_dropped_and_the_rest_kept() -> None:
    content = json.dumps({
        "response_claims": ["Paris is in France."], "reference_claims": [], "reference_entities": [], "questions": [],
        "set_aside": [{"source": "response", "text": "Hi!", "reason": "greeting"}, {"source": "elsewhere"}, 5],
    })
    answer = read_extraction(ChatAnswer(content, "stop"), ["response_claims"])
    assert answer.get("set_aside") == [{"source": "response", "text": "Hi!", "reason": "greeting"}]
