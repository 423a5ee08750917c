"""Evaluate a whole file of samples: resumable, interruptible, with results written row by row.

``evaluate_file`` is what ``ragmetrics evaluate`` runs. Each finished sample is appended to the results
file at once, so an interrupted run (Ctrl-C, a crash, a killed job) keeps every row already done, and the
next run with the same ``out`` skips the samples it finds there. Samples are identified by their ``id``
or, without one, by a stable hash of their content (:func:`ragmetrics_core.formats.sample_key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import threading
from array import array
from bisect import insort
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ragmetrics_core._lazy import Renamed, lazy_package, renamed_keyword
from ragmetrics_core.aggregate import AggregationMode, DatasetReport, RunningAggregate
from ragmetrics_core.engine import AsyncEvaluator, Evaluator, run_sync
from ragmetrics_core.formats import InputError, InputFormat, LoadedSample, RowError, iter_samples
from ragmetrics_core.formats.loader import STDIN, IdLedger, Source
from ragmetrics_core.formats.results_io import ResultsIndex, ResultWriter, is_complete, scan_results, stored_metrics
from ragmetrics_core.judge_factory import JudgeSettings, build_evaluator
from ragmetrics_core.judges.base import Judge, Usage
from ragmetrics_core.judges.quota import BUDGET_EXHAUSTED
from ragmetrics_core.metrics import METRICS, RAGCHECKER_METRICS
from ragmetrics_core.report.data import DETAIL_LIMIT, DetailRow, ReportData
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.runner import StopFlag, keep_partial, score_many
from ragmetrics_core.sample import RagSample
from ragmetrics_core.scrub import scrub_secrets

if TYPE_CHECKING:
    import pandas

    from ragmetrics_core.calibration.model import Calibration
    from ragmetrics_core.metrics import MetricOptions


_KEPT_ERRORS = 1000
"""Bad input rows listed in ``BatchRun.errors`` when results are not kept (all are counted in ``skipped``)."""


@dataclass(slots=True, repr=False)
class BatchRun:
    """What a batch run did. The summary and usage cover every sample done (resumed ones included) and are built
    as results come in; the results themselves are kept only when asked (``keep_results``).

    ``print(run)`` shows the counts and the summary table, ``repr(run)`` one line, a notebook the table in HTML.
    """

    samples: dict[str, RagSample] = field(default_factory=dict)
    """Every input sample by id (only when results are kept)."""
    lines: dict[str, int] = field(default_factory=dict)
    """Where each sample was in the input: its line (JSONL, CSV) or item number (JSON, in memory), from 1 (only
    when results are kept)."""
    retried: dict[str, EvaluationResult] = field(default_factory=dict)
    """Samples that failed in an earlier run and are evaluated again, with that earlier result."""
    errors: list[RowError] = field(default_factory=list)
    """Bad input rows: all of them when results are kept, else the first thousand (``skipped`` counts all)."""
    skipped: int = 0
    total: int = 0
    """Samples taken from the input (``limit`` applied), done or not."""
    evaluated: int = 0
    resumed: int = 0
    failed: int = 0
    unreachable: int = 0
    """Samples the judge's endpoint was unreachable for (left undetermined without calling it)."""
    budget_exhausted: int = 0
    """Samples left (partly) undetermined because the provider budget was spent (``--budget-usd``)."""
    left: int = 0
    """Samples not evaluated because the run retried only failed ones (``only_failed``) and these had no row."""
    interrupted: bool = False
    out: Path | None = None
    aggregate_mode: AggregationMode = AggregationMode.DETERMINED
    keep_results: bool = True
    report: ReportData = field(default_factory=ReportData)
    """Figures over every sample done and the first ones in full: what ``--report`` draws."""
    _results: list[EvaluationResult | None] = field(default_factory=list)
    _detail_inputs: dict[int, tuple[RagSample, int | None]] = field(default_factory=dict)
    """The input samples of the report's detail rows not done yet, by position."""

    @property
    def results(self) -> list[EvaluationResult]:
        """Every sample's latest result in input order (samples not done, after an interrupt, left out)."""
        if not self.keep_results:
            where = f" (they are in {self.out})" if self.out is not None else ""
            raise RuntimeError(
                f"results were not kept in memory (keep_results=False){where}: read them back with "
                "ragmetrics_core.formats.results_io.read_results, or use summary() and usage"
            )
        return [result for result in self._results if result is not None]

    @property
    def done(self) -> int:
        """Samples with a result (evaluated now or resumed)."""
        return self.report.figures.added

    def summary(self) -> DatasetReport:
        """Per metric over every sample done: what :func:`~ragmetrics_core.aggregate.aggregate` gives for the
        results (the same object, the same rule for failed samples), in the run's ``aggregate_mode``."""
        return self.report.figures.report(self.aggregate_mode)

    @property
    def usage(self) -> Usage:
        return self.report.figures.usage

    def to_pandas(self, *, include_texts: bool = True) -> pandas.DataFrame:
        """One row per sample, in input order: ``sample_id``, the sample's ``user_input``, ``retrieved_contexts``
        (a list of texts), ``response`` and ``reference`` beside its scores as ragas shows them, then ``judge``,
        ``error``, one column per metric, the ``<metric>_reason`` columns and the usage. ``include_texts=False``
        leaves the four text columns out. Needs pandas (``pip install 'ragmetrics[pandas]'``)."""
        return results_to_pandas(self.results, samples=self.samples if include_texts else None)

    def __repr__(self) -> str:
        out = "" if self.out is None else f", out={str(self.out)!r}"
        return f"BatchRun({self._counts()}; aggregation: {self.aggregate_mode}{out})"

    def __str__(self) -> str:
        return f"{self._counts()}\n{self.summary()}"

    def _repr_html_(self) -> str:
        return f"<div><p>{escape(self._counts())}</p>{self.summary()._repr_html_()}</div>"

    def _counts(self) -> str:
        skipped = f"{self.skipped} bad input row{'' if self.skipped == 1 else 's'} skipped"
        interrupted = ", interrupted" if self.interrupted else ""
        return (f"{self.done} of {self.total} samples done: {self.evaluated} evaluated, {self.resumed} resumed, "
                f"{self.failed} failed; {skipped}{interrupted}")

    def _observe(self, position: int, result: EvaluationResult) -> None:
        """Count ``result`` as the sample at ``position`` of the input."""
        self.report.figures.add(position, result)
        errors = result.evidence.errors.values()
        if any("endpoint unreachable" in error for error in errors):
            self.unreachable += 1
        if any(BUDGET_EXHAUSTED in error for error in errors):
            self.budget_exhausted += 1
        if self.keep_results:
            self._results[position] = result
        shown = self._detail_inputs.pop(position, None)
        if shown is not None:
            insort(self.report.detail, DetailRow(position, result, *shown), key=lambda row: row.position)

    def _error(self, error: RowError) -> None:
        self.skipped += 1
        if self.keep_results or len(self.errors) < _KEPT_ERRORS:
            self.errors.append(error)


Todo = tuple[int, LoadedSample]
"""A sample still to score, with its position in the input."""
Record = Callable[[Todo, EvaluationResult], None]
"""Takes one finished result to the output, the summary and the report."""


class ScoringBackend(Protocol):
    """Scores a file run's samples somewhere else (``ragmetrics_core.scale.ray_backend.RayBackend``: on Ray) and
    hands each result to ``record`` on this thread as it arrives; reading, resuming, writing and the summary stay
    :func:`evaluate_file`'s. (Called ``FileEngine`` before; that name is a deprecated alias.)"""

    def __call__(
        self,
        todo: Sequence[Todo],
        record: Record,
        *,
        progress: bool,
        resumed: int,
    ) -> None: ...


if TYPE_CHECKING:
    FileEngine = ScoringBackend  # its deprecated old name, served with a warning (lazy_package below)


def evaluate_file(
    source: Source,
    *,
    out: str | Path | None = None,
    format: InputFormat = "auto",
    columns: Mapping[str, str] | None = None,
    metrics: Sequence[str] | None = None,
    judge: Judge | JudgeSettings | None = None,
    options: MetricOptions | None = None,
    evaluator: AsyncEvaluator | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    progress: bool | None = None,
    on_row_error: Callable[[RowError], None] | None = None,
    aggregate_mode: AggregationMode | str | None = None,
    keep_results: bool = True,
    backend: ScoringBackend | None = None,
    only_failed: bool = False,
    calibration: Calibration | str | os.PathLike[str] | None = None,
    engine: ScoringBackend | None = None,
) -> BatchRun:
    """Evaluate every sample in ``source`` and append one row per sample to ``out`` (JSONL, or CSV by
    extension).

    - ``metrics``/``judge``/``options`` build the :class:`~ragmetrics_core.engine.Evaluator` (default:
      every metric, embedded judge); ``judge`` may be :class:`~ragmetrics_core.judge_factory.JudgeSettings`
      (what the CLI's judge flags build; several models make an ensemble). Or pass a ready ``evaluator``.
    - Rows of ``out`` from an earlier run are kept and their samples skipped; samples that failed or whose
      judge calls failed are evaluated again (the new row supersedes the old one).
    - ``limit`` takes the first N samples of the input (resumed ones count).
    - A bad input row goes to ``on_row_error`` (and ``BatchRun.errors``) and is skipped; every row is read
      (and every bad one reported) before the first sample is judged.
    - ``progress``: a progress bar on stderr; by default only when stderr is a terminal.
    - Ctrl-C stops taking new samples and finishes the ones in flight (a second Ctrl-C cancels them);
      ``BatchRun.interrupted`` is then true. The results file is valid either way.
    - RAGChecker input (``format="ragchecker"``, or a ``checking_outputs.json`` found by ``auto``) is scored
      from the claims and verdicts it carries, with RAGChecker's metrics unless ``metrics`` says otherwise.
    - ``aggregate_mode`` for :meth:`BatchRun.summary`: ``ragchecker`` (undetermined counts as 0, as
      RAGChecker reports) is the default for RAGChecker input, ``determined`` otherwise.
    - ``keep_results``: keep every result (slim once written to ``out``), the samples and their lines in the
      run. With ``False`` (what ``ragmetrics evaluate`` does) memory stays flat in the number of rows: the input
      file is read twice instead of held (stdin and in-memory data are held), the results file is read row by
      row, and the summary, usage and ``BatchRun.report`` are built as results come in, their per-row scores in
      an unnamed temporary file beside ``out`` (the system's temporary directory without one); ``results`` then
      raises.
    - ``backend``: score elsewhere (e.g. ``ragmetrics_core.scale.ray_backend.RayBackend``), which builds its own
      evaluators; everything else about the run is the same. ``engine=`` is its deprecated old name.
    - ``only_failed`` (``--retry-failed``): evaluate again only the samples ``out`` holds a failed or partly
      undetermined result for; samples it has no row for are left for a later run (``BatchRun.left``).
    - ``calibration`` (a :class:`~ragmetrics_core.calibration.Calibration` or its file): add each calibrated
      metric's ``probability`` to the results (written, summarised and
      resumed ones alike; a CSV ``out`` gets a ``<metric>_probability`` column per calibrated metric).
    """
    _check_arguments(concurrency, limit, only_failed, out)
    backend = renamed_keyword("evaluate_file", "engine", engine, "backend", backend)
    fitted = None
    if calibration is not None:
        from ragmetrics_core.calibration.model import as_calibration

        fitted = as_calibration(calibration)
    run = BatchRun(out=None if out is None else Path(out), keep_results=keep_results)
    run.report.results_path = run.out
    if not keep_results:  # the figures' per-row scores go to a file beside the results, not to memory
        run.report.figures = RunningAggregate(spill_dir=_spill_dir(run.out))
    # plan: read the input once (and the results file, to resume); every bad row is known before any judging
    index = scan_results(out, {metric: spec.direction for metric, spec in METRICS.items()}) if out is not None else None
    plan = _plan(source, format, columns, limit, index, run, on_row_error, only_failed)
    # RAGChecker output carries claims and verdicts for its own metrics: score those, as RAGChecker did.
    from_ragchecker = format == "ragchecker" or plan.saw_evidence
    if metrics is None and from_ragchecker:
        metrics = RAGCHECKER_METRICS
    run.aggregate_mode = AggregationMode(aggregate_mode or ("ragchecker" if from_ragchecker else "determined"))
    given = evaluator is not None
    evaluator = _scorer(plan, evaluator, backend, judge, metrics, options)
    if index is not None and index.rows:
        _check_stored_metrics(index.path, _scored_metrics(evaluator, given, metrics))
    # resume: the summary starts from the rows already written; nothing per row is kept from them afterwards
    if index is not None and run.resumed:
        _resume(run, index, plan, fitted)
    # score and write; the summary is built as results come in (BatchRun._observe)
    show_progress = sys.stderr.isatty() if progress is None else progress
    _score_and_write(run, plan, evaluator, backend, list(metrics or METRICS), concurrency, show_progress, fitted)
    return run


def _spill_dir(out: Path | None) -> Path:
    """Where a run that keeps nothing per row in memory writes its figures: beside its results (a disk the user
    chose for data that size), else the system's temporary directory."""
    if out is None:
        return Path(tempfile.gettempdir())
    return out.absolute().parent  # made by the results writer before the first figure is written


def _check_arguments(concurrency: int, limit: int | None, only_failed: bool, out: str | Path | None) -> None:
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if limit is not None and limit < 0:
        raise ValueError("limit must not be negative")
    if only_failed and out is None:
        raise ValueError("retrying only the failed samples needs the results file they are in (out)")


def _scorer(
    plan: _Plan,
    evaluator: AsyncEvaluator | None,
    backend: ScoringBackend | None,
    judge: Judge | JudgeSettings | None,
    metrics: Sequence[str] | None,
    options: MetricOptions | None,
) -> AsyncEvaluator | None:
    """The evaluator that scores in this process (``None`` when a backend scores elsewhere with its own)."""
    if plan.saw_evidence and backend is not None:
        raise ValueError("RAGChecker input carries its own claims and verdicts: score it in one process")
    if evaluator is None and backend is None:
        if isinstance(judge, JudgeSettings):
            evaluator = build_evaluator(judge, metrics, options)
        else:
            evaluator = Evaluator(judge=judge, metrics=metrics, options=options)
    if plan.saw_evidence and not isinstance(evaluator, Evaluator):
        raise ValueError(
            "RAGChecker input carries its own claims and verdicts: score it with one judge, not an ensemble"
        )
    return evaluator


def _scored_metrics(evaluator: AsyncEvaluator | None, given: bool, metrics: Sequence[str] | None) -> list[str]:
    """The metrics the run scores; none to check for an evaluator of the caller's that does not say them (it is
    taken as it is)."""
    return list(getattr(evaluator, "metrics", None) or (() if given else metrics or METRICS))


def _check_stored_metrics(path: Path, metrics: Sequence[str]) -> None:
    """Refuse to resume into rows that lack a metric this run asks for: its summary would leave it out, and the
    resumed samples would never get it. Rows holding more metrics than asked for are fine (``calibrate --results``
    on the results of a full ``evaluate``)."""
    stored = stored_metrics(path) if metrics else None
    if stored is None:
        return
    held, line = stored
    missing = [metric for metric in metrics if metric not in held]
    if missing:
        raise InputError(RowError(
            str(path),
            f"its rows hold no {', '.join(missing)} (written with other metrics: {', '.join(held)}); resume with "
            "those metrics or write to a new --out",
            line=line,
        ))


def _resume(run: BatchRun, index: ResultsIndex, plan: _Plan, calibration: Calibration | None) -> None:
    """Count the results an earlier run wrote into this run's summary, then drop what the resume needed."""
    for position, stored in index.read(plan.resumed_rows):
        run._observe(position, stored.result if calibration is None else calibration.apply(stored.result))
    plan.resumed_rows = array("q")


def _score_and_write(
    run: BatchRun,
    plan: _Plan,
    evaluator: AsyncEvaluator | None,
    backend: ScoringBackend | None,
    metrics: list[str],
    concurrency: int,
    show_progress: bool,
    calibration: Calibration | None,
) -> None:
    """Score what the plan left to do, here or on ``backend``, each result written as it comes."""
    calibrated = [metric for metric in metrics if calibration is not None and metric in calibration.metrics]
    writer = ResultWriter(run.out, metrics, probabilities=calibrated) if run.out is not None else None
    try:
        runner = _FileScoring(evaluator, writer, run, concurrency, show_progress, calibration)
        if backend is None:
            run_sync(runner.run(plan.todo(), plan.pending))
        else:
            backend(list(plan.todo()), runner.record, progress=show_progress, resumed=run.resumed)
    except BaseException as exc:  # Ctrl-C or an evaluator's abort: the rows written and the run stay reachable
        run.interrupted = True
        keep_partial(exc, "batch_run", run, f"{run.done} of {run.total} samples were done before it")
        raise
    finally:
        if writer is not None:
            writer.close()


@dataclass(slots=True)
class _Plan:
    """What the first reading of the input found, and how to get the samples still to evaluate."""

    source: Source
    format: InputFormat
    columns: Mapping[str, str] | None
    total: int = 0
    pending: int = 0
    saw_evidence: bool = False
    resumed_rows: array[int] = field(default_factory=lambda: array("q"))
    """Results-file row → the input position of the sample it resumes, -1 for rows not taken."""
    passed: array[int] = field(default_factory=lambda: array("q"))
    """The input positions not to evaluate (resumed, or left by ``only_failed``), ascending: nothing a row in a
    fresh run."""
    held: list[Todo] | None = None
    """The samples to evaluate, for a source that cannot be read twice (stdin, a stream, data in memory)."""
    ids: IdLedger = field(default_factory=IdLedger)
    """The repeated ids the first reading found: the second settles ids from them, holding no id per row."""

    def todo(self) -> Iterator[Todo]:
        if self.held is not None:
            yield from self.held
            return
        # A file is read again rather than its samples held: the same rows come in the same order.
        position = passed = 0
        for row in iter_samples(self.source, format=self.format, columns=self.columns, ids=self.ids):
            if isinstance(row, RowError):
                continue
            if position >= self.total:
                return
            if passed < len(self.passed) and self.passed[passed] == position:
                passed += 1
            else:
                yield position, row
            position += 1


def _plan(
    source: Source,
    format: InputFormat,
    columns: Mapping[str, str] | None,
    limit: int | None,
    index: ResultsIndex | None,
    run: BatchRun,
    on_row_error: Callable[[RowError], None] | None,
    only_failed: bool = False,
) -> _Plan:
    """Read the input once: report bad rows, find the samples the results file already has, and mark the ones
    still to evaluate (held only when the source cannot be read again)."""
    rereadable = isinstance(source, str | Path) and str(source) != STDIN
    plan = _Plan(source, format, columns, held=None if rereadable else [], ids=IdLedger(limit=limit))
    if index is not None:
        plan.resumed_rows = array("q", [-1]) * index.rows
    for row in iter_samples(source, format=format, columns=columns, ids=plan.ids):
        if limit is not None and plan.total >= limit:
            break
        if isinstance(row, RowError):
            run._error(row)
            if on_row_error is not None:
                on_row_error(row)
            continue
        position = plan.total
        plan.total += 1
        plan.saw_evidence = plan.saw_evidence or row.evidence is not None
        _keep_input(run, row, position)
        redo = _to_evaluate(run, plan, index, row, position, only_failed)
        if not redo:
            plan.passed.append(position)
        else:
            plan.pending += 1
            if plan.held is not None:
                plan.held.append((position, row))
    run.total = plan.total
    run._results = [None] * plan.total if run.keep_results else []
    return plan


def _keep_input(run: BatchRun, row: LoadedSample, position: int) -> None:
    """What the run keeps of one input row: its sample and line (for ``keep_results``), and its report detail."""
    line = row.line if row.line is not None else (None if row.item is None else row.item + 1)
    if run.keep_results:
        run.samples[row.id] = row.sample
        if line is not None:
            run.lines[row.id] = line
    if position < DETAIL_LIMIT:
        run._detail_inputs[position] = (row.sample, line)


def _to_evaluate(
    run: BatchRun, plan: _Plan, index: ResultsIndex | None, row: LoadedSample, position: int, only_failed: bool
) -> int:
    """1 when the row is to be evaluated; 0 when the results file already holds it complete (resumed) or, with
    ``only_failed``, holds nothing for it (left for a later run)."""
    done_row = None if index is None else index.complete_row(row.id)
    if done_row is not None:
        plan.resumed_rows[done_row] = position
        run.resumed += 1
        return 0
    if index is not None and row.id in index.incomplete:
        run.retried[row.id] = index.incomplete[row.id]
    elif only_failed:  # never evaluated: not a failure to retry, left for a run without only_failed
        run.left += 1
        run._detail_inputs.pop(position, None)
        return 0
    return 1


class _FileScoring:
    def __init__(
        self,
        evaluator: AsyncEvaluator | None,
        writer: ResultWriter | None,
        run: BatchRun,
        concurrency: int,
        show_progress: bool,
        calibration: Calibration | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.calibration = calibration
        self.writer = writer
        self.run_state = run
        self.concurrency = concurrency
        self.show_progress = show_progress
        self.stop = StopFlag()
        self.workers: list[asyncio.Task[None]] = []

    async def run(self, todo: Iterator[Todo], pending: int) -> None:
        resumed = self.run_state.resumed
        with self._interrupts():
            await score_many(
                todo, self._evaluate, lambda _index, item, result: self.record(item, result),
                concurrency=self.concurrency, total=pending, progress=self.show_progress,
                description=f"evaluating ({resumed} resumed)" if resumed else "evaluating",
                stop=self.stop, workers=self.workers,
            )

    async def _evaluate(self, item: Todo) -> EvaluationResult:
        _, loaded = item
        assert self.evaluator is not None  # None only with a backend, which scores elsewhere
        try:
            if loaded.evidence is not None and isinstance(self.evaluator, Evaluator):
                result = await self.evaluator.aevaluate(loaded.sample, evidence=loaded.evidence)
            else:
                result = await self.evaluator.aevaluate(loaded.sample)
        except Exception as error:  # a broken sample must not end the run; its row records why
            judge = getattr(getattr(self.evaluator, "judge", None), "name", "")
            message = scrub_secrets(f"{type(error).__name__}: {error}")
            return EvaluationResult(sample_id=loaded.id, judge=str(judge), scores={}, error=message)
        if result.sample_id != loaded.id:
            result = result.model_copy(update={"sample_id": loaded.id})
        return result

    def record(self, item: Todo, result: EvaluationResult) -> None:
        position, loaded = item
        run = self.run_state
        if self.calibration is not None:  # here, not in _evaluate: results scored by a backend pass here too
            result = self.calibration.apply(result)
        earlier = run.retried.get(loaded.id)
        # A sample that fails again the same way keeps its earlier row: reruns must not grow the file.
        repeated = earlier is not None and not is_complete(result) and _same_failure(earlier, result)
        if self.writer is not None:
            if not repeated:
                self.writer.write(result, loaded.sample, loaded.line)
            result = result.slim()  # the full record is in the file: memory keeps what summary and report read
        run._observe(position, result)
        run.evaluated += 1
        if not is_complete(result):
            run.failed += 1

    @contextlib.contextmanager
    def _interrupts(self) -> Iterator[None]:
        """First Ctrl-C: finish the samples in flight, start no more. Second: cancel them too."""
        loop = asyncio.get_running_loop()
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        try:
            loop.add_signal_handler(signal.SIGINT, self._on_interrupt)
        except (NotImplementedError, RuntimeError, ValueError):
            yield  # no signal support here (e.g. Windows): KeyboardInterrupt still leaves whole rows behind
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    def _on_interrupt(self) -> None:
        self.run_state.interrupted = True
        if not self.stop.stopping:
            self.stop.stopping = True
            print(
                "\ninterrupted: finishing the samples in flight (Ctrl-C again to stop at once)",
                file=sys.stderr,
                flush=True,
            )
            return
        for worker in self.workers:
            worker.cancel()


def _same_failure(earlier: EvaluationResult, result: EvaluationResult) -> bool:
    return earlier.error == result.error and earlier.evidence.errors == result.evidence.errors


_TEXT_COLUMNS = ("user_input", "retrieved_contexts", "response", "reference")


def results_to_pandas(
    results: Sequence[EvaluationResult], *, samples: Mapping[str, RagSample] | None = None
) -> pandas.DataFrame:
    """One row per sample: ``sample_id``; with ``samples`` (by sample id, as ``BatchRun.samples``) the sample's
    ``user_input``, ``retrieved_contexts`` (texts), ``response`` and ``reference``; then ``judge``, ``error``, one
    column per metric score, ``<metric>_reason`` columns, ``<metric>_probability`` for calibrated metrics and the
    judge usage. Needs pandas (``pip install ragmetrics[pandas]``)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install 'ragmetrics[pandas]'") from None
    metrics: dict[str, None] = {}
    for result in results:
        metrics.update(dict.fromkeys(result.scores))
    calibrated: dict[str, None] = {}  # metrics with a probability somewhere: they get a <metric>_probability column
    for result in results:
        calibrated.update(dict.fromkeys(m for m, entry in result.scores.items() if entry.probability is not None))
    rows: list[dict[str, object]] = []
    for result in results:
        row: dict[str, object] = {"sample_id": result.sample_id}
        if samples is not None:
            sample = samples.get(result.sample_id or "")
            texts = (None, None, None, None) if sample is None else (
                sample.user_input, sample.context_texts, sample.response, sample.reference)
            row.update(zip(_TEXT_COLUMNS, texts, strict=True))
        row.update({"judge": result.judge, "error": result.error})
        row.update({metric: result.score(metric) for metric in metrics})
        for metric in metrics:
            entry = result.scores.get(metric)
            row[f"{metric}_reason"] = None if entry is None else entry.reason
        for metric in calibrated:
            entry = result.scores.get(metric)
            row[f"{metric}_probability"] = None if entry is None else entry.probability
        row.update({f"usage_{name}": value for name, value in result.usage.model_dump().items()})
        rows.append(row)
    return pandas.DataFrame(rows)


lazy_package(__name__, {}, {"FileEngine": Renamed(__name__, "ScoringBackend")})
