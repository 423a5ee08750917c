"""``evaluate(data)``: one call from any dataset shape to scores, the way ragas users expect it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ragmetrics_core.aggregate import AggregationMode
from ragmetrics_core.batch import BatchRun, evaluate_file
from ragmetrics_core.calibration.model import Calibration
from ragmetrics_core.formats.errors import NO_SAMPLES, InputError, RowError
from ragmetrics_core.formats.loader import source_name
from ragmetrics_core.judge_factory import JudgeSettings
from ragmetrics_core.judges.base import Judge
from ragmetrics_core.metrics import MetricOptions

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def evaluate(
    data: Any,
    *,
    metrics: Sequence[str] | None = None,
    judge: Judge | JudgeSettings | None = None,
    options: MetricOptions | None = None,
    columns: Mapping[str, str] | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    skip_bad_rows: bool = False,
    aggregate_mode: AggregationMode | str | None = None,
    calibration: Calibration | str | os.PathLike[str] | None = None,
) -> BatchRun:
    """Score every sample of ``data`` and return the run: ``.results``, ``.summary()``, ``.to_pandas()``.

    ``data`` is a pandas DataFrame, a HuggingFace ``datasets.Dataset``, a ragas ``EvaluationDataset`` or list of
    ``SingleTurnSample``, a list of dicts, a list of :class:`~ragmetrics_core.sample.RagSample`, or a path (JSONL,
    JSON, CSV, RAGChecker JSON). Columns may use ragas' names, old or new (``user_input``/``question``,
    ``retrieved_contexts``/``contexts``, ``response``/``answer``, ``reference``/``ground_truth``), or be mapped with
    ``columns={"response": "my_answer"}``. ``metrics`` (default: all fifteen), ``judge`` (default: the embedded
    judge; a :class:`~ragmetrics_core.judge_factory.JudgeSettings` builds an LLM judge or an ensemble) and
    ``options`` as for :class:`~ragmetrics_core.engine.Evaluator`. ``calibration`` (a file written by ``ragmetrics
    calibrate``, or the :class:`~ragmetrics_core.calibration.Calibration` read from one) adds each calibrated score's
    ``probability``.

    A bad row raises :class:`~ragmetrics_core.formats.errors.InputError` naming it before anything is judged, or
    is skipped and listed in ``.errors`` with ``skip_bad_rows=True``; data without a single row (an empty file,
    an empty DataFrame) raises :class:`~ragmetrics_core.formats.errors.InputError` too, as ``ragmetrics evaluate``
    fails on it; an unsupported ``data`` type raises :class:`TypeError` saying what is accepted. Works inside a
    running event loop (notebooks) too.
    """

    def refuse(row: RowError) -> None:
        raise InputError(row)

    run = evaluate_file(
        data,
        metrics=metrics,
        judge=judge,
        options=options,
        columns=columns,
        concurrency=concurrency,
        progress=progress,
        on_row_error=None if skip_bad_rows else refuse,
        aggregate_mode=aggregate_mode,
        calibration=calibration,
    )
    if not run.total and not run.skipped:
        raise InputError(RowError(source_name(data), NO_SAMPLES))
    return run
