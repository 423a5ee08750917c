"""Evaluation on Ray Data: a pool of actors, each holding one evaluator, scores batches of rows.

- :func:`evaluate_on_ray`: a ``ray.data.Dataset`` or a path (JSONL, JSON, CSV read by ragmetrics' own reader;
  Parquet read by Ray) → a Dataset of result rows (the CLI's columns plus the JSONL ``record``), lazily;
  ``.write_parquet(dir)`` or iterate it.
- :class:`RayBackend`: the scoring backend ``ragmetrics evaluate --backend ray`` gives
  :func:`~ragmetrics_core.batch.evaluate_file`: the file is read, resumed and written by the driver exactly as in
  one process; only the scoring moves to the workers.
- :func:`connect`: join a cluster by address, or start a local Ray that leaves a CPU free.

Ray is imported here only: ``ragmetrics_core`` itself never needs it.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow
import ray
import ray.data
from tqdm import tqdm

from ragmetrics_core.batch import Record, Todo
from ragmetrics_core.formats import InputError, InputFormat, LoadedSample, iter_samples
from ragmetrics_core.judge_factory import JudgeSettings
from ragmetrics_core.judges.quota import QuotaStats
from ragmetrics_core.metrics import MetricOptions
from ragmetrics_core.scale.ray_quota import RayGate
from ragmetrics_core.scale.reaper import Reaper, start_reaper
from ragmetrics_core.scale.rows import RowScorer, prepared_row, result_from_row

DEFAULT_BATCH_SIZE = 64
_MAX_BLOCKS = 1000


def connect(address: str | None = None, *, workers: int = 2) -> bool:
    """Make sure this process is connected to Ray; ``True`` when it started a local instance (the caller stops it
    with :func:`shutdown_local`). Without ``address`` (or ``RAY_ADDRESS``) a local Ray gets ``workers + 1`` logical
    CPUs: one actor per worker, and one CPU left for Ray Data's own tasks, without which an actor pool holding every
    CPU can hang. A local instance is watched by a reaper process that stops what Ray leaves behind should this
    process be killed (:mod:`ragmetrics_core.scale.reaper`)."""
    global _reaper
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        started = False
    else:
        # Token authentication is on for the instance we start (Ray's default); Ray's warning that says so is
        # about our own choice, not the user's, and would break into the progress bar.
        logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
        # address="local": a new instance of our own, even when `ray start` left one running on this machine.
        ray.init(address="local", num_cpus=workers + 1, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
        _reaper = start_reaper()
        started = True
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the CLI draws its own bar over finished samples
    context.print_on_execution_start = False
    # Ray Data warns that the bars we just turned off are off, and logs each execution's end at INFO: both would
    # break into our bar. Its warnings and errors still show.
    logging.getLogger("ray.data._internal.progress").setLevel(logging.ERROR)
    logging.getLogger("ray.data._internal.execution.streaming_executor").setLevel(logging.WARNING)
    return started


def shutdown_local() -> None:
    """Shut down the local Ray instance :func:`connect` started (its reaper first, which then stops nothing)."""
    global _reaper
    if _reaper is not None:
        _reaper.stop()
        _reaper = None
    ray.shutdown()


_reaper: Reaper | None = None


class _ScoringWorker:
    """One Ray Data actor: builds its evaluator once, then scores every batch it is handed."""

    def __init__(self, scorer: RowScorer) -> None:
        self.scorer = scorer

    def __call__(self, batch: Any) -> Any:
        return self.scorer.score_table(batch)


def score_dataset(
    dataset: ray.data.Dataset,
    scorer: RowScorer,
    *,
    workers: int = 2,
    batch_size: int = DEFAULT_BATCH_SIZE,
    worker_cpus: float = 1.0,
) -> ray.data.Dataset:
    """``dataset``'s rows scored by a pool of ``workers`` actors, ``batch_size`` rows at a time (lazy)."""
    if workers < 1 or batch_size < 1:
        raise ValueError("workers and batch_size must be at least 1")
    scorer = _model_threads(scorer, worker_cpus)
    return dataset.map_batches(
        _ScoringWorker,
        fn_constructor_kwargs={"scorer": scorer},
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=worker_cpus,
        # Workers on other machines do not share the driver's environment: the judge settings found in it go along.
        runtime_env={"env_vars": dict(scorer.environment)} if scorer.environment else None,
    )


def evaluate_on_ray(
    source: ray.data.Dataset | str | Path | Any,
    *,
    judge: JudgeSettings | None = None,
    metrics: Sequence[str] | None = None,
    options: MetricOptions | None = None,
    workers: int = 2,
    concurrency: int = 4,
    batch_size: int = DEFAULT_BATCH_SIZE,
    address: str | None = None,
    format: InputFormat = "auto",
    columns: Mapping[str, str] | None = None,
) -> ray.data.Dataset:
    """Score ``source`` on Ray and return the Dataset of result rows (lazy: it runs when read or written).

    ``source``: a ``ray.data.Dataset`` of raw rows (ragas-style columns, mapped by ``columns``), a Parquet file or
    directory (read by Ray), or anything :func:`~ragmetrics_core.formats.iter_samples` reads (a JSONL, JSON or CSV
    path, a DataFrame, dicts), which is read here, so a bad row raises the same ``file:line`` error as the CLI.
    ``judge.limits`` puts one rate limit and budget over all workers. ``concurrency``: samples in flight per worker.
    """
    connect(address, workers=workers)
    scorer = RowScorer(judge, metrics, options, concurrency=concurrency, columns=columns)
    if scorer.judge.limits is not None and scorer.judge.limits.active:
        scorer.gate = RayGate.start(scorer.judge.limits)
    if isinstance(source, ray.data.Dataset):
        dataset = source
    elif isinstance(source, str | Path) and _is_parquet(Path(source)):
        dataset = ray.data.read_parquet(str(source))
    else:
        loaded = []
        for row in iter_samples(source, format=format, columns=columns):
            if not isinstance(row, LoadedSample):
                raise InputError(row)
            loaded.append(row)
        dataset = _prepared_dataset(loaded, batch_size, workers)
    return score_dataset(dataset, scorer, workers=workers, batch_size=batch_size)


class RayBackend:
    """Scores a file run's samples on Ray for :func:`~ragmetrics_core.batch.evaluate_file` (``backend=``): a
    :class:`~ragmetrics_core.batch.ScoringBackend`.

    Results come back to the driver as batches finish and are written there one row at a time, so a driver killed
    mid-run leaves every finished row behind and the same command resumes; a worker that dies has its batch
    retried by Ray Data, and rows already written are never written again.
    """

    def __init__(
        self,
        scorer: RowScorer,
        *,
        workers: int = 2,
        batch_size: int = DEFAULT_BATCH_SIZE,
        address: str | None = None,
    ) -> None:
        self.scorer = scorer
        self.workers = workers
        self.batch_size = batch_size
        self.address = address
        self.quota: QuotaStats | None = None
        """What the shared rate limit and budget saw (requests, 429s, spend), when the judge has limits."""

    def __call__(
        self,
        todo: Sequence[Todo],
        record: Record,
        *,
        progress: bool,
        resumed: int,
    ) -> None:
        if not todo:
            return  # nothing left to score: no cluster to start
        started = connect(self.address, workers=self.workers)
        gate: RayGate | None = None
        try:
            limits = self.scorer.judge.limits
            if limits is not None and limits.active:
                gate = RayGate.start(limits)
                self.scorer.gate = gate
            by_id = {item[1].id: item for item in todo}
            results = score_dataset(
                _prepared_dataset([loaded for _, loaded in todo], self.batch_size, self.workers), self.scorer,
                workers=self.workers, batch_size=self.batch_size,
            )
            description = f"evaluating on Ray ({resumed} resumed)" if resumed else "evaluating on Ray"
            bar = tqdm(total=len(todo), disable=not progress, unit="sample", file=sys.stderr, dynamic_ncols=True,
                       desc=description)
            with bar:
                for batch in results.iter_batches(batch_size=None, batch_format="pyarrow"):
                    table: pyarrow.Table = batch
                    for row in table.select(["record"]).to_pylist():
                        result = result_from_row(row)
                        # pop: should Ray ever hand a batch over twice (a task re-run to rebuild a lost block),
                        # its rows are written once all the same.
                        item = by_id.pop(result.sample_id or "", None)
                        if item is not None:
                            record(item, result)
                            bar.update(1)
            if gate is not None:
                self.quota = gate.stats()
        finally:
            self.scorer.gate = None
            if gate is not None:
                gate.stop()
            if started:
                shutdown_local()


def _model_threads(scorer: RowScorer, worker_cpus: float) -> RowScorer:
    """A model judge gets as many inference threads as its worker has CPUs (ONNX Runtime would otherwise take every
    core of the machine in each worker). Each worker loads the model once, when it builds its evaluator."""
    settings = scorer.judge
    options = dict(settings.model_options or {})
    if settings.kind != "model" or options.get("threads") is not None:
        return scorer
    options["threads"] = max(1, math.ceil(worker_cpus))
    sized = copy.copy(scorer)
    sized.judge = dataclasses.replace(settings, model_options=options)
    return sized


def _prepared_dataset(loaded: Sequence[LoadedSample], batch_size: int, workers: int) -> ray.data.Dataset:
    # About one block per batch, so that the actors start scoring while later blocks are still queued, and at least
    # one per worker (as rows allow): with fewer, Ray Data warns that the pool cannot be used and a worker idles.
    blocks = max(1, min(_MAX_BLOCKS, len(loaded), max(workers, math.ceil(len(loaded) / batch_size))))
    return ray.data.from_items([prepared_row(row) for row in loaded], override_num_blocks=blocks)


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() in (".parquet", ".pq") or (path.is_dir() and any(path.glob("*.parquet")))
