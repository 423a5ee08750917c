"""Issue 17, item 7: a batch run holds no result per row. The summary, usage and report are built from running
figures that equal the full-list computation exactly; resume streams the results file; the report is capped."""

from __future__ import annotations

import gc
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ragmetrics_core import batch
from ragmetrics_core.aggregate import AggregationMode, RunningAggregate, aggregate, reason_kind
from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.formats import InputError, RowError
from ragmetrics_core.formats.results_io import read_results, scan_results
from ragmetrics_core.report import render_report
from ragmetrics_core.report.html import render_report_data
from ragmetrics_core.report.summary import total_usage
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore, Usage
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import SentenceJudge, good_row, write_jsonl

METRICS = ["overall_precision", "faithfulness", "hallucination"]
REASONS = ("missing input: reference", "evidence unavailable: judge error", "no claims from the response", "odd")


def _results(count: int, seed: int) -> list[EvaluationResult]:
    """Scores with awkward sums (random floats), undetermined ones for several reasons, metrics some results
    lack, failed results, and usage with and without a cost."""
    rng = random.Random(seed)
    results = []
    for index in range(count):
        scores = {}
        for metric in rng.sample(["faithfulness", "overall_f1", "hallucination", "custom"], k=rng.randint(1, 4)):
            undetermined = rng.random() < 0.2
            scores[metric] = MetricScore(
                metric=metric, score=None if undetermined else rng.random(), direction=Direction.HIGHER_IS_BETTER,
                reason=rng.choice(REASONS) if undetermined else "",
            )
        usage = Usage(calls=rng.randint(0, 3), prompt_tokens=rng.randint(0, 900), latency_s=rng.random() / 7,
                      cost_usd=rng.random() / 1000 if rng.random() < 0.5 else None)
        error = "RuntimeError: boom" if rng.random() < 0.05 else None
        results.append(EvaluationResult(sample_id=f"s{index}", judge=f"j{index % 2}", scores=scores, usage=usage,
                                        error=error))
    return results


Expected = dict[str, tuple[float | None, int, int, dict[str, int]]]


def _reference(results: list[EvaluationResult], mode: AggregationMode) -> Expected:
    """The list computation written out independently: sum() in input order, numpy's mean for RAGChecker's rule,
    Counter.most_common for the reasons; failed results are in no metric's figures (aggregate's one rule)."""
    results = [result for result in results if result.error is None]
    metrics = list(dict.fromkeys(metric for result in results for metric in result.scores))
    expected = {}
    for metric in metrics:
        values = [result.scores[metric].score for result in results if metric in result.scores]
        determined = [value for value in values if value is not None]
        if mode is AggregationMode.RAGCHECKER:
            mean = float(np.mean([value or 0.0 for value in values]))
        else:
            mean = sum(determined) / len(determined) if determined else None
        kinds = Counter(reason_kind(result.scores[metric].reason) for result in results
                        if metric in result.scores and result.scores[metric].score is None)
        expected[metric] = (mean, len(determined), len(values) - len(determined), dict(kinds.most_common()))
    return expected


@pytest.mark.parametrize("spilled", [False, True], ids=["in memory", "in a file"])
@pytest.mark.parametrize("mode", list(AggregationMode))
def test_running_figures_in_any_order_equal_the_list_computation_to_the_last_bit(
    mode: AggregationMode, spilled: bool, tmp_path: Path
) -> None:
    results = _results(700, seed=7)  # above numpy's 128-value block, so the pairwise tree has several levels
    order = list(range(len(results)))
    random.Random(1).shuffle(order)  # results finish out of order in a batch; the figures must not care
    running = RunningAggregate(spill_dir=tmp_path if spilled else None)
    for position in order:
        running.add(position, results[position])
    report = running.report(mode)
    expected = _reference(results, mode)
    assert list(report.metrics) == list(expected)
    for metric, (mean, count, undetermined, kinds) in expected.items():
        entry = report.metrics[metric]
        assert (entry.mean, entry.count, entry.undetermined) == (mean, count, undetermined), metric
        assert list(entry.undetermined_by_reason.items()) == list(kinds.items()), metric
    assert report.usage == total_usage(results)  # latency and cost summed in input order too
    assert report.samples == 700 and report.failed == sum(1 for result in results if result.error)
    assert report == aggregate(results, mode)


def test_running_figures_keep_nine_bytes_a_score_not_the_results() -> None:
    running = RunningAggregate()
    results = _results(300, seed=3)
    for position, result in enumerate(results):
        running.add(position, result)
    columns = running._columns.values()
    assert all(not column.scores.spilled and column.scores.held <= 9 * 300 for column in columns)
    assert all(len(column.kinds) <= len(REASONS) for column in columns)
    assert running.report("determined").metrics == aggregate([r for r in results if r.error is None]).metrics


def _rows(count: int) -> list[dict[str, object]]:
    """Scores that differ from row to row (1 to 3 sentences, some unsupported), and rows the judge fails on."""
    rows: list[dict[str, object]] = []
    for index in range(count):
        row = good_row(index)
        extra = " The sea is dry." * (index % 3) + (" FAIL now." if index % 37 == 5 else "")
        rows.append({**row, "id": f"r{index}", "response": f"{row['response']}{extra}"})
    return rows


def _without_clock(html: str) -> str:
    return re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", html)


def test_a_run_that_keeps_no_results_reports_what_the_full_list_reports(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", _rows(300))
    out = tmp_path / "out.jsonl"
    judge = SentenceJudge(fail_marker="FAIL")
    first = evaluate_file(source, out=out, judge=judge, metrics=METRICS, limit=120, concurrency=8, progress=False,
                          keep_results=False)
    run = evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, concurrency=8,
                        progress=False, keep_results=False)
    assert first.done == 120 and run.resumed + run.evaluated == 300 and run.done == 300
    stored = read_results(out)
    in_order = [stored.rows[f"r{index}"].result for index in range(300)]
    samples = {key: row.sample for key, row in stored.rows.items() if row.sample is not None}
    lines = {key: row.line for key, row in stored.rows.items() if row.line is not None}
    for mode in ("determined", "ragchecker"):
        run.aggregate_mode = mode
        assert run.summary() == aggregate(in_order, mode)
        expected = render_report(in_order, samples=samples, lines=lines, aggregate_mode=mode)
        assert _without_clock(render_report_data(run.report, aggregate_mode=mode)) == _without_clock(expected)
    assert run.usage == total_usage(in_order)
    assert run.failed == sum(1 for result in in_order if result.evidence.errors) > 0
    with pytest.raises(RuntimeError, match="not kept in memory"):
        _ = run.results


def _alive(kind: type) -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if type(thing) is kind)


def test_without_keep_results_no_result_or_sample_is_held_per_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch, "DETAIL_LIMIT", 4)
    monkeypatch.setattr(batch, "_KEPT_ERRORS", 3)
    source = write_jsonl(tmp_path / "in.jsonl", [*(good_row(i) for i in range(200)), *("{oops",) * 10])
    out = tmp_path / "out.jsonl"
    before_results, before_samples = _alive(EvaluationResult), _alive(RagSample)
    fresh = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False, keep_results=False)
    resumed = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False,
                            keep_results=False)
    assert fresh.evaluated == 200 and resumed.resumed == 200 and resumed.evaluated == 0
    for run in (fresh, resumed):
        # the report's detail rows, and nothing else, per run
        assert [row.position for row in run.report.detail] == [0, 1, 2, 3]
        assert run.samples == {} and run.lines == {}
        assert run.skipped == 10 and len(run.errors) == 3
    assert _alive(EvaluationResult) - before_results <= 2 * 4
    assert _alive(RagSample) - before_samples <= 2 * 4
    kept = evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)
    assert len(kept.results) == 200 and len(kept.samples) == 200 and len(kept.errors) == 10  # the API default


def test_the_results_file_index_holds_ids_and_only_the_results_to_redo(tmp_path: Path) -> None:
    rows = [{**good_row(i), "id": f"r{i}"} for i in range(6)] + [{**good_row(9), "id": "bad", "response": "FAIL it."}]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, limit=3, progress=False)
    evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, progress=False)
    index = scan_results(out)
    assert list(index.last) == ["r0", "r1", "r2", "r3", "r4", "r5", "bad"] and index.rows == 7
    assert list(index.incomplete) == ["bad"] and index.incomplete["bad"].evidence.response_vs_chunks is None
    assert index.complete("r4") and not index.complete("bad") and not index.complete("nope")
    evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)  # now it succeeds
    index = scan_results(out)
    assert index.rows == 8 and index.last["bad"] == 7 and index.incomplete == {} and index.complete("bad")
    assert list(index.last) == ["r0", "r1", "r2", "r3", "r4", "r5", "bad"]  # first-occurrence order kept


def test_a_bad_row_in_a_file_is_reported_before_anything_is_judged(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(1), good_row(2), "{oops"])
    judge = SentenceJudge()

    def refuse(row: RowError) -> None:
        raise InputError(row)

    with pytest.raises(InputError, match=r"in\.jsonl:3"):
        evaluate_file(source, out=tmp_path / "o.jsonl", judge=judge, on_row_error=refuse, progress=False,
                      keep_results=False)
    assert judge.extractions == 0


def test_a_capped_report_says_so_and_its_figures_cover_every_sample(tmp_path: Path) -> None:
    results = _results(9, seed=5)
    html = render_report(results, max_samples=3)
    assert re.findall(r"<details class='sample' id='(sample-\d+)'", html) == ["sample-1", "sample-2", "sample-3"]
    assert "Showing the first 3 of 9 samples in detail" in html and "9 samples" in html
    assert "Showing the first" not in render_report(results)


def test_ragmetrics_report_streams_the_file_and_names_it_when_capped(tmp_path: Path) -> None:
    from ragmetrics_core.report.data import read_report_data

    source = write_jsonl(tmp_path / "in.jsonl", _rows(40))
    out = tmp_path / "out.jsonl"
    evaluate_file(source, out=out, judge=SentenceJudge(fail_marker="FAIL"), metrics=METRICS, progress=False)
    evaluate_file(source, out=out, judge=SentenceJudge(), metrics=METRICS, progress=False)  # supersedes 2 rows
    stored = read_results(out)
    data = read_report_data(out, max_samples=5)
    assert data.figures.report("determined") == aggregate([row.result for row in stored.rows.values()])
    assert [row.position for row in data.detail] == [0, 1, 2, 3, 4]
    assert all(row.sample is not None for row in data.detail)
    html = render_report_data(data)
    assert f"Every sample's full result is in <code>{out}</code>" in html


def test_a_run_counts_the_samples_it_took(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(5)])
    run = evaluate_file(source, judge=SentenceJudge(), metrics=METRICS, limit=3, progress=False, keep_results=False)
    assert run.total == 3 and run.done == 3 and run.evaluated == 3


@pytest.mark.parametrize("tail", ["", "\n", "torn", "x" * 70_000, "a\n" + "y" * 70_000])
def test_a_torn_tail_is_cut_without_reading_the_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    from ragmetrics_core.formats import results_io

    path = tmp_path / "out.jsonl"
    body = "".join(f'{{"row": {index}}}\n' for index in range(5000))
    path.write_text(body + tail, "utf-8")
    monkeypatch.setattr(results_io, "_TAIL_BLOCK", 4096)
    reads: list[int] = []
    real_open = Path.open

    def counting_open(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        handle = real_open(self, *args, **kwargs)  # type: ignore[call-overload]
        real_read = handle.read
        handle.read = lambda size=-1: reads.append(size) or real_read(size)
        return handle

    monkeypatch.setattr(Path, "open", counting_open)
    results_io._drop_torn_tail(path)
    monkeypatch.undo()
    kept = body + (tail[: tail.rfind("\n") + 1] if "\n" in tail else "")
    assert path.read_bytes() == kept.encode()
    assert all(0 <= size <= 4096 for size in reads)  # never the whole file (read() without a size)
