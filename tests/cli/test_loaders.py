"""Reading samples: formats, column mapping, ids, and errors that say where and what."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ragmetrics_core.formats import InputError, LoadedSample, RowError, iter_samples, load_samples, parse_column_mapping
from tests.cli.conftest import good_row, write_jsonl


def _split(rows: list[LoadedSample | RowError]) -> tuple[list[LoadedSample], list[RowError]]:
    return [r for r in rows if isinstance(r, LoadedSample)], [r for r in rows if isinstance(r, RowError)]


def test_jsonl_ragas_columns_with_context_objects_and_extra_columns(tmp_path: Path) -> None:
    row = {
        "user_input": "Q?",
        "retrieved_contexts": ["plain", {"doc_id": 7, "text": "object", "score": 0.5, "url": "u"}],
        "response": "A.",
        "reference": "R.",
        "category": "geo",
    }
    [loaded] = load_samples(write_jsonl(tmp_path / "in.jsonl", [row]))
    assert loaded.user_input == "Q?" and loaded.response == "A." and loaded.reference == "R."
    assert [c.text for c in loaded.retrieved_contexts] == ["plain", "object"]
    assert loaded.retrieved_contexts[1].id == "7" and loaded.retrieved_contexts[1].score == 0.5
    assert loaded.retrieved_contexts[1].metadata == {"url": "u"}
    assert loaded.metadata == {"category": "geo"}


def test_legacy_ragas_and_ragchecker_input_names_are_recognised(tmp_path: Path) -> None:
    legacy = {"question": "Q1", "contexts": ["c"], "answer": "A1", "ground_truth": "G1"}
    ragchecker = {
        "query_id": "x",
        "query": "Q2",
        "retrieved_context": [{"doc_id": "d", "text": "t"}],
        "response": "A2",
        "gt_answer": "G2",
    }
    samples = load_samples(write_jsonl(tmp_path / "in.jsonl", [legacy, ragchecker]))
    assert [(s.user_input, s.response, s.reference) for s in samples] == [("Q1", "A1", "G1"), ("Q2", "A2", "G2")]
    assert samples[1].id == "x" and samples[1].retrieved_contexts[0].id == "d"


def test_explicit_column_mapping_wins(tmp_path: Path) -> None:
    row = {"prompt": "Q", "docs": ["d1"], "output_text": "A", "gold": "G", "response": "not this one"}
    mapping = parse_column_mapping(
        ["user_input=prompt", "retrieved_contexts=docs", "response=output_text", "reference=gold"]
    )
    [sample] = load_samples(write_jsonl(tmp_path / "in.jsonl", [row]), columns=mapping)
    assert (sample.user_input, sample.context_texts, sample.response, sample.reference) == ("Q", ["d1"], "A", "G")
    assert sample.metadata == {"response": "not this one"}


@pytest.mark.parametrize("bad", ["response", "response=", "=x", "answer=response"])
def test_bad_column_mapping_is_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match=r"FIELD=COLUMN|unknown field"):
        parse_column_mapping([bad])


def test_mapped_column_missing_names_the_column(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{"response": "A"}])
    [error] = list(iter_samples(path, columns={"response": "answer_text"}))
    assert isinstance(error, RowError)
    assert error.line == 1 and error.field == "answer_text" and "missing" in error.message


def test_bad_rows_are_reported_with_line_field_and_expectation_and_skipped(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "in.jsonl",
        [
            good_row(1),
            "{not json",
            {**good_row(2), "response": 42},
            [1, 2],
            {**good_row(3), "retrieved_contexts": "one string"},
            {**good_row(4), "retrieved_contexts": ["ok", 5]},
            {"user_input": "no response column"},
            good_row(5),
        ],
    )
    samples, errors = _split(list(iter_samples(path)))
    assert [s.line for s in samples] == [1, 8]
    by_line = {e.line: e for e in errors}
    assert sorted(by_line) == [2, 3, 4, 5, 6, 7]
    assert "not valid JSON" in by_line[2].message
    assert by_line[3].field == "response" and "expected a string" in by_line[3].message and "42" in by_line[3].message
    assert "expected a JSON object" in by_line[4].message and "array" in by_line[4].message
    assert by_line[5].field == "retrieved_contexts" and "single string" in by_line[5].message
    assert by_line[6].field == "retrieved_contexts[1]" and "number 5" in by_line[6].message
    assert by_line[7].field == "response"
    assert str(by_line[3]).startswith(f"{path}:3: field 'response':")


def test_a_truncated_jsonl_line_says_what_is_wrong_with_it_once(tmp_path: Path) -> None:
    whole = json.dumps(good_row(1))
    path = tmp_path / "in.jsonl"
    # A line cut inside a string (a partial write), then a CRLF line cut the same way.
    path.write_text(f"{whole}\n{whole[:40]}\n{whole[:40]}\r\n{whole}\n", encoding="utf-8", newline="")
    samples, errors = _split(list(iter_samples(path)))
    assert [s.line for s in samples] == [1, 4]
    opening_quote = whole[:40].rindex('"') + 1  # the cut string's opening quote, counted from 1
    for error in errors:
        assert error.message == f"not valid JSON (Unterminated string starting at column {opening_quote})", error
    assert [e.line for e in errors] == [2, 3]


def test_load_samples_raises_on_the_first_bad_row_unless_told_to_skip(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [good_row(1), {**good_row(2), "reference": ["a"]}, good_row(3)])
    with pytest.raises(InputError, match=r":2: field 'reference': expected a string"):
        load_samples(path)
    skipped: list[RowError] = []
    assert len(load_samples(path, on_error=skipped.append)) == 2
    assert [e.line for e in skipped] == [2]


def test_csv_with_json_and_python_list_cells_and_quoted_newlines(tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text(
        "question,contexts,answer,ground_truth\n"
        '"Q1","[""a"", ""b""]","A1","G1"\n'
        '"Q2","[\'x\', \'y\']","multi\nline",""\n'
        '"Q3",plain context,"A3",G3\n'
        '"Q4","[broken","A4",G4\n'
        '"Q5","[]","A5",G5,extra\n'
        '"Q6","[]","A6",G6\n',
        encoding="utf-8",
    )
    samples, errors = _split(list(iter_samples(path)))
    assert [s.sample.user_input for s in samples] == ["Q1", "Q2", "Q3", "Q6"]
    assert samples[0].sample.context_texts == ["a", "b"]
    assert samples[1].sample.context_texts == ["x", "y"] and samples[1].sample.response == "multi\nline"
    assert samples[1].sample.reference is None  # an empty cell is no reference
    assert samples[2].sample.context_texts == ["plain context"]
    assert [(e.line, e.field) for e in errors] == [(6, "contexts"), (7, None)]
    assert "header has 4" in errors[1].message
    assert samples[3].line == 8


def test_json_array_rows_know_their_line_and_a_syntax_error_stops_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('[\n  {"response": "a"},\n\n  {"response": 3},\n  "x",\n  {"response": "b"} oops\n]', "utf-8")
    samples, errors = _split(list(iter_samples(path)))
    assert [(s.line, s.sample.response) for s in samples] == [(2, "a"), (6, "b")]
    assert [(e.line, e.field) for e in errors[:2]] == [(4, "response"), (5, None)]
    assert "rest of the file is skipped" in errors[-1].message


def test_json_object_wrapping_rows(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"samples": [good_row(1), 7, good_row(2)]}), "utf-8")
    samples, errors = _split(list(iter_samples(path)))
    assert len(samples) == 2 and errors[0].item == 1 and str(errors[0]).startswith(f"{path}: row 2: ")


def test_ids_are_stable_content_hashes_and_repeats_are_numbered(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [good_row(1), good_row(2), good_row(1)])
    first = [s.id for s in load_samples(path)]
    again = [s.id for s in load_samples(path)]
    assert first == again
    assert first[2] == f"{first[0]}#2" and first[0] != first[1]


def test_duplicate_explicit_ids_are_errors(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{**good_row(1), "id": "a"}, {**good_row(2), "id": "a"}])
    samples, errors = _split(list(iter_samples(path)))
    assert [s.id for s in samples] == ["a"]
    assert errors[0].line == 2 and errors[0].field == "id" and "first used at line 1" in errors[0].message


def test_streams_empty_files_and_unreadable_sources(tmp_path: Path) -> None:
    stream = io.StringIO(json.dumps(good_row(1)) + "\n\n")
    assert len(load_samples(stream)) == 1
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", "utf-8")
    assert load_samples(empty) == []
    with pytest.raises(InputError, match="cannot open"):
        load_samples(tmp_path / "missing.jsonl")
    (tmp_path / "data.parquet").write_bytes(b"PAR1")
    with pytest.raises(InputError, match="--format") as parquet:
        load_samples(tmp_path / "data.parquet")
    # a binary table is no text format --format could name: the way in is pandas (or CSV)
    assert "read it with pandas and pass the DataFrame to ragmetrics_core.evaluate" in str(parquet.value)
    (tmp_path / "data.txt").write_text("{}", "utf-8")
    with pytest.raises(InputError) as text:
        load_samples(tmp_path / "data.txt")
    assert "pandas" not in str(text.value)


def test_streams_without_a_name_are_told_apart_by_content(ragchecker_dir: Path) -> None:
    lines = io.StringIO(json.dumps(good_row(1)) + "\n" + json.dumps(good_row(2)) + "\n")
    array = io.StringIO(json.dumps([good_row(1), good_row(2), good_row(3)], indent=2))
    wrapped = io.StringIO(json.dumps({"samples": [good_row(1)]}))
    assert [len(load_samples(stream)) for stream in (lines, array, wrapped)] == [2, 3, 1]
    checked = io.StringIO((ragchecker_dir / "checking_outputs.json").read_text("utf-8"))
    rows = list(iter_samples(checked))
    assert len(rows) == 2 and all(isinstance(r, LoadedSample) and r.evidence is not None for r in rows)


def test_invalid_utf8_is_repaired_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"user_input": "caf\xe9", "response": "ok"}\n')
    [sample] = load_samples(path)
    assert sample.user_input == "caf\ufffd"


def test_a_binary_stream_is_refused_saying_to_open_it_as_text(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(good_row(1)) + "\n", "utf-8")
    with path.open("rb") as handle, pytest.raises(TypeError, match=r"binary stream.*open\(path, encoding='utf-8'\)"):
        load_samples(handle)
    with pytest.raises(TypeError, match="binary stream"):
        load_samples(io.BytesIO(path.read_bytes()))
    with path.open(encoding="utf-8") as handle:  # the same file as text is read
        assert len(load_samples(handle)) == 1


def test_the_first_line_that_is_not_utf8_is_found_across_read_blocks(tmp_path: Path) -> None:
    from ragmetrics_core.formats.loader import first_line_not_utf8

    path = tmp_path / "in.jsonl"
    # a three-byte character cut by the 1 MiB block boundary is UTF-8 all the same
    head = b"x" * ((1 << 20) - 1) + "€".encode() + b"\n"
    path.write_bytes(head + b"ok\n" * 5)
    assert first_line_not_utf8(path) is None
    path.write_bytes(head + b"ok\n" * 5 + b"caf\xe9\n" + b"ok\n")  # cp1252 on line 7, in the second block
    assert first_line_not_utf8(path) == 7
    path.write_bytes(b"ok\n\xe2\x82")  # cut off in the middle of its last character
    assert first_line_not_utf8(path) == 2
    path.write_bytes("кафе 咖啡 🗼\n".encode())
    assert first_line_not_utf8(path) is None


def test_ragchecker_outputs_are_read_with_their_evidence(ragchecker_dir: Path) -> None:
    rows = list(iter_samples(ragchecker_dir / "checking_outputs.json"))
    samples, errors = _split(rows)
    assert not errors and len(samples) == 2
    assert all(s.evidence is not None and s.evidence.response_vs_chunks is not None for s in samples)
    inputs = list(iter_samples(ragchecker_dir / "checking_inputs.json"))
    assert all(isinstance(s, LoadedSample) and s.evidence is None and s.sample.reference for s in inputs)


def test_a_malformed_ragchecker_result_is_skipped_alone(tmp_path: Path, ragchecker_dir: Path) -> None:
    data = json.loads((ragchecker_dir / "checking_outputs.json").read_text("utf-8"))
    data["results"][0]["answer2response"] = data["results"][0]["answer2response"][:-1]
    path = tmp_path / "rc.json"
    path.write_text(json.dumps(data), "utf-8")
    samples, errors = _split(list(iter_samples(path, format="ragchecker")))
    assert len(samples) == 1 and samples[0].sample.id == data["results"][1]["query_id"]
    assert errors[0].item == 0 and "answer2response" in errors[0].message and "results[0]" in errors[0].message
