"""Where the demo app's captured samples go: the online pipeline (scores in the background and emits
OpenTelemetry), or, when that is not available, straight to the evaluator."""

from __future__ import annotations

import importlib.util
import threading
from typing import TYPE_CHECKING, Protocol

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import Context, RagSample

if TYPE_CHECKING:
    from ragmetrics_core.demo.telemetry import Telemetry
    from ragmetrics_core.online import EvaluationRecord
    from ragmetrics_core.online import OnlinePipeline as ScoringPipeline

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

Scored = list[tuple[RagSample, EvaluationResult]]


class DemoPipeline(Protocol):
    description: str

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object: ...

    def finish(self) -> Scored:
        """Wait for every submitted sample to be scored; the samples with their results."""
        ...


def online_pipeline_available() -> bool:
    """The online pipeline and the OpenTelemetry SDK its emitter writes through are both installed."""
    return all(
        importlib.util.find_spec(name) is not None for name in ("ragmetrics_core.online.evaluator", "opentelemetry.sdk")
    )


class DirectPipeline:
    """Collects samples and scores them with the evaluator when asked (no telemetry)."""

    description = "scored directly with the Evaluator (no OpenTelemetry SDK installed: no telemetry)"

    def __init__(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        self._samples: list[RagSample] = []
        self._lock = threading.Lock()

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object:
        with self._lock:
            self._samples.append(sample.to_sample() if isinstance(sample, SampleDraft) else sample)
        return None

    def finish(self) -> Scored:
        results = self._evaluator.evaluate_many(self._samples, progress=False)
        return list(zip(self._samples, results, strict=True))


class OnlinePipeline:
    """The production path: the library's ``OnlinePipeline`` scoring off the hot path, emitting via ``OtelEmitter``."""

    def __init__(self, evaluator: Evaluator, telemetry: Telemetry) -> None:
        from ragmetrics_core.online import CallbackEmitter, OtelEmitter
        from ragmetrics_core.online import OnlinePipeline as ScoringPipeline

        self.description = "scored by the OnlinePipeline in the background"
        self._records: list[EvaluationRecord] = []
        self._online: ScoringPipeline = ScoringPipeline(
            evaluator,
            emitters=[
                OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider),
                CallbackEmitter(self._records.append, name="demo"),
            ],
        )

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object:
        return self._online.submit(sample, origin)

    def finish(self) -> Scored:
        self._online.flush(timeout_s=120.0)
        self._online.shutdown(timeout_s=10.0)
        scored: Scored = []
        for record in self._records:
            if record.result is None or record.sample is None:
                continue
            view = record.sample
            sample = RagSample(
                id=record.result.sample_id,
                user_input=view.user_input or "",
                response=view.response or "",
                reference=view.reference,
                retrieved_contexts=[
                    Context(text=context.text or "", id=context.id, score=context.score) for context in view.contexts
                ],
            )
            scored.append((sample, record.result))
        return scored
