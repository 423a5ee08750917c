"""``ragmetrics demo``: run the offline demo app, score it, print a table per question."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ragmetrics_core.demo.app import langchain_available, run_langchain_app, run_plain_app
from ragmetrics_core.demo.corpus import Question, load_corpus
from ragmetrics_core.demo.pipelines import (
    DemoPipeline,
    DirectPipeline,
    OnlinePipeline,
    Scored,
    online_pipeline_available,
)
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.results import EvaluationResult

# (metric id, column title) shown per question.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("overall_precision", "precision"),
    ("overall_recall", "recall"),
    ("faithfulness", "faithful"),
    ("hallucination", "halluc."),
    ("self_knowledge", "self_know"),
    ("noise_sensitivity_irrelevant", "noise_irr"),
    ("claim_recall", "claim_rec"),
    ("chunk_precision", "chunk_prec"),
)
# The other seven metrics, in a second table under the first (every score of the demo on one screen).
MORE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("overall_f1", "f1"),
    ("noise_sensitivity_relevant", "noise_rel"),
    ("context_utilization", "ctx_util"),
    ("context_precision", "ctx_prec"),
    ("context_recall", "ctx_recall"),
    ("context_entity_recall", "entity_rec"),
    ("response_relevancy", "relevancy"),
)
LEGEND = (
    "precision: share of the response's claims the reference supports; recall: share of the reference's claims",
    "the response makes; faithful: share of response claims found in the chunks; halluc.: wrong and in no chunk;",
    "self_know: right but in no chunk; noise_irr: wrong and copied from an irrelevant chunk (halluc. and noise_irr:",
    "lower is better); claim_rec / chunk_prec: the retriever's recall of reference claims and share of relevant",
    "chunks; noise_rel: wrong and copied from a relevant chunk (lower is better); ctx_*, entity_rec, relevancy:",
    "the ragas-style metrics. — = undetermined.",
)


def run_demo(
    *,
    report: str | Path | None = None,
    use_langchain: bool = True,
    spans: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the demo app over the bundled corpus, print the scores; returns the exit status. The spans and
    evaluation events go to OTLP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, to ``err`` with ``spans``, and to two
    files summarised in a few lines otherwise."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    corpus = load_corpus()
    evaluator = Evaluator()
    telemetry = None
    pipeline: DemoPipeline
    if online_pipeline_available():
        from ragmetrics_core.demo.telemetry import telemetry_from_env

        telemetry = telemetry_from_env(console=err, dump=spans)
        pipeline = OnlinePipeline(evaluator, telemetry)
    else:
        pipeline = DirectPipeline(evaluator)
    if use_langchain and langchain_available():
        app = (
            "LangChain LCEL chain (InMemoryVectorStore retriever + scripted chat model) with RagMetricsCallbackHandler"
        )
        run_langchain_app(corpus, pipeline)
    else:
        reason = "--plain" if not use_langchain else "langchain-core or ragmetrics_langchain is not installed"
        app = f"plain retrieval loop ({reason})"
        run_plain_app(corpus, pipeline)
    scored = pipeline.finish()
    if telemetry is not None:
        telemetry.shutdown()
    ordered = _in_question_order(corpus.questions, scored)
    print(f"app: {app}", file=out)
    print(f"judge: {evaluator.judge.name}; {pipeline.description}", file=out)
    print(file=out)
    print(format_scores(corpus.questions, ordered), file=out)
    if telemetry is not None and telemetry.files is not None:
        print(file=out)
        for line in telemetry.summary():
            print(line, file=out)
    if report is not None:
        from ragmetrics_core.report.html import write_report

        results = [result for _, result in scored]
        samples = {sample.id or "": sample for sample, _ in scored}
        path = write_report(results, report, samples=samples, title="ragmetrics demo")
        print(f"\nreport: {path}", file=out)
    missing = sum(1 for item in ordered if item is None)
    if missing:
        print(f"ragmetrics demo: {missing} question(s) were not scored", file=err)
        return 1
    return 0


def _in_question_order(questions: Sequence[Question], scored: Scored) -> list[EvaluationResult | None]:
    by_question = {sample.user_input: result for sample, result in scored}
    return [by_question.get(question.question) for question in questions]


def format_scores(questions: Sequence[Question], results: Sequence[EvaluationResult | None]) -> str:
    """Two fixed-width tables: one row per question with its scenario and the headline metrics, then the same
    questions by number with the other metrics."""
    question_width = max(len(question.question) for question in questions)
    scenario_width = max(len(question.scenario) for question in questions)
    header = f"{'#':>2}  {'scenario':<{scenario_width}}  {'question':<{question_width}}"
    header += "".join(f"  {title:>10}" for _, title in COLUMNS)
    lines = [header, "-" * len(header)]
    more = [f"{'#':>2}" + "".join(f"  {title:>10}" for _, title in MORE_COLUMNS)]
    for number, (question, result) in enumerate(zip(questions, results, strict=True), start=1):
        line = f"{number:>2}  {question.scenario:<{scenario_width}}  {question.question:<{question_width}}"
        lines.append(line + _cells(result, COLUMNS))
        more.append(f"{number:>2}" + _cells(result, MORE_COLUMNS))
    return "\n".join([*lines, "", *more, "", *LEGEND])


def _cells(result: EvaluationResult | None, columns: Sequence[tuple[str, str]]) -> str:
    cells = ""
    for metric, _ in columns:
        value = None if result is None else result.score(metric)
        cells += f"  {'—' if value is None else f'{value:.2f}':>10}"
    return cells
