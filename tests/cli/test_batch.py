"""evaluate_file: one row per sample, resumable runs, bad rows skipped, retries of failed samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmetrics_core.batch import evaluate_file, results_to_pandas
from ragmetrics_core.evidence import Evidence
from ragmetrics_core.formats import RowError
from ragmetrics_core.formats.results_io import read_results
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import SentenceJudge, good_row, read_jsonl, write_jsonl

METRICS = ["overall_precision", "faithfulness", "hallucination"]


def test_rows_carry_every_score_reason_usage_and_the_sample(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    out = tmp_path / "out.jsonl"
    run = evaluate_file(source, out=out, judge=judge, metrics=METRICS, progress=False)
    rows = read_jsonl(out)
    assert len(rows) == 3 and run.evaluated == 3 and run.resumed == 0 and not run.errors
    for row in rows:
        assert set(row["scores"]) == set(METRICS)
        # "Fact i is true." is in the reference and a chunk; "The moon is cheese." is in neither.
        assert row["scores"]["overall_precision"]["score"] == 0.5
        assert row["scores"]["hallucination"]["score"] == 0.5
        assert row["scores"]["hallucination"]["direction"] == "lower_is_better"
        assert row["usage"]["calls"] == 2 and row["usage"]["prompt_tokens"] == 300
        assert row["sample"]["response"].startswith("Fact")
        assert row["input_line"] in (1, 2, 3)
        claims = [c for c in row["explanations"] if c["source"] == "response"]
        assert [c["category"] for c in claims] == ["correct_grounded", "hallucination"]
    assert [r.sample_id for r in run.results] == list(run.samples)
    precision = run.summary()["overall_precision"]
    assert precision.mean == 0.5 and precision.count == 3 and precision.undetermined == 0
    assert run.usage.calls == 6


def test_a_rerun_resumes_and_only_evaluates_what_is_missing(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(5)])
    out = tmp_path / "out.jsonl"
    first = SentenceJudge()
    evaluate_file(source, out=out, judge=first, metrics=METRICS, limit=2, progress=False)
    assert first.extractions == 2 and len(read_jsonl(out)) == 2
    second = SentenceJudge()
    run = evaluate_file(source, out=out, judge=second, metrics=METRICS, progress=False)
    assert second.extractions == 3 and run.resumed == 2 and run.evaluated == 3
    rows = read_jsonl(out)
    assert len(rows) == 5 and len({row["sample_id"] for row in rows}) == 5
    assert len(run.results) == 5
    third = SentenceJudge()
    again = evaluate_file(source, out=out, judge=third, metrics=METRICS, progress=False)
    assert third.extractions == 0 and again.resumed == 5 and len(read_jsonl(out)) == 5


def test_samples_whose_judge_failed_are_retried_on_resume(tmp_path: Path) -> None:
    rows = [good_row(1), {**good_row(2), "response": "FAIL here."}]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    run = evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, progress=False)
    assert run.failed == 1
    failed = [r for r in run.results if r.evidence.errors]
    assert len(failed) == 1 and failed[0].score("faithfulness") is None
    assert "scripted failure" in failed[0].scores["faithfulness"].reason
    retry = SentenceJudge()
    rerun = evaluate_file(source, out=out, judge=retry, metrics=METRICS, progress=False)
    assert retry.seen == ["FAIL here."] and rerun.failed == 0 and rerun.resumed == 1
    stored = read_results(out)
    assert len(stored.rows) == 2 and stored.done() == set(stored.rows)


def test_a_sample_that_fails_the_same_way_on_every_rerun_does_not_grow_the_file(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1), {**good_row(2), "response": "FAIL here."}])
    out = tmp_path / "out.jsonl"
    for _ in range(4):
        run = evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, progress=False)
        assert run.failed == 1
    assert len(read_jsonl(out)) == 2  # one row per sample, however many reruns
    fixed = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert fixed.failed == 0 and len(read_jsonl(out)) == 3  # a different outcome is written (and supersedes)
    stored = read_results(out)
    assert len(stored.rows) == 2 and stored.done() == set(stored.rows)


def test_retrying_only_failed_samples_leaves_new_ones_for_later(tmp_path: Path) -> None:
    first_rows = [good_row(1), {**good_row(2), "response": "FAIL here."}, good_row(3)]
    source = write_jsonl(tmp_path / "in.jsonl", first_rows)
    out = tmp_path / "out.jsonl"
    evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, progress=False)
    write_jsonl(source, [*first_rows, good_row(4), good_row(5)])  # two samples the results file has never seen
    retry = SentenceJudge()
    run = evaluate_file(source, out=out, judge=retry, metrics=METRICS, progress=False, only_failed=True)
    assert retry.seen == ["FAIL here."]
    assert run.evaluated == 1 and run.failed == 0 and run.resumed == 2 and run.left == 2
    assert run.done == 3 and [r.sample_id for r in run.results] == list(run.samples)[:3]
    assert len({row["sample_id"] for row in read_jsonl(out)}) == 3
    rest = SentenceJudge()
    later = evaluate_file(source, out=out, judge=rest, metrics=METRICS, progress=False)
    assert rest.extractions == 2 and later.left == 0 and later.done == 5


def test_retrying_failed_samples_needs_a_results_file(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    with pytest.raises(ValueError, match="results file"):
        evaluate_file(source, judge=judge, metrics=METRICS, progress=False, only_failed=True)


def test_a_torn_last_line_is_dropped_and_redone(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    out = tmp_path / "out.jsonl"
    evaluate_file(source, out=out, judge=judge, metrics=METRICS, limit=2, progress=False)
    text = out.read_text("utf-8")
    out.write_text(text + text.splitlines()[0][:40], "utf-8")  # a crash in the middle of a write
    assert read_results(out).torn_line == 3
    run = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert run.resumed == 2 and run.evaluated == 1
    assert len(read_jsonl(out)) == 3


def test_bad_rows_are_skipped_counted_and_reported(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1), "{oops", {**good_row(2), "response": None}, good_row(3)])
    seen: list[RowError] = []
    out = tmp_path / "out.jsonl"
    run = evaluate_file(source, out=out, judge=judge, metrics=METRICS, on_row_error=seen.append, progress=False)
    assert [e.line for e in run.errors] == [2, 3] == [e.line for e in seen]
    assert run.evaluated == 2 and [row["input_line"] for row in read_jsonl(out)] == [1, 4]


def test_csv_output_has_a_column_per_score_and_resumes(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    out = tmp_path / "out.csv"
    evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, limit=1, progress=False)
    run = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert run.resumed == 1 and run.evaluated == 2
    import csv

    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3
    assert {"faithfulness", "faithfulness_reason", "faithfulness_label", "usage_calls"} <= set(rows[0])
    assert [float(row["hallucination"]) for row in rows] == [0.5, 0.5, 0.5]
    resumed = next(r for r in run.results if r.sample_id == rows[0]["sample_id"])
    assert resumed.scores["hallucination"].direction.value == "lower_is_better"


def test_csv_resume_with_other_metrics_is_refused(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    out = tmp_path / "out.csv"
    evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    with pytest.raises(ValueError, match="different columns"):
        evaluate_file(source, out=out, judge=SentenceJudge(), metrics=["faithfulness"], progress=False)


def test_a_results_file_that_is_not_ours_is_an_error(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    out = write_jsonl(tmp_path / "out.jsonl", [{"hello": 1}, {"hello": 2}])
    with pytest.raises(ValueError, match=r"out.jsonl:1: not a ragmetrics results row"):
        evaluate_file(source, out=out, judge=SentenceJudge(), progress=False)


def test_pandas_frame(tmp_path: Path, judge: SentenceJudge) -> None:
    pytest.importorskip("pandas")
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(2)])
    run = evaluate_file(source, judge=judge, metrics=METRICS, progress=False)
    frame = run.to_pandas()
    assert list(frame["hallucination"]) == [0.5, 0.5]
    assert {"sample_id", "faithfulness_reason", "usage_calls"} <= set(frame.columns)
    assert results_to_pandas([]).empty


async def test_evaluate_file_works_inside_a_running_event_loop(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    run = evaluate_file(source, judge=judge, metrics=METRICS, progress=False)
    assert run.evaluated == 1


def test_ragchecker_outputs_reproduce_ragcheckers_figures(tmp_path: Path, ragchecker_dir: Path) -> None:
    judge = SentenceJudge()
    run = evaluate_file(ragchecker_dir / "checking_outputs.json", judge=judge, out=tmp_path / "o.jsonl", progress=False)
    assert judge.extractions == 0  # everything came from the file's own claims and verdicts
    assert run.aggregate_mode == "ragchecker"
    expected = json.loads((ragchecker_dir / "checking_outputs.json").read_text("utf-8"))["metrics"]
    ours = run.summary().means()
    pairs = {
        "overall_precision": expected["overall"]["precision"],
        "overall_recall": expected["overall"]["recall"],
        "overall_f1": expected["overall"]["f1"],
        "claim_recall": expected["retriever"]["claim_recall"],
        "chunk_precision": expected["retriever"]["context_precision"],
        "context_utilization": expected["generator"]["context_utilization"],
        "noise_sensitivity_relevant": expected["generator"]["noise_sensitivity_in_relevant"],
        "noise_sensitivity_irrelevant": expected["generator"]["noise_sensitivity_in_irrelevant"],
        "hallucination": expected["generator"]["hallucination"],
        "self_knowledge": expected["generator"]["self_knowledge"],
        "faithfulness": expected["generator"]["faithfulness"],
    }
    assert set(ours) == set(pairs)
    for metric, figure in pairs.items():
        value = ours[metric]
        assert value is not None and round(value * 100, 1) == figure, metric


def test_bad_arguments(tmp_path: Path, judge: SentenceJudge) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    with pytest.raises(ValueError, match="concurrency"):
        evaluate_file(source, judge=judge, concurrency=0)
    with pytest.raises(ValueError, match="limit"):
        evaluate_file(source, judge=judge, limit=-1)


def test_an_evaluator_that_raises_costs_one_row_not_the_run(tmp_path: Path) -> None:
    from ragmetrics_core.engine import Evaluator

    class Fragile:
        def __init__(self) -> None:
            self.judge = SentenceJudge(name="fragile")
            self.inner = Evaluator(judge=self.judge, metrics=METRICS)

        async def aevaluate(self, sample: RagSample, evidence: Evidence | None = None) -> EvaluationResult:
            if "2" in sample.user_input:
                raise RuntimeError("boom")
            return await self.inner.aevaluate(sample, evidence)

    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(4)])
    out = tmp_path / "out.jsonl"
    run = evaluate_file(source, out=out, evaluator=Fragile(), metrics=METRICS, progress=False)
    assert run.evaluated == 4 and run.failed == 1
    rows = read_jsonl(out)
    [broken] = [row for row in rows if row["error"]]
    assert broken["error"] == "RuntimeError: boom" and broken["judge"] == "fragile"
    assert broken["sample"]["user_input"] == "What is fact 2?"
    precision = run.summary()["overall_precision"]
    assert precision.count == 3  # the failed sample is left out of the means


def test_results_written_to_a_file_are_kept_slim_in_memory(tmp_path: Path) -> None:
    """The full record is in the file; memory keeps what the summary and the report read (and the judge's
    errors, which decide a resume), not the verdict matrices."""
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    out = tmp_path / "out.jsonl"
    run = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False, limit=2)
    assert all(result.evidence.response_vs_chunks is None and result.explanations for result in run.results)
    assert all(row["evidence"]["response_vs_chunks"] for row in read_jsonl(out))  # the file has everything
    resumed = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert resumed.resumed == 2 and resumed.evaluated == 1
    assert [r.values() for r in resumed.results[:2]] == [r.values() for r in run.results]
    in_memory = evaluate_file(source, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert all(result.evidence.response_vs_chunks is not None for result in in_memory.results)  # no file: all kept
