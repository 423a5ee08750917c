"""Metric registry, options and pure formulas."""

from ragmetrics_core.metrics.claims import ClaimCategory
from ragmetrics_core.metrics.options import ContextPrecisionStrategy, MetricOptions, Scoring
from ragmetrics_core.metrics.registry import METRICS, MetricSpec, MetricValue, category_measures_of

ALL_METRICS: tuple[str, ...] = tuple(METRICS)
# RAGChecker's ten diagnostic metrics plus faithfulness, in its report order.
RAGCHECKER_METRICS: tuple[str, ...] = (
    "overall_precision", "overall_recall", "overall_f1", "claim_recall", "chunk_precision",
    "context_utilization", "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination",
    "self_knowledge", "faithfulness",
)

__all__ = [
    "ALL_METRICS",
    "METRICS",
    "RAGCHECKER_METRICS",
    "ClaimCategory",
    "ContextPrecisionStrategy",
    "MetricOptions",
    "MetricSpec",
    "MetricValue",
    "Scoring",
    "category_measures_of",
]
