"""ragmetrics: claim-level RAG evaluation, offline or with any OpenAI-compatible judge.

The public surface is ``__all__`` below (what docs/architecture.md calls "the surface"); everything else lives in
its own module (``ragmetrics_core.evidence``, ``ragmetrics_core.judges.openai``, …). Names this package exported
before and no longer advertises still import from here for one release, with a ``DeprecationWarning`` naming
their module.

Every name here is imported from its module on first access (``ragmetrics_core._lazy``): ``import
ragmetrics_core`` loads nothing else, so an integration importing ``ragmetrics_core.online.types`` on an app's
start-up does not pay for the engine, the judges or the report, and names that need an optional extra
(``OpenAIJudge`` needs ``openai``) import on a bare install.
"""

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import Renamed, lazy_package

if TYPE_CHECKING:
    from ragmetrics_core.aggregate import AggregationMode, DatasetReport, aggregate
    from ragmetrics_core.api import evaluate
    from ragmetrics_core.batch import BatchRun, evaluate_file
    from ragmetrics_core.calibration import Calibration
    from ragmetrics_core.engine import Evaluator
    from ragmetrics_core.formats import InputError, load_samples
    from ragmetrics_core.judges.base import Judge, JudgeError
    from ragmetrics_core.judges.embedded import EmbeddedJudge
    from ragmetrics_core.judges.model import ModelJudge
    from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
    from ragmetrics_core.metrics import METRICS
    from ragmetrics_core.metrics.custom import CustomMetric, metric
    from ragmetrics_core.online import OnlinePipeline, PrivacyOptions, Sampler
    from ragmetrics_core.report import write_report
    from ragmetrics_core.results import EvaluationResult, MetricScore
    from ragmetrics_core.sample import Context, RagSample

if TYPE_CHECKING:  # deprecated here (see _RENAMED), still known to type checkers for their one release
    from ragmetrics_core.aggregate import MetricAggregate as MetricAggregate
    from ragmetrics_core.batch import results_to_pandas as results_to_pandas
    from ragmetrics_core.ensemble import EnsembleEvaluator as EnsembleEvaluator
    from ragmetrics_core.evidence import Check as Check
    from ragmetrics_core.evidence import Claim as Claim
    from ragmetrics_core.evidence import Evidence as Evidence
    from ragmetrics_core.evidence import EvidencePart as EvidencePart
    from ragmetrics_core.evidence import GeneratedQuestion as GeneratedQuestion
    from ragmetrics_core.evidence import Verdict as Verdict
    from ragmetrics_core.formats import RowError as RowError
    from ragmetrics_core.formats import iter_samples as iter_samples
    from ragmetrics_core.judges.base import Usage as Usage
    from ragmetrics_core.judges.cache import JudgeCache as JudgeCache
    from ragmetrics_core.judges.openai import EndpointError as EndpointError
    from ragmetrics_core.judges.openai import RetryPolicy as RetryPolicy
    from ragmetrics_core.judges.pricing import ModelPrice as ModelPrice
    from ragmetrics_core.judges.pricing import PriceTable as PriceTable
    from ragmetrics_core.metrics import ALL_METRICS as ALL_METRICS
    from ragmetrics_core.metrics import RAGCHECKER_METRICS as RAGCHECKER_METRICS
    from ragmetrics_core.metrics import ContextPrecisionStrategy as ContextPrecisionStrategy
    from ragmetrics_core.metrics import MetricOptions as MetricOptions
    from ragmetrics_core.online import OnlineStats as OnlineStats
    from ragmetrics_core.online import Route as Route
    from ragmetrics_core.online import SamplingDecision as SamplingDecision
    from ragmetrics_core.results import ClaimExplanation as ClaimExplanation
    from ragmetrics_core.results import Direction as Direction

    OnlineEvaluator = OnlinePipeline

_EXPORTS = {
    "evaluate": "ragmetrics_core.api",
    **dict.fromkeys(("BatchRun", "evaluate_file"), "ragmetrics_core.batch"),
    **dict.fromkeys(("AggregationMode", "DatasetReport", "aggregate"), "ragmetrics_core.aggregate"),
    "write_report": "ragmetrics_core.report",
    **dict.fromkeys(("InputError", "load_samples"), "ragmetrics_core.formats"),
    "Calibration": "ragmetrics_core.calibration",
    "Evaluator": "ragmetrics_core.engine",
    **dict.fromkeys(("Context", "RagSample"), "ragmetrics_core.sample"),
    **dict.fromkeys(("EvaluationResult", "MetricScore"), "ragmetrics_core.results"),
    "METRICS": "ragmetrics_core.metrics",
    **dict.fromkeys(("CustomMetric", "metric"), "ragmetrics_core.metrics.custom"),
    **dict.fromkeys(("Judge", "JudgeError"), "ragmetrics_core.judges.base"),
    "EmbeddedJudge": "ragmetrics_core.judges.embedded",
    "ModelJudge": "ragmetrics_core.judges.model",
    **dict.fromkeys(("OpenAIJudge", "OpenAIJudgeConfig"), "ragmetrics_core.judges.openai"),
    **dict.fromkeys(("OnlinePipeline", "PrivacyOptions", "Sampler"), "ragmetrics_core.online"),
}

_MOVED = {
    "ragmetrics_core.aggregate": ("MetricAggregate",),
    "ragmetrics_core.batch": ("results_to_pandas",),
    "ragmetrics_core.ensemble": ("EnsembleEvaluator",),
    "ragmetrics_core.evidence": ("Check", "Claim", "Evidence", "EvidencePart", "GeneratedQuestion", "Verdict"),
    "ragmetrics_core.formats": ("RowError", "iter_samples"),
    "ragmetrics_core.judges.base": ("Usage",),
    "ragmetrics_core.judges.cache": ("JudgeCache",),
    "ragmetrics_core.judges.openai": ("EndpointError", "RetryPolicy"),
    "ragmetrics_core.judges.pricing": ("ModelPrice", "PriceTable"),
    "ragmetrics_core.metrics": ("ALL_METRICS", "RAGCHECKER_METRICS", "ContextPrecisionStrategy", "MetricOptions"),
    "ragmetrics_core.online": ("OnlineStats", "Route", "SamplingDecision"),
    "ragmetrics_core.results": ("ClaimExplanation", "Direction"),
}
_RENAMED = {
    "OnlineEvaluator": Renamed("ragmetrics_core.online", "OnlinePipeline"),
    **{name: Renamed(module, name) for module, names in _MOVED.items() for name in names},
}

lazy_package(__name__, _EXPORTS, _RENAMED)

__version__ = "0.1.0"

__all__ = [
    "METRICS",
    "AggregationMode",
    "BatchRun",
    "Calibration",
    "Context",
    "CustomMetric",
    "DatasetReport",
    "EmbeddedJudge",
    "EvaluationResult",
    "Evaluator",
    "InputError",
    "Judge",
    "JudgeError",
    "MetricScore",
    "ModelJudge",
    "OnlinePipeline",
    "OpenAIJudge",
    "OpenAIJudgeConfig",
    "PrivacyOptions",
    "RagSample",
    "Sampler",
    "__version__",
    "aggregate",
    "evaluate",
    "evaluate_file",
    "load_samples",
    "metric",
    "write_report",
]
