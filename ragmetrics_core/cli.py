"""``ragmetrics``: evaluate files of RAG samples, build reports, run the demo.

Exit status: 0 when every row was evaluated, 1 when some input rows were skipped or some samples failed
(the rest are still written), 2 for a usage error or an unreadable input, 130 when interrupted, 141 when the
reader of standard output went away (``ragmetrics metrics | head -5``: no traceback, as a shell tool behaves).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragmetrics_core.formats import InputError, InputFormat, RowError, parse_column_mapping
from ragmetrics_core.formats.errors import NO_SAMPLES
from ragmetrics_core.formats.results_io import claims_path, output_format
from ragmetrics_core.judge_factory import JudgeConfigError, JudgeSettings
from ragmetrics_core.judges.quota import BUDGET_EXHAUSTED, ProviderLimits
from ragmetrics_core.metrics import MetricOptions, Scoring
from ragmetrics_core.summary_format import format_usage

if TYPE_CHECKING:
    from ragmetrics_core.batch import BatchRun, ScoringBackend
    from ragmetrics_core.calibration import Calibration

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 128 + 13  # killed by SIGPIPE, as a shell reports it


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _run(argv)
        sys.stdout.flush()  # here, where a closed pipe is caught, rather than at interpreter exit
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except SystemExit:  # argparse's --help and usage errors exit from inside parse_args
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _stdout_to_devnull()
            raise SystemExit(EXIT_BROKEN_PIPE) from None
        raise
    return code


def _run(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except (InputError, JudgeConfigError, ValueError) as error:
        print(f"ragmetrics: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        raise  # the reader of stdout went away: main() handles it
    except OSError as error:  # an output that cannot be written (a directory, a full disk): said, not a traceback
        where = f"{error.filename}: " if error.filename else ""
        print(f"ragmetrics: error: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ragmetrics: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


def _stdout_to_devnull() -> None:
    """Python's documented answer to a reader that went away (``| head``): what is still buffered, and the
    flush at exit, go to devnull instead of raising a second BrokenPipeError there."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragmetrics",
        description="Claim-level RAG evaluation: RAGChecker and ragas-style metrics with an offline judge.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _evaluate_parser(commands)
    _calibrate_parser(commands)
    report = commands.add_parser("report", help="build the HTML report from a results file")
    report.add_argument("results", help="a results file written by 'ragmetrics evaluate --out' (JSONL or CSV)")
    report.add_argument("-o", "--out", required=True, help="where to write the HTML report")
    report.add_argument("--title", default="ragmetrics report")
    report.add_argument("--aggregate", choices=("determined", "ragchecker"), default="determined")
    report.set_defaults(handler=_report)
    demo = commands.add_parser(
        "demo", help="run a small offline RAG app with the callback attached and print its scores"
    )
    demo.add_argument("--report", metavar="PATH", help="also write the HTML report of the demo run")
    demo.add_argument(
        "--plain", action="store_true", help="skip LangChain even when it is installed (plain retrieval loop)"
    )
    demo.add_argument(
        "--spans", action="store_true",
        help="print every span and evaluation event to stderr (by default they go to two files, summarised)",
    )
    demo.set_defaults(handler=_demo)
    metrics = commands.add_parser("metrics", help="list the metric ids with their direction and family")
    metrics.set_defaults(handler=_metrics)
    return parser


def _evaluate_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = commands.add_parser(
        "evaluate",
        help="score every sample of a JSONL/JSON/CSV/RAGChecker file",
        description="Score every sample in INPUT; one result row per sample goes to --out as it finishes, "
        "so an interrupted run resumes where it stopped when run again with the same --out.",
    )
    evaluate.add_argument(
        "input", metavar="INPUT",
        help="a .jsonl, .json or .csv file, or - for standard input (JSON lines or a JSON document, told apart by "
        "content; --format csv for CSV)",
    )
    evaluate.add_argument(
        "--format",
        choices=("auto", "jsonl", "json", "csv", "ragchecker"),
        default="auto",
        help="input format (default: from the extension; ragchecker = RAGChecker's checking_outputs.json)",
    )
    evaluate.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="read FIELD (user_input, retrieved_contexts, response, reference, id, metadata) from COLUMN; "
        "repeatable, e.g. --column response=answer",
    )
    evaluate.add_argument("--metrics", help="comma-separated metric ids (default: all; see 'ragmetrics metrics')")
    _judge_options(evaluate)
    evaluate.add_argument("--concurrency", type=int, default=4, help="samples evaluated at once (default 4)")
    evaluate.add_argument("--limit", type=int, help="evaluate only the first N samples")
    evaluate.add_argument(
        "--retry-failed", action="store_true",
        help="with --out: evaluate again only the samples whose results there failed; leave new ones for later",
    )
    evaluate.add_argument(
        "-o", "--out",
        help="results file: .jsonl (everything) or .csv (one column per score; claims in NAME.claims.csv)",
    )
    evaluate.add_argument("--report", metavar="PATH", help="write the self-contained HTML report here")
    evaluate.add_argument("--title", default=None, help="report title (default: the input's name)")
    evaluate.add_argument(
        "--aggregate",
        choices=("determined", "ragchecker"),
        help="means over determined scores (default), or RAGChecker's (undetermined counts as 0; the default "
        "for --format ragchecker)",
    )
    scale = evaluate.add_argument_group("scale and limits")
    scale.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="where samples are scored: local: this process (default); ray: a pool of Ray workers "
        "(pip install 'ragmetrics[ray]')",
    )
    # --engine: the deprecated old name of --backend, for one release
    scale.add_argument("--engine", choices=("local", "ray"), dest="deprecated_engine", help=argparse.SUPPRESS)
    scale.add_argument("--workers", type=int, default=2, help="with --backend ray: scoring actors (default 2)")
    scale.add_argument("--address", help="with --backend ray: the cluster to join (default: a local Ray)")
    scale.add_argument("--batch-size", type=int, default=64, help="with --backend ray: rows per batch (default 64)")
    scale.add_argument(
        "--api-key-env", metavar="NAME", help="read the judge's API key from this variable where the judge runs"
    )
    scale.add_argument("--requests-per-second", type=float, help="one limit on judge requests for the whole run")
    scale.add_argument("--tokens-per-minute", type=float, help="one limit on judge tokens for the whole run")
    scale.add_argument(
        "--budget-usd", type=float, help="stop calling the judge once this much is spent (needs --price)"
    )
    scale.add_argument("--budget-tokens", type=int, help="stop calling the judge once this many tokens are used")
    progress = evaluate.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None,
        help="always show a progress bar (default: only when stderr is a terminal)",
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    evaluate.add_argument(
        "--calibration", metavar="FILE",
        help="a calibration written by 'ragmetrics calibrate': add each calibrated score's probability",
    )
    evaluate.set_defaults(handler=_evaluate)


def _judge_options(parser: argparse.ArgumentParser) -> None:
    """The judge flags, shared by evaluate and calibrate (a calibration holds for the judge it was fitted with)."""
    parser.add_argument(
        "--judge",
        choices=("embedded", "openai", "model"),
        default=os.environ.get("RAGMETRICS_JUDGE", "embedded"),
        help="embedded (offline, default), openai (any OpenAI-compatible endpoint) or model (a local NLI model "
        "on ONNX Runtime: pip install 'ragmetrics[model]'); env RAGMETRICS_JUDGE",
    )
    parser.add_argument(
        "--model", help="judge model (env RAGMETRICS_JUDGE_MODEL); with --judge model: a model directory or Hub id"
    )
    parser.add_argument("--models", help="comma-separated judge models: an ensemble of several LLM judges")
    parser.add_argument(
        "--claims-model",
        help="with --judge model: an LLM (set up as for --judge openai) extracts the claims, not the embedded judge",
    )
    parser.add_argument(
        "--ensemble",
        choices=("mean", "majority"),
        default="mean",
        help="with --models: average each judge's scores (mean), or take majority verdicts on shared claims",
    )
    parser.add_argument(
        "--base-url", help="OpenAI-compatible base URL (env RAGMETRICS_JUDGE_BASE_URL or OPENAI_BASE_URL)"
    )
    parser.add_argument(
        "--price",
        metavar="PROMPT,COMPLETION",
        help="US dollars per million prompt and completion tokens, for the cost estimate",
    )
    parser.add_argument(
        "--cache", metavar="PATH", help="SQLite file caching judge calls (env RAGMETRICS_JUDGE_CACHE)"
    )
    parser.add_argument(
        "--scoring",
        choices=("graded", "binary"),
        default="graded",
        help="graded (default): count each claim by the judge's graded support where it gives one; binary: "
        "verdicts only (entailed = 1)",
    )


def _judge_settings(args: argparse.Namespace, limits: ProviderLimits | None = None) -> JudgeSettings:
    models = _split(args.models) or ([args.model] if args.model else [])
    if args.judge == "embedded" and (models or args.base_url or args.cache or args.price):
        print(
            "ragmetrics: note: --model/--models/--base-url/--cache/--price apply to --judge openai or model only",
            file=sys.stderr,
        )
    return JudgeSettings(
        kind=args.judge,
        models=models,
        base_url=args.base_url,
        cache_path=args.cache,
        price=_price(args.price),
        ensemble=args.ensemble,
        api_key_env=getattr(args, "api_key_env", None),
        limits=limits,
        extractor_model=args.claims_model,
    )


def _calibrate_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ragmetrics_core.calibration.command import add_arguments

    calibrate = commands.add_parser(
        "calibrate",
        help="fit a map from scores to P(label = yes) on your labelled samples",
        description="Score LABELLED_FILE (rows with the sample fields and a yes/no label per sample) with the "
        "judge, fit a monotone map per metric (isotonic or Platt, chosen by cross-validated Brier score), write it "
        "to --out and print the Brier score and calibration error before and after, with 95 % intervals.",
    )
    add_arguments(calibrate)
    _judge_options(calibrate)
    calibrate.set_defaults(handler=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    from ragmetrics_core.calibration.command import run_calibrate

    _refuse_overwriting("--out", args.out, [("the labelled file", args.input), ("the --results file", args.results)])
    _warn_if_not_utf8(args.input, args.format)
    return run_calibrate(args, _judge_settings(args), on_row_error=_print_row_error)


def _split(value: str | None) -> list[str]:
    return [] if not value else [part.strip() for part in value.split(",") if part.strip()]


def _price(value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    parts = _split(value)
    try:
        prompt, completion = (float(part) for part in parts)
    except ValueError:
        raise ValueError(
            f"--price takes two numbers, PROMPT,COMPLETION (USD per million tokens), got {value!r}"
        ) from None
    if prompt < 0 or completion < 0:
        raise ValueError("--price must not be negative")
    return prompt, completion


def _evaluate(args: argparse.Namespace) -> int:
    """``ragmetrics evaluate``: settings from the flags → the file run → what it did → the report → the exit code."""
    metrics = _split(args.metrics) or None
    if metrics is not None:
        from ragmetrics_core.metrics.registry import check_metric_ids

        check_metric_ids(metrics)
    read = [("the input file", args.input)]
    outputs = (("--out", args.out, read), ("--report", args.report, [*read, ("the --out file", args.out)]))
    for option, path, taken in outputs:
        if path is not None:
            _refuse_overwriting(option, path, taken)
            _check_writable(option, path)
    _warn_if_not_utf8(args.input, args.format)
    settings = _judge_settings(args, _limits(args))
    calibration = _calibration(args.calibration, settings, args.scoring)
    backend = _backend(args, settings, metrics)
    run = _run_file(args, settings, metrics, backend, calibration)
    if not run.total and not run.skipped:
        source = "standard input" if args.input == "-" else args.input
        print(f"ragmetrics: error: {source}: {NO_SAMPLES}", file=sys.stderr)
        return EXIT_USAGE
    _print_outcome(run, backend)
    if args.report:
        _write_report(args, run)
    if run.interrupted:
        print("interrupted: run the same command again to continue", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_PARTIAL if run.errors or run.failed else EXIT_OK


def _run_file(
    args: argparse.Namespace,
    settings: JudgeSettings,
    metrics: list[str] | None,
    backend: ScoringBackend | None,
    calibration: Calibration | None,
) -> BatchRun:
    """The file run; a run that fails, or finds no sample, before writing a row leaves no empty ``--out`` behind."""
    from ragmetrics_core.batch import evaluate_file

    created = _new_outputs(args.out)
    try:
        run = evaluate_file(
            args.input,
            out=args.out,
            format=args.format,
            columns=parse_column_mapping(args.column),
            metrics=metrics,
            judge=settings,
            options=MetricOptions(scoring=Scoring(args.scoring)),
            concurrency=args.concurrency,
            limit=args.limit,
            progress=args.progress,
            on_row_error=_print_row_error,
            aggregate_mode=args.aggregate,
            keep_results=False,  # a million rows: the figures are built as results come, the results stay in --out
            backend=backend,
            only_failed=args.retry_failed,
            calibration=calibration,
        )
    except BaseException:
        _remove_if_empty(created)
        raise
    if not run.total and not run.skipped:
        _remove_if_empty(created)
    return run


def _print_outcome(run: BatchRun, backend: ScoringBackend | None) -> None:
    """The summary table, the judge's usage, the counts, and what is left to do."""
    print(run.summary().table())
    print(format_usage(run.usage))
    counts = (
        f"{_count(run.done, 'sample')}: {run.evaluated} evaluated, {run.resumed} resumed, "
        f"{run.failed} failed; errors: {_count(run.skipped, 'bad input row')} skipped"
    )
    if run.out is not None:
        counts += f"; results in {run.out}"
        if output_format(run.out) == "csv":
            counts += f", claims in {claims_path(run.out)}"
        if run.failed:
            counts += " (run again to retry the failed samples)"
    print(counts)
    if run.left:
        print(f"--retry-failed: {_count(run.left, 'sample')} never evaluated left for a run without it")
    if run.unreachable:
        print(f"judge endpoint unreachable: {_count(run.unreachable, 'sample')} left undetermined without calling it; "
              "check --base-url and run again to retry them")
    if run.budget_exhausted:
        print(f"{BUDGET_EXHAUSTED}: {_count(run.budget_exhausted, 'sample')} left undetermined; raise the budget "
              "and run again "
              "to score them")
    quota = getattr(backend, "quota", None)
    if quota is not None:
        print(f"rate limit and budget: {quota.requests} requests, {quota.rate_limited} answered 429, "
              f"${quota.spent_usd:.4f} spent", file=sys.stderr)


def _write_report(args: argparse.Namespace, run: BatchRun) -> None:
    from ragmetrics_core.report.html import write_report_data

    title = args.title or f"ragmetrics: {Path(args.input).name if args.input != '-' else 'stdin'}"
    run.report.skipped = run.skipped
    path = write_report_data(run.report, args.report, title=title, aggregate_mode=run.aggregate_mode)
    print(f"report: {path}")


def _warn_if_not_utf8(source: str, fmt: InputFormat) -> None:
    """Say once where an input file stops being UTF-8: its rows are still read, with U+FFFD for those bytes."""
    from ragmetrics_core.formats.loader import STDIN, first_line_not_utf8, format_is_known

    if source == STDIN or not Path(source).is_file() or not format_is_known(fmt, source):
        return  # stdin is read once, as it comes; a missing file or an unknown extension is refused on opening
    line = first_line_not_utf8(source)
    if line is not None:
        print(
            f"ragmetrics: warning: {source}:{line}: not valid UTF-8; such bytes are read as U+FFFD (saved in "
            "another encoding? save the file as UTF-8)",
            file=sys.stderr,
        )


def _refuse_overwriting(option: str, path: str, taken: Sequence[tuple[str, str | None]]) -> None:
    """An output is never a file the command reads or writes otherwise: ``--report`` typed for ``--out`` would replace
    the data with an HTML page."""
    for what, other in taken:
        if other is not None and other != "-" and _same_file(path, other):
            raise ValueError(f"{option} {path} is {what}; name another file")


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist yet: the same path, then
        return Path(first).resolve() == Path(second).resolve()


def _check_writable(option: str, path: str) -> None:
    """Refuse an output that cannot be written before any sample is judged, not with a traceback after the run
    (the scores of a run without ``--out`` would be lost). Leaves no file behind that was not there."""
    target = Path(path)
    existed = target.exists()
    try:
        if not target.parent.exists():
            target.parent.mkdir(parents=True)
        with target.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ValueError(f"{option} {path}: cannot write there ({error.strerror or error})") from None
    if not existed:
        target.unlink()


def _calibration(path: str | None, settings: JudgeSettings, scoring: str) -> Calibration | None:
    if path is None:
        return None
    from ragmetrics_core.calibration import Calibration

    calibration = Calibration.load(path)
    if calibration.scoring != scoring:
        raise ValueError(
            f"{path} was fitted on {calibration.scoring} scores, not {scoring}: fit one with --scoring {scoring}"
        )
    if settings.kind == "embedded" and not calibration.applies_to("embedded"):
        raise ValueError(f"{path} was fitted on judge {calibration.judge!r}, not the embedded judge")
    return calibration


def _new_outputs(out: str | None) -> list[Path]:
    """The output files this run would create: the results file first, and with CSV its claims file."""
    if out is None or Path(out).exists():
        return []  # an earlier run's file: resumed, never deleted
    return [Path(out)] + ([claims_path(out)] if output_format(out) == "csv" else [])


def _remove_if_empty(created: Sequence[Path]) -> None:
    """Delete the files this run created when the results file holds no result (empty, or a CSV header only)."""
    if not created:
        return
    results = created[0]
    try:
        with results.open("rb") as handle:
            lines = sum(1 for _ in handle)
    except OSError:
        return
    if lines == 0 or (lines == 1 and output_format(results) == "csv"):
        for path in created:
            path.unlink(missing_ok=True)


def _limits(args: argparse.Namespace) -> ProviderLimits | None:
    limits = ProviderLimits(
        requests_per_s=args.requests_per_second, tokens_per_min=args.tokens_per_minute,
        budget_usd=args.budget_usd, max_tokens=args.budget_tokens, price=_price(args.price),
    )
    return limits if limits.active else None


def _backend(args: argparse.Namespace, settings: JudgeSettings, metrics: list[str] | None) -> ScoringBackend | None:
    if args.deprecated_engine is not None:
        print("ragmetrics: warning: --engine is deprecated and will be removed in the next release; use --backend",
              file=sys.stderr)
        args.backend = args.deprecated_engine
    if args.backend != "ray":
        return None
    try:
        from ragmetrics_core.scale.ray_backend import RayBackend
    except ImportError as error:
        raise ValueError(f"--backend ray needs Ray ({error}); install it with: pip install 'ragmetrics[ray]'") from None
    from ragmetrics_core.scale import RowScorer

    scorer = RowScorer(settings, metrics, MetricOptions(scoring=Scoring(args.scoring)), concurrency=args.concurrency)
    return RayBackend(scorer, workers=args.workers, batch_size=args.batch_size, address=args.address)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _print_row_error(error: RowError) -> None:
    print(f"ragmetrics: skipped bad row: {error}", file=sys.stderr)


def _report(args: argparse.Namespace) -> int:
    from ragmetrics_core.metrics import METRICS
    from ragmetrics_core.report.data import read_report_data
    from ragmetrics_core.report.html import write_report_data

    _refuse_overwriting("--out", args.out, [("the results file", args.results)])
    try:  # the results reader takes a missing file for an empty one (a run about to start); a report needs rows
        Path(args.results).open("rb").close()
    except OSError as error:
        raise InputError(RowError(args.results, f"cannot open: {error.strerror or error}")) from None
    data = read_report_data(args.results, {metric: spec.direction for metric, spec in METRICS.items()})
    if not data.figures.added:
        raise ValueError(f"{args.results}: no results found")
    path = write_report_data(data, args.out, title=args.title, aggregate_mode=args.aggregate)
    print(f"report: {path}")
    return EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from ragmetrics_core.demo import run_demo

    return run_demo(report=args.report, use_langchain=not args.plain, spans=args.spans)


def _metrics(args: argparse.Namespace) -> int:
    from ragmetrics_core.metrics import METRICS

    width = max(len(metric) for metric in METRICS)
    for metric, spec in METRICS.items():
        print(f"{metric:<{width}}  {spec.direction.value:<16}  {spec.family:<9}  {spec.description}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
