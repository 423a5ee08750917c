"""ragmetrics: claim-level RAG evaluation, offline or with any OpenAI-compatible judge."""

from ragmetrics_core.aggregate import AggregationMode, DatasetReport, MetricAggregate, aggregate
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Check, Claim, Evidence, EvidencePart, GeneratedQuestion, Verdict
from ragmetrics_core.judges.base import Judge, JudgeError, Usage
from ragmetrics_core.metrics import (
    ALL_METRICS,
    METRICS,
    RAGCHECKER_METRICS,
    ContextPrecisionStrategy,
    MetricOptions,
)
from ragmetrics_core.results import ClaimExplanation, Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import Context, RagSample

__version__ = "0.1.0"

__all__ = [
    "ALL_METRICS",
    "METRICS",
    "RAGCHECKER_METRICS",
    "AggregationMode",
    "Check",
    "Claim",
    "ClaimExplanation",
    "Context",
    "ContextPrecisionStrategy",
    "DatasetReport",
    "Direction",
    "EvaluationResult",
    "Evaluator",
    "Evidence",
    "EvidencePart",
    "GeneratedQuestion",
    "Judge",
    "JudgeError",
    "MetricAggregate",
    "MetricOptions",
    "MetricScore",
    "RagSample",
    "Usage",
    "Verdict",
    "__version__",
    "aggregate",
]
