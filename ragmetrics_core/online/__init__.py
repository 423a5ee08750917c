"""Online evaluation of production traffic: sampling, background scoring, telemetry.

``OtelEmitter`` and ``MetricsEmitter`` (need the ``otel`` extra), ``PhoenixEmitter`` (the ``phoenix`` extra),
``LangfuseEmitter`` (the ``langfuse`` extra) and ``current_origin`` (``opentelemetry-api``) are imported on first
access, so this package imports without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragmetrics_core.online.emitters.base import Emitter, EmitterStats, SubjectSpanFactory
from ragmetrics_core.online.emitters.callback import CallbackEmitter
from ragmetrics_core.online.emitters.jsonl import JsonlEmitter
from ragmetrics_core.online.evaluator import OnlineEvaluator
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

if TYPE_CHECKING:
    from ragmetrics_core.online.capture import current_origin
    from ragmetrics_core.online.emitters.langfuse import LangfuseEmitter
    from ragmetrics_core.online.emitters.metrics import MetricsEmitter
    from ragmetrics_core.online.emitters.otel import OtelEmitter
    from ragmetrics_core.online.emitters.phoenix import PhoenixEmitter

_LAZY = {
    "LangfuseEmitter": "ragmetrics_core.online.emitters.langfuse",
    "MetricsEmitter": "ragmetrics_core.online.emitters.metrics",
    "OtelEmitter": "ragmetrics_core.online.emitters.otel",
    "PhoenixEmitter": "ragmetrics_core.online.emitters.phoenix",
    "current_origin": "ragmetrics_core.online.capture",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


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
    "OnlineEvaluator",
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
