"""The claims file beside CSV results: one row per claim, resumable, read back into the results' explanations."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.evidence import Verdict
from ragmetrics_core.formats.results_io import CLAIM_COLUMNS, ResultWriter, claims_path, read_results
from ragmetrics_core.report import render_report
from ragmetrics_core.results import ClaimExplanation, EvaluationResult
from tests.cli.conftest import SentenceJudge, good_row, write_jsonl

METRICS = ["overall_precision", "faithfulness", "hallucination"]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _claim(index: int, text: str, supporting: list[int]) -> ClaimExplanation:
    return ClaimExplanation(source="response", index=index, text=text, supporting_chunks=supporting,
                            against_reference=Verdict.ENTAILED, grounding=0.75, category="correct_grounded",
                            supported_by_contexts_jointly=False, rationale="chunk 1: words, \"quoted\"\nand a break")


def _result(sample_id: str, *claims: ClaimExplanation) -> EvaluationResult:
    return EvaluationResult(sample_id=sample_id, judge="scripted", scores={}, explanations=list(claims))


def test_every_claim_gets_a_row_and_reads_back_into_the_results(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(2)])
    out = tmp_path / "out.csv"
    run = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    claims = _rows(tmp_path / "out.claims.csv")
    assert list(claims[0]) == list(CLAIM_COLUMNS)
    # two response claims ("Fact i is true.", "The moon is cheese.") and one reference claim per sample
    assert len(claims) == 6
    moon = [row for row in claims if row["text"] == "The moon is cheese."]
    assert [row["category"] for row in moon] == ["hallucination", "hallucination"]
    fact = next(row for row in claims if row["text"] == "Fact 0 is true." and row["source"] == "response")
    assert fact["supporting_chunks"] == "1" and fact["against_reference"] == "entailed" and fact["grounding"] == "1.0"
    stored = read_results(out)
    for result in run.results:
        assert result.sample_id is not None
        assert stored.rows[result.sample_id].result.explanations == result.explanations


def test_claims_with_commas_quotes_and_line_breaks_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    claim = _claim(0, 'He said "yes, twice",\nthen left.', [0, 2])
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", claim, _claim(1, "Другое утверждение. 中文。", [])))
    assert _rows(claims_path(out))[0]["supporting_chunks"] == "1 3"
    assert read_results(out).rows["s1"].result.explanations[0] == claim


def test_a_retried_samples_claims_replace_the_earlier_attempts(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "first attempt", [0]), _claim(1, "first attempt too", [0])))
        writer.write(_result("s2", _claim(0, "other sample", [1])))
    with ResultWriter(out, METRICS) as writer:  # a resumed run appends the retry
        writer.write(_result("s1", _claim(0, "second attempt", [1])))
    stored = read_results(out)
    assert [claim.text for claim in stored.rows["s1"].result.explanations] == ["second attempt"]
    assert [claim.text for claim in stored.rows["s2"].result.explanations] == ["other sample"]
    assert [row["results_row"] for row in _rows(claims_path(out))] == ["1", "1", "2", "3"]


def test_claims_left_by_a_crash_before_the_results_row_are_superseded(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "kept", [0])))
        writer.write(_result("s2", _claim(0, "orphaned", [0])))
    # The crash: s2's claims reached the claims file, its results row did not.
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:-1]), encoding="utf-8")
    assert "s2" not in read_results(out).rows
    with ResultWriter(out, METRICS) as writer:  # resumed: s2 is redone, at the same results row
        writer.write(_result("s2", _claim(0, "redone", [1])))
    stored = read_results(out)
    assert [claim.text for claim in stored.rows["s2"].result.explanations] == ["redone"]
    assert [claim.text for claim in stored.rows["s1"].result.explanations] == ["kept"]


def test_a_new_results_file_starts_a_new_claims_file(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    claims_path(out).write_text("stale,content\n1,2\n", encoding="utf-8")
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "fresh", [0])))
    assert [row["text"] for row in _rows(claims_path(out))] == ["fresh"]


def test_a_foreign_claims_file_beside_existing_results_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "one", [0])))
    claims_path(out).write_text("name,value\nx,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"out\.claims\.csv:1: existing file is not a ragmetrics claims file"):
        ResultWriter(out, METRICS)


@pytest.mark.parametrize(
    ("column", "value"),
    [("index", "first"), ("grounding", "high"), ("supporting_chunks", "1 two"),
     ("supported_by_contexts_jointly", "maybe"), ("against_reference", "probably")],
)
def test_a_malformed_claims_row_names_its_file_and_line(tmp_path: Path, column: str, value: str) -> None:
    out = tmp_path / "out.csv"
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "one", [0]), _claim(1, "two", [0])))
    rows = _rows(claims_path(out))
    rows[1][column] = value
    with claims_path(out).open("w", newline="", encoding="utf-8") as handle:
        writer_ = csv.DictWriter(handle, fieldnames=list(CLAIM_COLUMNS))
        writer_.writeheader()
        writer_.writerows(rows)
    # the header is line 1; the first row's rationale holds a line break, so the second row starts on line 4
    with pytest.raises(ValueError, match=r"out\.claims\.csv:4: not a ragmetrics claims row"):
        read_results(out)


def test_the_report_of_csv_results_drills_down_to_claims(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    out = tmp_path / "out.csv"
    run = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    results = [row.result for row in read_results(out).rows.values()]
    html = render_report(results, samples=run.samples)
    assert "<li id='sample-1-claim-2' class='claim cat-halluc'>" in html and "The moon is cheese." in html


def test_jsonl_results_have_no_claims_file(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    evaluate_file(source, out=tmp_path / "out.jsonl", judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_a_results_file_cut_to_its_header_starts_a_new_claims_file(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s1", _claim(0, "lost with its row", [0])))
    # A crash that left the header only: the claims written for the lost row are orphans.
    out.write_text(out.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
    with ResultWriter(out, METRICS) as writer:
        writer.write(_result("s2", _claim(0, "new", [0])))
    assert [(row["sample_id"], row["results_row"]) for row in _rows(claims_path(out))] == [("s2", "1")]
