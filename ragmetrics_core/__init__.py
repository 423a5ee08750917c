"""ragmetrics: claim-level RAG evaluation, offline or with any OpenAI-compatible judge.

Names that need an optional extra (``OpenAIJudge`` and friends need ``openai``) are imported on first
access, so ``import ragmetrics_core`` works on a bare install.
"""

from typing import TYPE_CHECKING, Any

from ragmetrics_core.aggregate import AggregationMode, DatasetReport, MetricAggregate, aggregate
from ragmetrics_core.api import evaluate
from ragmetrics_core.batch import BatchRun, evaluate_file, results_to_pandas
from ragmetrics_core.calibration import Calibration
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Check, Claim, Evidence, EvidencePart, GeneratedQuestion, Verdict
from ragmetrics_core.formats import InputError, RowError, iter_samples, load_samples
from ragmetrics_core.judges.base import Judge, JudgeError, Usage
from ragmetrics_core.judges.cache import JudgeCache
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.judges.pricing import ModelPrice, PriceTable
from ragmetrics_core.metrics import (
    ALL_METRICS,
    METRICS,
    RAGCHECKER_METRICS,
    ContextPrecisionStrategy,
    MetricOptions,
)
from ragmetrics_core.online import OnlineEvaluator, OnlineStats, PrivacyOptions, Route, Sampler, SamplingDecision
from ragmetrics_core.report import write_report
from ragmetrics_core.results import ClaimExplanation, Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import Context, RagSample

if TYPE_CHECKING:
    from ragmetrics_core.ensemble import EnsembleEvaluator
    from ragmetrics_core.judges.model import ModelJudge
    from ragmetrics_core.judges.openai import EndpointError, OpenAIJudge, OpenAIJudgeConfig, RetryPolicy

_LAZY = {
    "EnsembleEvaluator": "ragmetrics_core.ensemble",
    "EndpointError": "ragmetrics_core.judges.openai",
    "ModelJudge": "ragmetrics_core.judges.model",
    "OpenAIJudge": "ragmetrics_core.judges.openai",
    "OpenAIJudgeConfig": "ragmetrics_core.judges.openai",
    "RetryPolicy": "ragmetrics_core.judges.openai",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


__version__ = "0.1.0"

__all__ = [
    "ALL_METRICS",
    "METRICS",
    "RAGCHECKER_METRICS",
    "AggregationMode",
    "BatchRun",
    "Calibration",
    "Check",
    "Claim",
    "ClaimExplanation",
    "Context",
    "ContextPrecisionStrategy",
    "DatasetReport",
    "Direction",
    "EmbeddedJudge",
    "EndpointError",
    "EnsembleEvaluator",
    "EvaluationResult",
    "Evaluator",
    "Evidence",
    "EvidencePart",
    "GeneratedQuestion",
    "InputError",
    "Judge",
    "JudgeCache",
    "JudgeError",
    "MetricAggregate",
    "MetricOptions",
    "MetricScore",
    "ModelJudge",
    "ModelPrice",
    "OnlineEvaluator",
    "OnlineStats",
    "OpenAIJudge",
    "OpenAIJudgeConfig",
    "PriceTable",
    "PrivacyOptions",
    "RagSample",
    "RetryPolicy",
    "Route",
    "RowError",
    "Sampler",
    "SamplingDecision",
    "Usage",
    "Verdict",
    "__version__",
    "aggregate",
    "evaluate",
    "evaluate_file",
    "iter_samples",
    "load_samples",
    "results_to_pandas",
    "write_report",
]
