"""``ragmetrics demo``: run the offline demo app, score it, print a table per question."""

from __future__ import annotations

import sys
import tempfile
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

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

# (metric id, column title): the six scores that tell the scenarios apart (a grounded answer, a hallucination, noise
# copied from an irrelevant chunk, a retrieval miss answered from the model's own knowledge). The HTML report the
# demo writes has all fifteen, claim by claim.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("faithfulness", "faithful"),
    ("hallucination", "halluc."),
    ("noise_sensitivity_irrelevant", "noise"),
    ("self_knowledge", "self-know"),
    ("claim_recall", "claim rec"),
    ("overall_precision", "precision"),
)
WIDTH = 100
"""The demo's console output fits terminals of this many columns."""
LEGEND = (
    "faithful: share of the answer's claims found in the retrieved chunks; halluc.: wrong and in no",
    "chunk; noise: wrong and copied from an irrelevant chunk; self-know: right but in no chunk (the",
    "model's own knowledge); claim rec: share of the reference's claims the retriever found;",
    "precision: share of the answer's claims the reference supports. — = undetermined.",
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
        app = "LangChain LCEL chain with RagMetricsCallbackHandler (in-memory retriever, scripted chat model)"
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
    print(file=out)
    if telemetry is not None:
        for line in telemetry.summary():
            print(line, file=out)
    from ragmetrics_core.report.html import write_report

    if report is None:
        folder = telemetry.files[0].parent if telemetry is not None and telemetry.files is not None else None
        report = Path(folder or tempfile.mkdtemp(prefix="ragmetrics-demo-")) / "report.html"
    results = [result for _, result in scored]
    samples = {sample.id or "": sample for sample, _ in scored}
    path = write_report(results, report, samples=samples, title="ragmetrics demo")
    print(f"report: {path} (all 15 metrics, claim by claim)", file=out)
    missing = sum(1 for item in ordered if item is None)
    if missing:
        print(f"ragmetrics demo: {missing} question(s) were not scored", file=err)
        return 1
    return 0


def _in_question_order(questions: Sequence[Question], scored: Scored) -> list[EvaluationResult | None]:
    by_question = {sample.user_input: result for sample, result in scored}
    return [by_question.get(question.question) for question in questions]


def format_scores(questions: Sequence[Question], results: Sequence[EvaluationResult | None]) -> str:
    """One fixed-width table, a row per question (its scenario and the six headline scores), then the questions by
    number and a short legend; every line fits :data:`WIDTH` columns."""
    scenario_width = max(len(question.scenario) for question in questions)
    header = f"{'#':>2}  {'scenario':<{scenario_width}}" + "".join(f" {title:>9}" for _, title in COLUMNS)
    lines = [header, "-" * len(header)]
    for number, (question, result) in enumerate(zip(questions, results, strict=True), start=1):
        lines.append(f"{number:>2}  {question.scenario:<{scenario_width}}" + _cells(result, COLUMNS))
    asked = [_fit(f"{number:>2}  {question.question}") for number, question in enumerate(questions, start=1)]
    return "\n".join([*lines, "", "questions:", *asked, "", *LEGEND])


def _fit(line: str) -> str:
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def _cells(result: EvaluationResult | None, columns: Sequence[tuple[str, str]]) -> str:
    cells = ""
    for metric, _ in columns:
        value = None if result is None else result.score(metric)
        cells += f" {'—' if value is None else f'{value:.2f}':>9}"
    return cells
