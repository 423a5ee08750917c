"""Evaluate a whole file of samples: resumable, interruptible, with results written row by row.

``evaluate_file`` is what ``ragmetrics evaluate`` runs. Each finished sample is appended to the results
file at once, so an interrupted run (Ctrl-C, a crash, a killed job) keeps every row already done, and the
next run with the same ``out`` skips the samples it finds there. Samples are identified by their ``id``
or, without one, by a stable hash of their content (:func:`ragmetrics_core.formats.sample_key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ragmetrics_core.aggregate import MetricAggregate
from ragmetrics_core.engine import AsyncEvaluator, Evaluator, run_sync
from ragmetrics_core.formats import InputFormat, LoadedSample, RowError, iter_samples
from ragmetrics_core.formats.loader import Source
from ragmetrics_core.formats.results_io import ResultWriter, StoredResult, is_complete, read_results
from ragmetrics_core.judge_factory import JudgeSettings, build_evaluator
from ragmetrics_core.judges.base import Judge, Usage
from ragmetrics_core.metrics import METRICS, RAGCHECKER_METRICS
from ragmetrics_core.report.summary import AggregateMode, summarize, total_usage
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.runner import StopFlag, score_many
from ragmetrics_core.sample import RagSample

if TYPE_CHECKING:
    import pandas

    from ragmetrics_core.metrics import MetricOptions


@dataclass(slots=True)
class BatchRun:
    """What a batch run did. ``results`` holds every sample's latest result, resumed ones included."""

    results: list[EvaluationResult] = field(default_factory=list)
    samples: dict[str, RagSample] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    retried: dict[str, EvaluationResult] = field(default_factory=dict)
    """Samples that failed in an earlier run and are evaluated again, with that earlier result."""
    """Where each sample was in the input: its line (JSONL, CSV) or item number (JSON, in memory), from 1."""
    errors: list[RowError] = field(default_factory=list)
    evaluated: int = 0
    resumed: int = 0
    failed: int = 0
    interrupted: bool = False
    out: Path | None = None
    aggregate_mode: AggregateMode = "determined"

    def summary(self) -> list[MetricAggregate]:
        return summarize(self.results, self.aggregate_mode)

    @property
    def usage(self) -> Usage:
        return total_usage(self.results)

    def to_pandas(self) -> pandas.DataFrame:
        return results_to_pandas(self.results)


class FileEngine(Protocol):
    """Scores a file run's samples somewhere else (``ragmetrics_core.scale``: on Ray) and hands each result to
    ``record`` on this thread as it arrives; reading, resuming, writing and the summary stay :func:`evaluate_file`'s."""

    def __call__(
        self,
        todo: Sequence[LoadedSample],
        record: Callable[[LoadedSample, EvaluationResult], None],
        *,
        progress: bool,
        resumed: int,
    ) -> None: ...


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
    aggregate_mode: AggregateMode | None = None,
    engine: FileEngine | None = None,
) -> BatchRun:
    """Evaluate every sample in ``source`` and append one row per sample to ``out`` (JSONL, or CSV by
    extension).

    - ``metrics``/``judge``/``options`` build the :class:`~ragmetrics_core.engine.Evaluator` (default:
      every metric, embedded judge); ``judge`` may be :class:`~ragmetrics_core.judge_factory.JudgeSettings`
      (what the CLI's judge flags build; several models make an ensemble). Or pass a ready ``evaluator``.
    - Rows of ``out`` from an earlier run are kept and their samples skipped; samples that failed or whose
      judge calls failed are evaluated again (the new row supersedes the old one).
    - ``limit`` takes the first N samples of the input (resumed ones count).
    - A bad input row goes to ``on_row_error`` (and ``BatchRun.errors``) and is skipped.
    - ``progress``: a progress bar on stderr; by default only when stderr is a terminal.
    - Ctrl-C stops taking new samples and finishes the ones in flight (a second Ctrl-C cancels them);
      ``BatchRun.interrupted`` is then true. The results file is valid either way.
    - RAGChecker input (``format="ragchecker"``, or a ``checking_outputs.json`` found by ``auto``) is scored
      from the claims and verdicts it carries, with RAGChecker's metrics unless ``metrics`` says otherwise.
    - ``aggregate_mode`` for :meth:`BatchRun.summary`: ``ragchecker`` (undetermined counts as 0, as
      RAGChecker reports) is the default for RAGChecker input, ``determined`` otherwise.
    - ``engine``: score elsewhere (e.g. ``ragmetrics_core.scale.ray_engine.RayFileEngine``), which builds its own
      evaluators; everything else about the run is the same.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if limit is not None and limit < 0:
        raise ValueError("limit must not be negative")
    run = BatchRun(out=None if out is None else Path(out))
    directions = {metric: spec.direction for metric, spec in METRICS.items()}
    stored = read_results(out, directions, slim=True) if out is not None else None
    todo, saw_evidence = _plan(source, format, columns, limit, stored.rows if stored else {}, run, on_row_error)
    # RAGChecker output carries claims and verdicts for its own metrics: score those, as RAGChecker did.
    from_ragchecker = format == "ragchecker" or saw_evidence
    if metrics is None and from_ragchecker:
        metrics = RAGCHECKER_METRICS
    run.aggregate_mode = aggregate_mode or ("ragchecker" if from_ragchecker else "determined")
    if saw_evidence and engine is not None:
        raise ValueError("RAGChecker input carries its own claims and verdicts: score it in one process")
    if evaluator is None and engine is None:
        if isinstance(judge, JudgeSettings):
            evaluator = build_evaluator(judge, metrics, options)
        else:
            evaluator = Evaluator(judge=judge, metrics=metrics, options=options)
    if saw_evidence and not isinstance(evaluator, Evaluator):
        raise ValueError(
            "RAGChecker input carries its own claims and verdicts: score it with one judge, not an ensemble"
        )
    writer = ResultWriter(out, list(metrics or METRICS)) if out is not None else None
    show_progress = sys.stderr.isatty() if progress is None else progress
    try:
        runner = _Runner(evaluator, writer, run, concurrency, show_progress)
        if engine is None:
            run_sync(runner.run(todo))
        else:
            engine(todo, runner._record, progress=show_progress, resumed=run.resumed)
    finally:
        if writer is not None:
            writer.close()
        order = {sample_id: position for position, sample_id in enumerate(run.samples)}
        run.results.sort(key=lambda result: order.get(result.sample_id or "", len(order)))
    return run


def _plan(
    source: Source,
    format: InputFormat,
    columns: Mapping[str, str] | None,
    limit: int | None,
    done: Mapping[str, StoredResult],
    run: BatchRun,
    on_row_error: Callable[[RowError], None] | None,
) -> tuple[list[LoadedSample], bool]:
    """Read the input, report bad rows, keep finished results, and list the samples still to evaluate
    (and whether the input carried evidence)."""
    todo: list[LoadedSample] = []
    taken = 0
    saw_evidence = False
    for row in iter_samples(source, format=format, columns=columns):
        if limit is not None and taken >= limit:
            break
        if isinstance(row, RowError):
            run.errors.append(row)
            if on_row_error is not None:
                on_row_error(row)
            continue
        taken += 1
        saw_evidence = saw_evidence or row.evidence is not None
        run.samples[row.id] = row.sample
        position = row.line if row.line is not None else (None if row.item is None else row.item + 1)
        if position is not None:
            run.lines[row.id] = position
        previous = done.get(row.id)
        if previous is not None and is_complete(previous.result):
            run.results.append(previous.result)
            run.resumed += 1
        else:
            if previous is not None:
                run.retried[row.id] = previous.result
            todo.append(row)
    return todo, saw_evidence


class _Runner:
    def __init__(
        self,
        evaluator: AsyncEvaluator | None,
        writer: ResultWriter | None,
        run: BatchRun,
        concurrency: int,
        show_progress: bool,
    ) -> None:
        self.evaluator = evaluator
        self.writer = writer
        self.run_state = run
        self.concurrency = concurrency
        self.show_progress = show_progress
        self.stop = StopFlag()
        self.workers: list[asyncio.Task[None]] = []

    async def run(self, todo: list[LoadedSample]) -> None:
        resumed = self.run_state.resumed
        with self._interrupts():
            await score_many(
                todo, self._evaluate, lambda _index, loaded, result: self._record(loaded, result),
                concurrency=self.concurrency, total=len(todo), progress=self.show_progress,
                description=f"evaluating ({resumed} resumed)" if resumed else "evaluating",
                stop=self.stop, workers=self.workers,
            )

    async def _evaluate(self, loaded: LoadedSample) -> EvaluationResult:
        assert self.evaluator is not None  # None only with an engine, which scores elsewhere
        try:
            if loaded.evidence is not None and isinstance(self.evaluator, Evaluator):
                result = await self.evaluator.aevaluate(loaded.sample, evidence=loaded.evidence)
            else:
                result = await self.evaluator.aevaluate(loaded.sample)
        except Exception as error:  # a broken sample must not end the run; its row records why
            judge = getattr(getattr(self.evaluator, "judge", None), "name", "")
            message = f"{type(error).__name__}: {error}"
            return EvaluationResult(sample_id=loaded.id, judge=str(judge), scores={}, error=message)
        if result.sample_id != loaded.id:
            result = result.model_copy(update={"sample_id": loaded.id})
        return result

    def _record(self, loaded: LoadedSample, result: EvaluationResult) -> None:
        run = self.run_state
        earlier = run.retried.get(loaded.id)
        # A sample that fails again the same way keeps its earlier row: reruns must not grow the file.
        repeated = earlier is not None and not is_complete(result) and _same_failure(earlier, result)
        if self.writer is not None:
            if not repeated:
                self.writer.write(result, loaded.sample, loaded.line)
            result = result.slim()  # the full record is in the file: memory keeps what summary and report read
        run.results.append(result)
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


def results_to_pandas(results: Sequence[EvaluationResult]) -> pandas.DataFrame:
    """One row per sample: ``sample_id``, ``judge``, ``error``, one column per metric score, then
    ``<metric>_reason`` columns and the judge usage. Needs pandas (``pip install ragmetrics[pandas]``)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install 'ragmetrics[pandas]'") from None
    metrics: dict[str, None] = {}
    for result in results:
        metrics.update(dict.fromkeys(result.scores))
    rows: list[dict[str, object]] = []
    for result in results:
        row: dict[str, object] = {"sample_id": result.sample_id, "judge": result.judge, "error": result.error}
        row.update({metric: result.score(metric) for metric in metrics})
        for metric in metrics:
            entry = result.scores.get(metric)
            row[f"{metric}_reason"] = None if entry is None else entry.reason
        row.update({f"usage_{name}": value for name, value in result.usage.model_dump().items()})
        rows.append(row)
    return pandas.DataFrame(rows)
