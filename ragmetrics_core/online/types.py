"""What crosses the online pipeline's boundaries: from the integrations in, and to the emitters out.

Integrations run on the user's hot path, so they hand over cheap plain records (:class:`SampleDraft`,
:class:`Origin`, :class:`SpanRef`); validation into a :class:`~ragmetrics_core.sample.RagSample` happens on
the worker. This module imports nothing of ours at run time (tested): the pydantic models load with the worker.
Emitters receive one :class:`EvaluationRecord` per evaluated (or failed) submission, already
redacted and size-capped, its sample as a :class:`SampleView`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:  # pydantic models and the redactor: the worker's business, never loaded on the app's hot path
    from ragmetrics_core.online.privacy import Redactor
    from ragmetrics_core.results import EvaluationResult, MetricScore, Usage
    from ragmetrics_core.sample import RagSample


@dataclass(slots=True, frozen=True)
class ContextDraft:
    text: str
    id: str | None = None
    score: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SampleDraft:
    """A sample as captured from a framework, not yet validated."""

    user_input: Any = ""
    contexts: list[ContextDraft] = field(default_factory=list)
    response: Any = ""
    reference: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_sample(self, sample_id: str | None = None) -> RagSample:
        """Validate into a :class:`RagSample` (raises pydantic's ``ValidationError`` on bad types)."""
        from ragmetrics_core.sample import Context, RagSample

        return RagSample(
            id=sample_id,
            user_input=self.user_input,
            retrieved_contexts=[
                Context(text=c.text, id=c.id, score=c.score, metadata=dict(c.metadata)) for c in self.contexts
            ],
            response=self.response,
            reference=self.reference,
            metadata=dict(self.metadata),
        )


class SpanRef(NamedTuple):
    """An OpenTelemetry span by its ids, as the API gives them (ints), without holding the span itself.

    The one span reference of the project: integrations read it when a run starts, :class:`Origin` carries
    it, and the emitters parent their telemetry to it. ``created`` is set when ragmetrics made the span
    because the app had none. A tuple, not a dataclass: it is built on the app's hot path, where a tuple is
    the cheapest record Python makes.
    """

    trace_id: int
    span_id: int
    trace_flags: int = 1
    created: bool = False

    @classmethod
    def of(cls, context: Any, *, created: bool = False) -> SpanRef | None:
        """The reference of an OpenTelemetry ``SpanContext`` (read by attribute: the core does not import the
        API), ``None`` for an invalid one (no span)."""
        if not context.is_valid:
            return None
        return cls(context.trace_id, context.span_id, int(context.trace_flags), created)

    @property
    def trace_id_hex(self) -> str:
        return f"{self.trace_id:032x}"

    @property
    def span_id_hex(self) -> str:
        return f"{self.span_id:016x}"

    @property
    def valid(self) -> bool:
        """OpenTelemetry's rule: an all-zero trace or span id names no span."""
        return self.trace_id != 0 and self.span_id != 0


@dataclass(slots=True, frozen=True)
class Origin:
    """Where a sample came from: the span it belongs to and the run that produced it.

    ``span`` is the OpenTelemetry span that was active when the user's run started (``None`` when the app
    has no tracing; the pipeline then creates the RAG span itself).
    ``start_time_ns``/``end_time_ns`` bound the run, for that created span.
    """

    framework: str = "manual"
    chain_name: str | None = None
    run_id: str | None = None
    span: SpanRef | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    start_time_ns: int | None = None
    end_time_ns: int | None = None


class SampleSink(Protocol):
    """Where integrations send what they captured; the :class:`OnlinePipeline` is one."""

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object:
        """Take the sample and return at once; never raise into the caller."""
        ...


class SamplingDecision(StrEnum):
    """What happened to one submission (returned by ``submit`` and recorded on the output)."""

    EVALUATED = "evaluated"
    """Accepted for scoring (queued)."""
    NOT_SAMPLED = "not_sampled"
    THROTTLED = "throttled"
    OVER_BUDGET = "over_budget"
    QUEUE_FULL = "queue_full"
    REJECTED = "rejected"
    """The evaluator was shut down, or the submission itself could not be read."""

    @property
    def accepted(self) -> bool:
        return self is SamplingDecision.EVALUATED


@dataclass(frozen=True, slots=True)
class ContextView:
    text: str | None
    id: str | None
    score: float | None


@dataclass(frozen=True, slots=True)
class SampleView:
    """The sample as telemetry may show it: texts are ``None`` when not captured."""

    user_input: str | None
    response: str | None
    reference: str | None
    contexts: tuple[ContextView, ...]
    n_contexts: int

    @classmethod
    def of(cls, sample: RagSample, redactor: Redactor) -> SampleView:
        kept = sample.retrieved_contexts[: redactor.options.max_contexts]
        return cls(
            user_input=redactor.text(sample.user_input),
            response=redactor.text(sample.response),
            reference=redactor.text(sample.reference),
            contexts=tuple(ContextView(redactor.text(c.text), redactor.label(c.id), c.score) for c in kept),
            n_contexts=len(sample.retrieved_contexts),
        )


@dataclass(frozen=True, slots=True)
class EvaluationRecord:
    """One submission that went through the judge, successfully (``error is None``) or not."""

    record_id: str
    origin: Origin
    decision: SamplingDecision
    route: str
    rate: float
    subject: SpanRef | None
    sample_id: str | None
    sample: SampleView | None
    result: EvaluationResult | None
    error: str | None
    judge: str | None
    usage: Usage
    submitted_ns: int
    started_ns: int
    finished_ns: int
    failure: str | None = None
    """Why it failed, as a class (``invalid_sample``, ``judge_error``, ``timeout``, …): OTel's ``error.type``."""
    metrics: tuple[str, ...] = ()
    """The metric ids the evaluator was asked for (what a failed evaluation reports as failed)."""
    metric_explanations: dict[str, str] = field(default_factory=dict)
    """Per metric, one readable line on its score, computed once per record from the real evidence and then
    redacted (``ragmetrics_core.online.privacy.explain_for_telemetry``): what every emitter shows."""

    def explanation(self, metric: str) -> str:
        """The line shown beside ``metric``'s score (its reason when it has one and no line was computed)."""
        line = self.metric_explanations.get(metric)
        if line:
            return line
        entry = self.result.scores.get(metric) if self.result is not None else None
        return "" if entry is None else entry.reason

    @property
    def ok(self) -> bool:
        return self.error is None and self.result is not None

    @property
    def scores(self) -> dict[str, MetricScore]:
        return {} if self.result is None else dict(self.result.scores)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (what the JSONL emitter writes)."""
        return {
            "record_id": self.record_id,
            "sample_id": self.sample_id,
            "ok": self.ok,
            "error": self.error,
            "failure": self.failure,
            "judge": self.judge,
            "decision": self.decision.value,
            "route": self.route,
            "rate": self.rate,
            "trace_id": None if self.subject is None else self.subject.trace_id_hex,
            "span_id": None if self.subject is None else self.subject.span_id_hex,
            "subject_created": None if self.subject is None else self.subject.created,
            "origin": {
                "framework": self.origin.framework,
                "chain_name": self.origin.chain_name,
                "run_id": self.origin.run_id,
                "tags": list(self.origin.tags),
            },
            "submitted_ns": self.submitted_ns,
            "started_ns": self.started_ns,
            "finished_ns": self.finished_ns,
            "scores": {metric: _score_dict(entry) for metric, entry in self.scores.items()},
            "explanations": [e.model_dump(mode="json") for e in self.result.explanations] if self.result else [],
            "metric_explanations": dict(self.metric_explanations),
            "usage": self.usage.model_dump(mode="json"),
            "sample": None if self.sample is None else _sample_dict(self.sample),
        }


def _score_dict(entry: MetricScore) -> dict[str, Any]:
    scored: dict[str, Any] = {
        "score": entry.score,
        "label": entry.label,
        "threshold": entry.threshold,
        "direction": entry.direction.value,
        "reason": entry.reason,
    }
    if entry.probability is not None:  # with a calibration only: uncalibrated records stay as they were
        scored["probability"] = entry.probability
    return scored


def _sample_dict(sample: SampleView) -> dict[str, Any]:
    return {
        "user_input": sample.user_input,
        "response": sample.response,
        "reference": sample.reference,
        "contexts": [{"text": c.text, "id": c.id, "score": c.score} for c in sample.contexts],
        "n_contexts": sample.n_contexts,
    }
