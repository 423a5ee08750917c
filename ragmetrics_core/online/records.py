"""What emitters receive: one evaluated (or failed) submission, already redacted and size-capped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragmetrics_core.evidence import Evidence
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.online.privacy import Redactor
from ragmetrics_core.online.sampler import SamplingDecision
from ragmetrics_core.online.types import Origin, SpanRef
from ragmetrics_core.results import ClaimExplanation, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample


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
            contexts=tuple(ContextView(redactor.text(c.text), c.id, c.score) for c in kept),
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
            "scores": {
                metric: {
                    "score": entry.score,
                    "label": entry.label,
                    "threshold": entry.threshold,
                    "direction": entry.direction.value,
                    "reason": entry.reason,
                }
                for metric, entry in self.scores.items()
            },
            "explanations": [e.model_dump(mode="json") for e in self.result.explanations] if self.result else [],
            "usage": self.usage.model_dump(mode="json"),
            "sample": None if self.sample is None else _sample_dict(self.sample),
        }


def _sample_dict(sample: SampleView) -> dict[str, Any]:
    return {
        "user_input": sample.user_input,
        "response": sample.response,
        "reference": sample.reference,
        "contexts": [{"text": c.text, "id": c.id, "score": c.score} for c in sample.contexts],
        "n_contexts": sample.n_contexts,
    }


def sanitize_result(result: EvaluationResult, redactor: Redactor) -> EvaluationResult:
    """The result as telemetry may carry it: no evidence matrices, redacted and capped texts."""
    options = redactor.options
    explanations = [_sanitize_claim(e, redactor) for e in result.explanations[: options.max_claims]]
    scores = {
        metric: entry.model_copy(update={"reason": redactor.error(entry.reason)}) if entry.reason else entry
        for metric, entry in result.scores.items()
    }
    return result.model_copy(
        update={
            "scores": scores,
            "explanations": explanations,
            "evidence": Evidence(),
            "error": None if result.error is None else redactor.error(result.error),
            "metadata": {
                key: redactor.error(value) if isinstance(value, str) else value
                for key, value in result.metadata.items()
                if isinstance(value, str | int | float | bool)
            },
        }
    )


def _sanitize_claim(explanation: ClaimExplanation, redactor: Redactor) -> ClaimExplanation:
    text = redactor.text(explanation.text)
    rationale = None if explanation.rationale is None else redactor.text(explanation.rationale)
    return explanation.model_copy(update={"text": text or "", "rationale": rationale})
