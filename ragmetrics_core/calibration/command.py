"""``ragmetrics calibrate LABELLED_FILE``: score the labelled samples, fit a map per metric, write the file, report.

Scoring goes through :func:`~ragmetrics_core.batch.evaluate_file`, so ``--results`` is both a cache and a way in for
scores made earlier: rows already in it (``ragmetrics evaluate labelled.jsonl -o scores.jsonl``) are read back, not
judged again, and an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ragmetrics_core.calibration.fit import FOLDS, MIN_SAMPLES, CalibrationDataError, FitSettings, fit_metric
from ragmetrics_core.calibration.labels import LABEL_COLUMNS, LabelledScores, pair_labels
from ragmetrics_core.calibration.model import Calibration, FittedOn, Interval

if TYPE_CHECKING:
    from ragmetrics_core.formats import RowError
    from ragmetrics_core.judge_factory import JudgeSettings

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

DEFAULT_METRICS = ("faithfulness",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="LABELLED_FILE", help="JSONL/JSON/CSV samples with a label column")
    parser.add_argument("-o", "--out", required=True, help="where to write the calibration (JSON)")
    parser.add_argument(
        "--label",
        metavar="COLUMN",
        help="the label column: yes/no, true/false, 1/0 or pass/fail "
        f"(default: the first of {', '.join(LABEL_COLUMNS)})",
    )
    parser.add_argument(
        "--metrics",
        default=",".join(DEFAULT_METRICS),
        help="comma-separated metric ids to calibrate against the label (default: faithfulness)",
    )
    parser.add_argument(
        "--results",
        metavar="PATH",
        help="results file (JSONL or CSV) that caches the scores: rows already there are not judged again, e.g. "
        "one written by 'ragmetrics evaluate LABELLED_FILE -o PATH'",
    )
    parser.add_argument("--format", choices=("auto", "jsonl", "json", "csv"), default="auto", help="input format")
    parser.add_argument(
        "--column", action="append", default=[], metavar="FIELD=COLUMN",
        help="read FIELD from COLUMN, as for evaluate; repeatable",
    )
    parser.add_argument("--folds", type=int, default=FOLDS, help=f"cross-validation folds (default {FOLDS})")
    parser.add_argument(
        "--min-samples", type=int, default=MIN_SAMPLES,
        help=f"labelled samples with a determined score a metric needs (default {MIN_SAMPLES})",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="samples evaluated at once (default 4)")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None,
        help="always show a progress bar (default: only when stderr is a terminal)",
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")


def _metrics_for_results(results: str | None, metrics: list[str]) -> list[str]:
    """The metrics to score: those asked for or, when the ``--results`` file holds them among more (the results of a
    full ``ragmetrics evaluate``), the file's own, so that rows scored now fit it (a CSV header has a column each)."""
    from ragmetrics_core.formats.results_io import stored_metrics
    from ragmetrics_core.metrics import METRICS

    stored = stored_metrics(results) if results is not None and Path(results).is_file() else None
    held = [metric for metric in stored[0] if metric in METRICS] if stored is not None else []
    return held if set(metrics) <= set(held) else metrics


def run_calibrate(
    args: argparse.Namespace, judge: JudgeSettings, *, on_row_error: Callable[[RowError], None] | None = None
) -> int:
    from ragmetrics_core.batch import evaluate_file
    from ragmetrics_core.formats import parse_column_mapping
    from ragmetrics_core.metrics import METRICS, MetricOptions, Scoring
    from ragmetrics_core.metrics.registry import check_metric_ids

    metrics = [part.strip() for part in args.metrics.split(",") if part.strip()]
    if not metrics:
        raise ValueError(f"--metrics names no metric; known: {', '.join(METRICS)}")
    check_metric_ids(metrics)
    settings = FitSettings(folds=args.folds, min_samples=args.min_samples)
    options = MetricOptions(scoring=Scoring(args.scoring))
    run = evaluate_file(
        args.input,
        out=args.results,
        format=args.format,
        columns=parse_column_mapping(args.column),
        metrics=_metrics_for_results(args.results, metrics),
        judge=judge,
        options=options,
        concurrency=args.concurrency,
        progress=args.progress,
        on_row_error=on_row_error,
    )
    if run.interrupted:
        print("interrupted: nothing fitted (run again to continue scoring)", file=sys.stderr)
        return 130
    pairs = pair_labels(run.results, run.samples, metrics, args.label)
    if not pairs.labelled:
        looked = args.label or " / ".join(LABEL_COLUMNS)
        raise CalibrationDataError(f"{args.input}: none of the {pairs.rows} samples has a label ({looked})")
    if len(pairs.judges) > 1:
        raise CalibrationDataError(
            f"the scores come from several judges ({', '.join(sorted(pairs.judges))}): a calibration holds for one; "
            "use a --results file written with one judge"
        )
    fitted = {
        metric: fit_metric(
            metric, pairs.scores[metric], pairs.labels[metric], direction=METRICS[metric].direction,
            undetermined=pairs.undetermined[metric], settings=settings,
        )
        for metric in metrics
    }
    calibration = Calibration(
        ragmetrics_version=_version(),
        judge=next(iter(pairs.judges), ""),
        scoring=options.scoring.value,
        label=pairs.label,
        fitted_on=FittedOn(
            source=str(args.input), sha256=_sha256(args.input), rows=pairs.rows, labelled=pairs.labelled,
            unlabelled=pairs.unlabelled, failed=pairs.failed,
        ),
        metrics=fitted,
    )
    path = calibration.save(args.out)
    print(format_report(calibration, pairs))
    print(f"calibration: {path}")
    return 1 if run.errors or run.failed else 0


def format_report(calibration: Calibration, pairs: LabelledScores) -> str:
    """The fit in a few lines: per metric its method, counts, and Brier / ECE raw against calibrated."""
    width = max(len("metric"), *(len(metric) for metric in calibration.metrics))
    lines = [
        f"judge {calibration.judge or '(none)'}, label column {calibration.label!r}: {pairs.labelled} labelled of "
        f"{pairs.rows} samples ({pairs.unlabelled} unlabelled, {pairs.failed} failed, skipped)",
        f"{'metric':<{width}}  {'method':<8} {'n':>6} {'undet.':>6} {'yes':>6}  {'Brier raw → calibrated':<43} "
        "ECE raw → calibrated",
    ]
    for metric, entry in calibration.metrics.items():
        lines.append(
            f"{metric:<{width}}  {entry.method:<8} {entry.n:>6} {entry.undetermined:>6} {entry.base_rate:>6.1%}  "
            f"{_pair(entry.raw.brier, entry.calibrated.brier):<43} {_pair(entry.raw.ece, entry.calibrated.ece)}"
        )
        for note in entry.notes:
            lines.append(f"  note: {note}")
    lines.append(
        "calibrated figures are out-of-fold (cross-validated), intervals 95 % bootstrap; "
        + "; ".join(f"{metric}: base rate alone scores Brier {entry.base_rate_brier:.3f}"
                    for metric, entry in calibration.metrics.items())
    )
    return "\n".join(lines)


def _pair(raw: Interval, calibrated: Interval) -> str:
    return f"{_interval(raw)} → {_interval(calibrated)}"


def _interval(value: Interval) -> str:
    return f"{value[0]:.3f} [{value[1]:.3f}, {value[2]:.3f}]"


def _sha256(source: str) -> str | None:
    path = Path(source)
    if source == "-" or not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmetrics")
    except PackageNotFoundError:
        return "0"

