"""Score a batch of rows wherever it is handed over: the backend-neutral unit a distributed run ships to its workers.

A :class:`RowScorer` is only a description (judge settings, metrics, options, per-worker concurrency, and
optionally a shared :class:`~ragmetrics_core.judges.quota.RequestGate`): it pickles without a live client or an
API key, and builds its evaluator on first use in the process that scores. Scoring goes through
:func:`~ragmetrics_core.batch.evaluate_file` on the rows in memory, so a worker scores exactly as the
single-process run does (same runner, same handling of a failing sample), and each result row carries the
columns the CLI writes: those of a CSV results file, plus ``record``, the JSONL line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.engine import AsyncEvaluator
from ragmetrics_core.formats import LoadedSample, RowError
from ragmetrics_core.formats.results_io import csv_header, csv_row, result_record
from ragmetrics_core.judge_factory import JudgeSettings, build_evaluator
from ragmetrics_core.judges.quota import RequestGate
from ragmetrics_core.metrics import METRICS, MetricOptions
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample

if TYPE_CHECKING:
    import pyarrow

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

RECORD_COLUMN = "record"
"""The full JSONL results line of a row (what ``ragmetrics evaluate --out x.jsonl`` writes)."""

# Rows the driver has already read (ids settled, input lines known) travel in these columns.
ID_COLUMN, LINE_COLUMN, SAMPLE_COLUMN = "_ragmetrics_id", "_ragmetrics_line", "_ragmetrics_sample"


# HF_*: where a model judge's Hub id resolves (the cache, offline mode).
_FORWARDED = re.compile(r"^(RAGMETRICS_|OPENAI_BASE_URL$|OPENAI_ORG|HF_HUB_OFFLINE$|HF_HOME$|HF_HUB_CACHE$)")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|AUTH", re.IGNORECASE)


def forwarded_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The judge configuration this process has in its environment (``RAGMETRICS_*``, ``OPENAI_BASE_URL``), to
    set on workers of another machine, which do not share it. Anything named like a secret stays behind: workers
    read keys from their own environment (``JudgeSettings.api_key_env``)."""
    env = os.environ if environ is None else environ
    return {name: value for name, value in env.items() if _FORWARDED.match(name) and not _SECRET_NAME.search(name)}


def prepared_row(loaded: LoadedSample) -> dict[str, Any]:
    """A sample read on the driver, as a row a worker scores as it is (id and input line kept)."""
    return {ID_COLUMN: loaded.id, LINE_COLUMN: loaded.line, SAMPLE_COLUMN: loaded.sample.model_dump_json()}


class RowScorer:
    """Scores batches of rows into result rows. Picklable: only the description travels; each process builds its
    own evaluator (and reads the API key from its own environment, ``judge.api_key_env``) on first use.

    ``concurrency``: samples in flight at once within a batch (what an LLM judge needs; the embedded judge is
    CPU-bound and gains nothing past 1). ``columns``: field → column mapping for raw rows, as ``--column``.
    ``environment``: variables the workers need set (default: :func:`forwarded_environment` of this process; a
    backend sets them on its workers, e.g. Ray's ``runtime_env``).
    """

    def __init__(
        self,
        judge: JudgeSettings | None = None,
        metrics: Sequence[str] | None = None,
        options: MetricOptions | None = None,
        *,
        concurrency: int = 4,
        columns: Mapping[str, str] | None = None,
        gate: RequestGate | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.judge = judge or JudgeSettings()
        self.metrics: tuple[str, ...] = tuple(metrics or METRICS)
        self.options = options or MetricOptions()
        self.concurrency = concurrency
        self.columns = dict(columns or {})
        self.gate = gate
        self.environment = forwarded_environment() if environment is None else dict(environment)
        self._evaluator: AsyncEvaluator | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_evaluator"] = None  # live clients and keys stay in the process that built them
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    @property
    def evaluator(self) -> AsyncEvaluator:
        if self._evaluator is None:
            self._evaluator = build_evaluator(self.judge, self.metrics, self.options, gate=self.gate)
        return self._evaluator

    def score_rows(self, batch: object) -> list[dict[str, Any]]:
        """Result rows for ``batch``: a pandas DataFrame, a pyarrow Table, a dict of columns (Ray's ``numpy``
        format) or a list of dicts, either raw samples (ragas-style columns) or rows from :func:`prepared_row`.
        A row that is not a sample gives a result row whose ``error`` says what is wrong with it."""
        rows = _as_rows(batch)
        if rows and isinstance(rows[0], Mapping) and ID_COLUMN in rows[0]:
            loaded = [_from_prepared(row) for row in rows]
            return self._score([row.sample for row in loaded], {row.id: row.line for row in loaded}, None)
        return self._score(rows, {}, self.columns)

    def score_table(self, batch: object) -> pyarrow.Table:
        """:meth:`score_rows` as an Arrow table with fixed column types (see :func:`result_schema`)."""
        import pyarrow

        return pyarrow.Table.from_pylist(self.score_rows(batch), schema=result_schema(self.metrics))

    def _score(
        self, source: list[Any], lines: Mapping[str, int | None], columns: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        errors: list[RowError] = []
        run = evaluate_file(
            source, columns=columns, evaluator=self.evaluator, concurrency=self.concurrency, progress=False,
            on_row_error=errors.append,
        )
        out = [
            self.result_row(result, run.samples.get(result.sample_id or ""), lines.get(result.sample_id or ""))
            for result in run.results
        ]
        out.extend(self.result_row(_bad_row(error, self.evaluator), None, error.line) for error in errors)
        return out

    def result_row(self, result: EvaluationResult, sample: RagSample | None, line: int | None) -> dict[str, Any]:
        """One result as a row: the CLI's CSV cells by name, and its JSONL record (both from ``results_io``)."""
        row = dict(zip(csv_header(self.metrics), csv_row(result, sample, line, self.metrics), strict=True))
        row[RECORD_COLUMN] = json.dumps(result_record(result, sample, line), ensure_ascii=False)
        return row


def result_schema(metrics: Sequence[str]) -> pyarrow.Schema:
    """Arrow types of the result columns: fixed, so that blocks scored apart (a batch of undetermined scores, one
    without input lines) concatenate without type promotion."""
    import pyarrow

    types: dict[str, pyarrow.DataType] = {"input_line": pyarrow.int64(), "n_contexts": pyarrow.int64()}
    types.update({metric: pyarrow.float64() for metric in metrics})
    types.update({name: pyarrow.int64() for name in ("usage_calls", "usage_embedding_calls", "usage_cache_hits",
                                                      "usage_prompt_tokens", "usage_completion_tokens")})
    types.update({"usage_latency_s": pyarrow.float64(), "usage_cost_usd": pyarrow.float64()})
    columns = [*csv_header(metrics), RECORD_COLUMN]
    return pyarrow.schema([(name, types.get(name, pyarrow.string())) for name in columns])


def result_from_row(row: Mapping[str, Any]) -> EvaluationResult:
    """The :class:`EvaluationResult` back from a result row's ``record`` (extra keys such as the sample ignored)."""
    return EvaluationResult.model_validate_json(row[RECORD_COLUMN])


def _bad_row(error: RowError, evaluator: AsyncEvaluator) -> EvaluationResult:
    judge = getattr(getattr(evaluator, "judge", None), "name", "")
    return EvaluationResult(sample_id=None, judge=str(judge), scores={}, error=f"bad input row: {error}")


def _from_prepared(row: Mapping[str, Any]) -> LoadedSample:
    line = row.get(LINE_COLUMN)
    sample = RagSample.model_validate_json(row[SAMPLE_COLUMN])
    return LoadedSample(sample, line=None if line is None else int(line))


def _as_rows(batch: object) -> list[Any]:
    """The batch's rows: dicts, or whatever the list held (``RagSample`` objects are read as they are)."""
    if hasattr(batch, "to_pylist"):  # a pyarrow Table
        rows: list[Any] = batch.to_pylist()
        return rows
    if hasattr(batch, "to_dict") and hasattr(batch, "columns"):  # a pandas DataFrame
        return list(batch.to_dict("records"))
    if isinstance(batch, Mapping):  # columns: Ray's "numpy" batches
        names = list(batch)
        columns = [list(batch[name]) for name in names]
        return [dict(zip(names, cells, strict=True)) for cells in zip(*columns, strict=True)]
    if isinstance(batch, Iterable) and not isinstance(batch, str | bytes):
        return list(batch)
    raise TypeError(f"cannot score a batch of type {type(batch).__name__}: expected a DataFrame, an Arrow table, "
                    "a dict of columns or a list of dicts")
