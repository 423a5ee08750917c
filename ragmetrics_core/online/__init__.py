"""Online evaluation of production traffic: sampling, background scoring, telemetry.

Every name is imported from its module on first access (``ragmetrics_core._lazy``): an integration that imports
``ragmetrics_core.online.types`` on the app's hot path loads no more than that module, and ``OtelEmitter`` and
``MetricsEmitter`` (the ``otel`` extra), ``PhoenixEmitter`` (the ``phoenix`` extra) or ``LangfuseEmitter`` (the
``langfuse`` extra) import only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import Renamed, lazy_package

if TYPE_CHECKING:
    from ragmetrics_core.online.capture import current_origin
    from ragmetrics_core.online.emitters.base import Emitter, EmitterStats, SubjectSpanFactory
    from ragmetrics_core.online.emitters.callback import CallbackEmitter
    from ragmetrics_core.online.emitters.jsonl import JsonlEmitter
    from ragmetrics_core.online.emitters.langfuse import LangfuseEmitter
    from ragmetrics_core.online.emitters.metrics import MetricsEmitter
    from ragmetrics_core.online.emitters.otel import OtelEmitter
    from ragmetrics_core.online.emitters.phoenix import PhoenixEmitter
    from ragmetrics_core.online.evaluator import OnlinePipeline
    from ragmetrics_core.online.privacy import PrivacyOptions
    from ragmetrics_core.online.sampler import Route, Sampler
    from ragmetrics_core.online.stats import OnlineStats
    from ragmetrics_core.online.types import (
        ContextDraft,
        ContextView,
        EvaluationRecord,
        Origin,
        SampleDraft,
        SampleSink,
        SampleView,
        SamplingDecision,
        SpanRef,
    )
    from ragmetrics_core.scrub import scrub_secrets

    OnlineEvaluator = OnlinePipeline  # deprecated name, see _RENAMED

_TYPES = "ragmetrics_core.online.types"
_EXPORTS = {
    "current_origin": "ragmetrics_core.online.capture",
    **dict.fromkeys(("Emitter", "EmitterStats", "SubjectSpanFactory"), "ragmetrics_core.online.emitters.base"),
    "CallbackEmitter": "ragmetrics_core.online.emitters.callback",
    "JsonlEmitter": "ragmetrics_core.online.emitters.jsonl",
    "LangfuseEmitter": "ragmetrics_core.online.emitters.langfuse",
    "MetricsEmitter": "ragmetrics_core.online.emitters.metrics",
    "OtelEmitter": "ragmetrics_core.online.emitters.otel",
    "PhoenixEmitter": "ragmetrics_core.online.emitters.phoenix",
    "OnlinePipeline": "ragmetrics_core.online.evaluator",
    "PrivacyOptions": "ragmetrics_core.online.privacy",
    **dict.fromkeys(("Route", "Sampler"), "ragmetrics_core.online.sampler"),
    "OnlineStats": "ragmetrics_core.online.stats",
    **dict.fromkeys(
        ("ContextDraft", "ContextView", "EvaluationRecord", "Origin", "SampleDraft", "SampleSink", "SampleView",
         "SamplingDecision", "SpanRef"),
        _TYPES,
    ),
    "scrub_secrets": "ragmetrics_core.scrub",
}

# Old names, served with a DeprecationWarning for one release.
_RENAMED = {"OnlineEvaluator": Renamed("ragmetrics_core.online", "OnlinePipeline")}

lazy_package(__name__, _EXPORTS, _RENAMED)


__all__ = [
    "CallbackEmitter",
    "ContextDraft",
    "ContextView",
    "Emitter",
    "EmitterStats",
    "EvaluationRecord",
    "JsonlEmitter",
    "LangfuseEmitter",
    "MetricsEmitter",
    "OnlinePipeline",
    "OnlineStats",
    "Origin",
    "OtelEmitter",
    "PhoenixEmitter",
    "PrivacyOptions",
    "Route",
    "SampleDraft",
    "SampleSink",
    "SampleView",
    "Sampler",
    "SamplingDecision",
    "SpanRef",
    "SubjectSpanFactory",
    "current_origin",
    "scrub_secrets",
]
