"""One summary object: ``aggregate(results)`` and ``BatchRun.summary()`` give the same ``DatasetReport`` with the same
rule for failed samples, readable as text and in a notebook; a run prints briefly; ``to_pandas`` keeps the texts."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from ragmetrics_core.aggregate import DatasetReport, MetricAggregate, aggregate
from ragmetrics_core.batch import BatchRun, evaluate_file, results_to_pandas
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Evidence
from ragmetrics_core.report.summary import summarize
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import SentenceJudge, good_row, write_jsonl

METRICS = ["overall_precision", "faithfulness", "hallucination"]


class Fragile:
    """Fails on the third sample (its question names fact 2), scores the others with the sentence judge."""

    def __init__(self) -> None:
        self.judge = SentenceJudge(name="fragile")
        self.inner = Evaluator(judge=self.judge, metrics=METRICS)

    async def aevaluate(self, sample: RagSample, evidence: Evidence | None = None) -> EvaluationResult:
        if "fact 2?" in sample.user_input:
            raise RuntimeError("boom <b>")
        return await self.inner.aevaluate(sample, evidence)


def _run(tmp_path: Path, count: int = 4) -> BatchRun:
    rows = [{**good_row(i), "response": f"Fact {i} is true." + " The moon is cheese." * (i % 2)} for i in range(count)]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    return evaluate_file(source, evaluator=Fragile(), metrics=METRICS, progress=False)


@pytest.mark.parametrize("mode", ["determined", "ragchecker"])
def test_the_run_and_aggregate_give_one_report_with_one_rule_for_failed_samples(tmp_path: Path, mode: str) -> None:
    run = _run(tmp_path)
    run.aggregate_mode = mode  # type: ignore[assignment]
    summary = run.summary()
    assert isinstance(summary, DatasetReport)
    assert summary == aggregate(run.results, mode)
    assert (summary.samples, summary.failed) == (4, 1)
    # The failed sample is in no metric's figures: not undetermined, and not a 0 under RAGChecker's rule.
    precision = summary["overall_precision"]
    assert (precision.count, precision.undetermined) == (3, 0)
    assert precision.mean == pytest.approx((1.0 + 0.5 + 0.5) / 3)


def test_a_summary_prints_as_a_table_with_its_counts_and_usage(tmp_path: Path) -> None:
    summary = _run(tmp_path).summary()
    lines = str(summary).splitlines()
    assert lines[0] == "4 samples, 1 failed (left out of the scores); aggregation: determined"
    assert lines[1].split() == ["metric", "mean", "count", "undetermined", "direction", "why", "undetermined"]
    by_metric = {line.split()[0]: line.split()[1:4] for line in lines[3:-1]}
    assert by_metric == {"overall_precision": ["0.667", "3", "0"], "faithfulness": ["0.667", "3", "0"],
                         "hallucination": ["0.333", "3", "0"]}
    assert lines[-1].startswith("judge usage: 6 LLM calls")
    assert summary.table() == "\n".join(lines[1:-1])


def test_a_summary_shows_as_an_html_table_in_a_notebook(tmp_path: Path) -> None:
    html = _run(tmp_path).summary()._repr_html_()
    assert html.count("<table>") == 1
    rows = re.findall(r"<tr><td><code>([a-z_]+)</code></td><td[^>]*>([\d.—]+)</td>", html)
    assert rows == [("overall_precision", "0.667"), ("faithfulness", "0.667"), ("hallucination", "0.333")]
    assert "1 failed (left out of the scores)" in html and "judge usage" in html


def test_a_run_prints_briefly_however_many_samples_it_has(tmp_path: Path) -> None:
    run = _run(tmp_path, count=60)
    assert repr(run) == ("BatchRun(60 of 60 samples done: 60 evaluated, 0 resumed, 1 failed; 0 bad input rows "
                         "skipped; aggregation: determined)")
    text = str(run)
    assert text.splitlines()[0] == "60 of 60 samples done: 60 evaluated, 0 resumed, 1 failed; 0 bad input rows skipped"
    assert "What is fact" not in text and "What is fact" not in repr(run)
    assert len(text.splitlines()) == 2 + 2 + len(METRICS) + 1  # counts, summary counts, header, rule, rows, usage
    assert "<table>" in run._repr_html_() and "What is fact" not in run._repr_html_()


def test_the_former_list_use_of_a_summary_still_works_for_a_release_with_a_warning(tmp_path: Path) -> None:
    summary = _run(tmp_path).summary()
    with pytest.warns(DeprecationWarning, match=r"summary.metrics.values\(\)"):
        entries = list(summary)
    assert all(isinstance(entry, MetricAggregate) for entry in entries)
    assert [entry.metric for entry in entries] == METRICS
    with pytest.warns(DeprecationWarning, match="summary\\[i\\]"):
        assert summary[0] is summary.metrics["overall_precision"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(summary) == 3 and summary["faithfulness"].count == 3
    with pytest.warns(DeprecationWarning, match="aggregate"):
        (tmp_path / "again").mkdir()
        assert summarize(_run(tmp_path / "again").results) == summary


def test_to_pandas_keeps_each_samples_texts_beside_its_scores(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    run = _run(tmp_path)
    frame = run.to_pandas()
    assert list(frame.columns[:7]) == ["sample_id", "user_input", "retrieved_contexts", "response", "reference",
                                      "judge", "error"]
    assert list(frame["user_input"]) == [f"What is fact {i}?" for i in range(4)]
    assert list(frame["response"]) == [f"Fact {i} is true." + " The moon is cheese." * (i % 2) for i in range(4)]
    assert list(frame["retrieved_contexts"]) == [[f"Fact {i} is true.", "Unrelated text."] for i in range(4)]
    assert list(frame["reference"]) == [f"Fact {i} is true." for i in range(4)]
    assert list(frame["hallucination"])[:2] == [0.0, 0.5]
    lean = run.to_pandas(include_texts=False)
    assert not {"user_input", "retrieved_contexts", "response", "reference"} & set(lean.columns)
    assert list(lean.columns) == [column for column in frame.columns if column in lean.columns]
    assert "user_input" not in results_to_pandas(run.results).columns  # no samples given: scores only
