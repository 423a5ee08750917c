"""ragmetrics: claim-level RAG evaluation, offline or with any OpenAI-compatible judge.

Every name here is imported from its module on first access (``ragmetrics_core._lazy``): ``import
ragmetrics_core`` loads nothing else, so an integration importing ``ragmetrics_core.online.types`` on an app's
start-up does not pay for the engine, the judges or the report, and names that need an optional extra
(``OpenAIJudge`` needs ``openai``) import on a bare install.
"""

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import lazy_package

if TYPE_CHECKING:
    from ragmetrics_core.aggregate import AggregationMode, DatasetReport, MetricAggregate, aggregate
    from ragmetrics_core.api import evaluate
    from ragmetrics_core.batch import BatchRun, evaluate_file, results_to_pandas
    from ragmetrics_core.engine import Evaluator
    from ragmetrics_core.ensemble import EnsembleEvaluator
    from ragmetrics_core.evidence import Check, Claim, Evidence, EvidencePart, GeneratedQuestion, Verdict
    from ragmetrics_core.formats import InputError, RowError, iter_samples, load_samples
    from ragmetrics_core.judges.base import Judge, JudgeError, Usage
    from ragmetrics_core.judges.cache import JudgeCache
    from ragmetrics_core.judges.embedded import EmbeddedJudge
    from ragmetrics_core.judges.openai import EndpointError, OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
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

_EXPORTS = {
    **dict.fromkeys(("AggregationMode", "DatasetReport", "MetricAggregate", "aggregate"), "ragmetrics_core.aggregate"),
    "evaluate": "ragmetrics_core.api",
    **dict.fromkeys(("BatchRun", "evaluate_file", "results_to_pandas"), "ragmetrics_core.batch"),
    "Evaluator": "ragmetrics_core.engine",
    "EnsembleEvaluator": "ragmetrics_core.ensemble",
    **dict.fromkeys(
        ("Check", "Claim", "Evidence", "EvidencePart", "GeneratedQuestion", "Verdict"), "ragmetrics_core.evidence"
    ),
    **dict.fromkeys(("InputError", "RowError", "iter_samples", "load_samples"), "ragmetrics_core.formats"),
    **dict.fromkeys(("Judge", "JudgeError", "Usage"), "ragmetrics_core.judges.base"),
    "JudgeCache": "ragmetrics_core.judges.cache",
    "EmbeddedJudge": "ragmetrics_core.judges.embedded",
    **dict.fromkeys(
        ("EndpointError", "OpenAIJudge", "OpenAIJudgeConfig", "RetryPolicy"), "ragmetrics_core.judges.openai"
    ),
    **dict.fromkeys(("ModelPrice", "PriceTable"), "ragmetrics_core.judges.pricing"),
    **dict.fromkeys(
        ("ALL_METRICS", "METRICS", "RAGCHECKER_METRICS", "ContextPrecisionStrategy", "MetricOptions"),
        "ragmetrics_core.metrics",
    ),
    **dict.fromkeys(
        ("OnlineEvaluator", "OnlineStats", "PrivacyOptions", "Route", "Sampler", "SamplingDecision"),
        "ragmetrics_core.online",
    ),
    "write_report": "ragmetrics_core.report",
    **dict.fromkeys(("ClaimExplanation", "Direction", "EvaluationResult", "MetricScore"), "ragmetrics_core.results"),
    **dict.fromkeys(("Context", "RagSample"), "ragmetrics_core.sample"),
}

lazy_package(__name__, _EXPORTS)

__version__ = "0.1.0"

__all__ = [
    "ALL_METRICS",
    "METRICS",
    "RAGCHECKER_METRICS",
    "AggregationMode",
    "BatchRun",
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
