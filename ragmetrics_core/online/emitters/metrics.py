"""OpenTelemetry metrics: score histograms, undetermined and judge-usage counters, and the pipeline's ledger.

Scores reach a metrics backend (Prometheus, an OTLP collector) through the application's ``MeterProvider``,
used through the API only: we set nothing global. Two sources feed it:

* each evaluation record, in :meth:`MetricsEmitter.emit` (a histogram per metric score, undetermined scores
  by reason class, evaluation time, judge tokens and cost), on the emitter's own thread like every emitter's;
* the online evaluator's ledger (submitted, sampled out, dropped, completed, failed, pending, per-emitter
  outcomes), read by observable instruments when the app's metric reader collects
  (:meth:`MetricsEmitter.observe`): the hot path's counters are not touched twice.

Attributes are bounded in cardinality: metric ids, labels, reason classes, the chain name, route, framework and
judge come from configuration, never from texts or ids; a guard folds any attribute past
``max_values_per_attribute`` distinct values into ``_other`` should an app name its chains per request.
Names and attributes are listed in docs/monitoring.md.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import NamedTuple, Protocol

from opentelemetry.metrics import CallbackOptions, MeterProvider, Observation, get_meter
from opentelemetry.util.types import AttributeValue

from ragmetrics_core.aggregate import reason_kind
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.stats import OnlineStats
from ragmetrics_core.online.types import EvaluationRecord

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_SCOPE = "ragmetrics"

Attributes = dict[str, AttributeValue]
Reading = Iterable[tuple[float, Attributes]]
"""What an observable instrument reads from the ledger: values, each with the attributes of its series."""

SCORE_BUCKETS: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
"""Upper bounds for scores in [0, 1]: ``le="0"`` counts exact zeros (an answer with no supported claim), finer
steps at both ends where thresholds and p10 alerts sit."""

DURATION_BUCKETS: tuple[float, ...] = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
"""Seconds: an embedded judge answers in tens of milliseconds, an LLM judge in seconds, the default timeout is 120."""

DIMENSIONS: tuple[str, ...] = ("chain_name", "route", "framework", "judge")
"""What may split the series, by default all: ``chain_name`` (``ragmetrics.origin.chain_name``), ``route``
(``ragmetrics.sampling.route``), ``framework`` (``ragmetrics.origin.framework``), ``judge``
(``ragmetrics.judge.kind`` and ``gen_ai.request.model``)."""

FAILURE_CLASSES: tuple[str, ...] = (
    "invalid_sample", "evaluator_unavailable", "judge_error", "timeout", "evaluation_error", "internal_error",
    "cancelled", "shutdown_timeout",
)
"""The online worker's failure classes (``error.type``), reported at zero before they first occur: Prometheus'
``rate()`` counts nothing for a series' first sample, so a series born at 1 would hide the first failure."""

OTHER = "_other"
_ENSEMBLE = re.compile(r"^ensemble\[[^\]]*\]\((?P<members>.*)\)$")


class StatsSource(Protocol):
    """What :meth:`MetricsEmitter.observe` reads: an :class:`~ragmetrics_core.online.OnlinePipeline`."""

    def stats(self) -> OnlineStats: ...


def judge_attributes(judge: str | None) -> Attributes:
    """``ragmetrics.judge.kind`` and, for a judge that calls a model, ``gen_ai.request.model``:
    ``openai:gpt-4o-mini`` gives ``openai`` and ``gpt-4o-mini``; an ensemble gives ``ensemble`` and its members."""
    if not judge:
        return {}
    ensemble = _ENSEMBLE.match(judge)
    if ensemble is not None:
        return {sc.JUDGE_KIND: "ensemble", sc.GEN_AI_REQUEST_MODEL: ensemble.group("members").replace(" ", "")}
    kind, _, model = judge.partition(":")
    return {sc.JUDGE_KIND: kind, sc.GEN_AI_REQUEST_MODEL: model} if model else {sc.JUDGE_KIND: kind}


def undetermined_reason(reason: str) -> str:
    """The class of an undetermined score's reason, as a label value (``no_reference``, ``judge_error``, …)."""
    return reason_kind(reason).replace(" ", "_")


class _Bounded:
    """Caps the distinct values each attribute key takes; later newcomers become ``_other``."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._seen: dict[str, set[AttributeValue]] = {}
        self._lock = threading.Lock()

    def __call__(self, attributes: Attributes) -> Attributes:
        bounded: Attributes = {}
        with self._lock:
            for key, value in attributes.items():
                seen = self._seen.setdefault(key, set())
                if value not in seen and len(seen) >= self._limit:
                    value = OTHER
                else:
                    seen.add(value)
                bounded[key] = value
        return bounded


class MetricsEmitter:
    """Records evaluations as OpenTelemetry metrics through the given (or the global) ``MeterProvider``.

    Args:
        meter_provider: the app's provider; ``None`` uses the global one (the API's proxy, so an app that sets
            its provider after creating the emitter is still served).
        dimensions: which of :data:`DIMENSIONS` split the series (fewer dimensions, fewer series).
        max_values_per_attribute: distinct values kept per attribute before the rest fold into ``_other``.
    """

    def __init__(
        self,
        *,
        meter_provider: MeterProvider | None = None,
        dimensions: Collection[str] = DIMENSIONS,
        max_values_per_attribute: int = 100,
        name: str = "metrics",
    ) -> None:
        unknown = set(dimensions) - set(DIMENSIONS)
        if unknown:
            raise ValueError(f"unknown dimensions {sorted(unknown)}; choose from {list(DIMENSIONS)}")
        if (
            isinstance(max_values_per_attribute, bool)
            or not isinstance(max_values_per_attribute, int)
            or max_values_per_attribute < 1
        ):
            raise ValueError(f"max_values_per_attribute must be a positive int, got {max_values_per_attribute!r}")
        self._dimensions = frozenset(dimensions)
        self._bounded = _Bounded(max_values_per_attribute)
        self._name = name
        meter = get_meter(_SCOPE, _version(), meter_provider=meter_provider)
        self._meter = meter
        self._score = meter.create_histogram(
            sc.METRIC_SCORE, unit="1", description="Score of one metric on one evaluated sample, in [0, 1].",
            explicit_bucket_boundaries_advisory=list(SCORE_BUCKETS),
        )
        self._probability = meter.create_histogram(
            sc.METRIC_PROBABILITY, unit="1",
            description="With a calibration: P(the user's label says yes) for one calibrated score, in [0, 1].",
            explicit_bucket_boundaries_advisory=list(SCORE_BUCKETS),
        )
        self._undetermined = meter.create_counter(
            sc.METRIC_UNDETERMINED, unit="{score}",
            description="Metric scores that came out undetermined, by reason class.",
        )
        self._duration = meter.create_histogram(
            sc.METRIC_DURATION, unit="s", description="Wall time of one evaluation, from start to scores (or failure).",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self._tokens = meter.create_counter(
            sc.METRIC_JUDGE_TOKENS, unit="{token}", description="Tokens the judge spent, by gen_ai.token.type."
        )
        self._cost = meter.create_counter(
            sc.METRIC_JUDGE_COST, unit="{USD}", description="What the judge cost in US dollars (with a price table)."
        )
        self._sources: list[tuple[weakref.ReferenceType[StatsSource], Attributes]] = []
        self._sources_lock = threading.Lock()
        self._observing = False

    @property
    def name(self) -> str:
        return self._name

    # ------------------------------------------------------------------ records

    def emit(self, record: EvaluationRecord) -> None:
        common = self._bounded(self._common_attributes(record))
        for metric, entry in record.scores.items():
            attributes: Attributes = {**common, sc.EVALUATION_NAME: metric}
            if entry.score is not None:
                if entry.label is not None:
                    attributes[sc.EVALUATION_SCORE_LABEL] = entry.label
                self._score.record(entry.score, attributes)
                if entry.probability is not None:  # calibrated scores only: no series without a calibration
                    self._probability.record(entry.probability, {**common, sc.EVALUATION_NAME: metric})
            else:
                attributes[sc.UNDETERMINED_REASON] = undetermined_reason(entry.reason)
                self._undetermined.add(1, attributes)
        timed = dict(common)
        if record.failure is not None:
            timed[sc.ERROR_TYPE] = record.failure
        self._duration.record(max(0, record.finished_ns - record.started_ns) / 1e9, timed)
        usage = record.usage
        if usage.prompt_tokens:
            self._tokens.add(usage.prompt_tokens, {**common, sc.GEN_AI_TOKEN_TYPE: sc.TOKEN_TYPE_INPUT})
        if usage.completion_tokens:
            self._tokens.add(usage.completion_tokens, {**common, sc.GEN_AI_TOKEN_TYPE: sc.TOKEN_TYPE_OUTPUT})
        if usage.cost_usd:
            self._cost.add(usage.cost_usd, common)

    def force_flush(self, timeout_s: float) -> bool:
        """Nothing to push: the app's metric reader exports on its own schedule. Flushing the provider here would
        make a pull reader (Prometheus) keep the extra snapshot and serve it again, duplicated, at the next scrape;
        a push reader sends the last values when the app shuts its ``MeterProvider`` down."""
        return True

    def shutdown(self, timeout_s: float) -> None:
        """The provider belongs to the app, which shuts it down."""

    def _common_attributes(self, record: EvaluationRecord) -> Attributes:
        attributes: Attributes = {}
        dimensions = self._dimensions
        if "chain_name" in dimensions and record.origin.chain_name:
            attributes[sc.ORIGIN_CHAIN_NAME] = record.origin.chain_name
        if "route" in dimensions:
            attributes[sc.SAMPLING_ROUTE] = record.route
        if "framework" in dimensions:
            attributes[sc.ORIGIN_FRAMEWORK] = record.origin.framework
        if "judge" in dimensions:
            attributes.update(judge_attributes(record.judge))
        return attributes

    # ------------------------------------------------------------------ the ledger

    def observe(self, source: StatsSource, *, pipeline: str | None = None) -> None:
        """Report ``source``'s counters (an ``OnlinePipeline``'s ``stats()``) whenever the app's reader collects.

        Read at collection time only, so submitting a sample costs nothing more. ``pipeline`` labels the series
        (``ragmetrics.pipeline``) when one process runs several evaluators. The evaluator is held weakly.
        """
        if not callable(getattr(source, "stats", None)):
            raise TypeError(f"{type(source).__name__} has no stats(); pass an OnlinePipeline")
        labels: Attributes = {} if pipeline is None else {sc.PIPELINE: pipeline}
        with self._sources_lock:
            if any(ref() is source for ref, _ in self._sources):
                return  # observed already: counting it twice would double every series
            self._sources.append((weakref.ref(source), labels))
            first = not self._observing
            self._observing = True
        if first:
            self._create_ledger_instruments()

    def _create_ledger_instruments(self) -> None:
        meter = self._meter
        for ledger in _LEDGER_INSTRUMENTS:
            create = meter.create_observable_up_down_counter if ledger.up_down else meter.create_observable_counter
            create(ledger.name, [self._observer(ledger.read)], unit=ledger.unit, description=ledger.description)

    def _observer(
        self, read: Callable[[OnlineStats], Reading]
    ) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def callback(_options: CallbackOptions) -> Iterable[Observation]:
            with self._sources_lock:
                self._sources = [(ref, labels) for ref, labels in self._sources if ref() is not None]
                sources = list(self._sources)
            observations: list[Observation] = []
            for ref, labels in sources:
                source = ref()
                if source is None:
                    continue
                stats = source.stats()
                observations.extend(Observation(value, {**labels, **extra}) for value, extra in read(stats))
            return observations

        return callback


def _sampled_out(stats: OnlineStats) -> Reading:
    for decision, count in (
        ("not_sampled", stats.not_sampled), ("throttled", stats.throttled), ("over_budget", stats.over_budget)
    ):
        yield count, {sc.SAMPLING_DECISION: decision}


def _dropped(stats: OnlineStats) -> Reading:
    for reason, count in (
        ("queue_full", stats.queue_full), ("rejected", stats.rejected), ("abandoned", stats.abandoned)
    ):
        yield count, {sc.DROP_REASON: reason}


def _failed(stats: OnlineStats) -> Reading:
    reasons: Mapping[str, int] = stats.failure_reasons
    for reason in sorted(set(FAILURE_CLASSES) | set(reasons)):
        yield reasons.get(reason, 0), {sc.ERROR_TYPE: reason}


def _pending(stats: OnlineStats) -> Reading:
    yield stats.queued, {sc.PENDING_STATE: "queued"}
    yield stats.in_flight, {sc.PENDING_STATE: "in_flight"}


def _emitter_records(stats: OnlineStats) -> Reading:
    for emitter, counts in sorted(stats.emitters.items()):
        for outcome, count in (("emitted", counts.emitted), ("failed", counts.failed), ("dropped", counts.dropped)):
            yield count, {sc.EMITTER_NAME: emitter, sc.EMITTER_OUTCOME: outcome}


class _LedgerInstrument(NamedTuple):
    """One observable instrument over the pipeline's ledger: what it is called, reads and says."""

    name: str
    read: Callable[[OnlineStats], Reading]
    unit: str
    description: str
    up_down: bool = False  # a level that goes down as well as up (an up-down counter), not a running total


_LEDGER_INSTRUMENTS = (
    _LedgerInstrument(
        sc.METRIC_SUBMITTED, lambda stats: [(stats.submitted, {})], "{sample}",
        "Samples offered to the online evaluator.",
    ),
    _LedgerInstrument(
        sc.METRIC_SAMPLED_OUT, _sampled_out, "{sample}",
        "Samples the sampler declined, by ragmetrics.sampling.decision.",
    ),
    _LedgerInstrument(
        sc.METRIC_DROPPED, _dropped, "{sample}",
        "Samples that could not be taken (queue full, after shutdown, abandoned), by ragmetrics.drop.reason.",
    ),
    _LedgerInstrument(
        sc.METRIC_COMPLETED, lambda stats: [(stats.completed, {})], "{sample}", "Samples evaluated with scores.",
    ),
    _LedgerInstrument(
        sc.METRIC_FAILED, _failed, "{sample}", "Samples whose evaluation failed, by error.type.",
    ),
    _LedgerInstrument(
        sc.METRIC_PENDING, _pending, "{sample}",
        "Samples queued or being evaluated right now, by ragmetrics.pending.state.", up_down=True,
    ),
    _LedgerInstrument(
        sc.METRIC_EMITTER_RECORDS, _emitter_records, "{record}",
        "Evaluation records per emitter, by ragmetrics.emitter.outcome (emitted, failed, dropped).",
    ),
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmetrics")
    except PackageNotFoundError:
        return "0"
