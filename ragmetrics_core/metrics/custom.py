"""A metric of the user's own, read off the same evidence in the same pass as the built-in ones.

    from ragmetrics_core import Evaluator, metric
    from ragmetrics_core.evidence import EvidencePart, Verdict

    @metric(needs=[EvidencePart.RESPONSE_CLAIMS, EvidencePart.RESPONSE_VS_CONTEXTS], direction="higher_is_better")
    def jointly_supported(evidence, sample):
        verdicts = evidence.response_vs_contexts or []
        return sum(v.verdict is Verdict.ENTAILED for v in verdicts) / len(verdicts) if verdicts else None

    Evaluator(metrics=["faithfulness"], extra_metrics=[jointly_supported])

The evidence parts a metric ``needs`` are gathered with the built-in metrics' in the judge's one ``extract`` and one
``check`` call; the function reads them (no judge of its own), and its score goes where every score goes: the
result, the output files, the report and the telemetry spans.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ragmetrics_core.evidence import Evidence, EvidencePart
from ragmetrics_core.metrics.registry import METRICS, MetricValue, evidence_unavailable
from ragmetrics_core.results import Direction
from ragmetrics_core.sample import RagSample

MetricFunction = Callable[[Evidence, RagSample], float | None]
"""Reads one sample's evidence: a score, or ``None`` for undetermined."""


@dataclass(frozen=True, slots=True)
class CustomMetric:
    """A user's metric: its id, the function that reads it, the evidence parts it needs and which way is better.

    ``threshold`` (optional) gives it a ``pass``/``fail`` label like the built-in metrics. A function that raises or
    returns something other than a finite number leaves the metric undetermined on that sample, with the reason.
    """

    id: str
    compute: MetricFunction
    needs: frozenset[EvidencePart] = field(default_factory=frozenset)
    direction: Direction = Direction.HIGHER_IS_BETTER
    threshold: float | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError(f"a custom metric needs a non-empty id, got {self.id!r}")
        if self.id in METRICS:
            raise ValueError(f"{self.id!r} is a built-in metric; give the custom one another id")
        if not callable(self.compute):
            raise TypeError(f"custom metric {self.id!r}: compute must be a function (evidence, sample) -> float")
        object.__setattr__(self, "needs", frozenset(EvidencePart(part) for part in self.needs))
        object.__setattr__(self, "direction", Direction(self.direction))

    def value(self, evidence: Evidence, sample: RagSample) -> MetricValue:
        """The score on one sample, or undetermined with the reason (evidence the judge could not give, a failure)."""
        gaps = evidence.missing(self.needs)
        if gaps:
            return evidence_unavailable(evidence, gaps)
        try:
            score = self.compute(evidence, sample)
        except Exception as exc:  # the user's code: one sample's failure is that metric's reason, not the run's
            return MetricValue(None, f"{self.id} raised {type(exc).__name__}: {exc}")
        if score is None:
            return MetricValue(None, f"{self.id} returned no score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            return MetricValue(None, f"{self.id} returned {score!r}, not a finite number")
        return MetricValue(float(score), "")

    def label(self, score: float | None) -> str | None:
        if score is None or self.threshold is None:
            return None
        passed = score >= self.threshold if self.direction is Direction.HIGHER_IS_BETTER else score <= self.threshold
        return "pass" if passed else "fail"


def metric(
    function: MetricFunction | None = None,
    *,
    name: str | None = None,
    needs: Iterable[EvidencePart | str] = (),
    direction: Direction | str = Direction.HIGHER_IS_BETTER,
    threshold: float | None = None,
) -> CustomMetric | Callable[[MetricFunction], CustomMetric]:
    """Make a function ``(evidence, sample) -> float | None`` a :class:`CustomMetric` (its id: ``name``, else the
    function's name); usable bare (``@metric``) or with options (``@metric(needs=[...])``)."""

    def wrap(read: MetricFunction) -> CustomMetric:
        return CustomMetric(
            id=name or read.__name__,
            compute=read,
            needs=frozenset(EvidencePart(part) for part in needs),
            direction=Direction(direction),
            threshold=threshold,
            description=(read.__doc__ or "").strip().split("\n")[0],
        )

    return wrap if function is None else wrap(function)
