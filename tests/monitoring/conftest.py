"""Shared pieces of the monitoring tests: an evaluator whose scores are read off the sample, and metric reading."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from ragmetrics_core.judges.base import JudgeError, Usage
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample

METRICS = ("faithfulness", "context_recall")


class DictatedEvaluator:
    """Scores read from the sample's metadata: ``faithfulness`` (a float, or None for undetermined with
    ``reason``), ``label``, ``fail`` (raise a judge error), ``tokens`` and ``cost``. ``context_recall`` is
    undetermined without a reference, as the engine reports it."""

    metrics: ClassVar[list[str]] = list(METRICS)

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        meta = sample.metadata
        if meta.get("fail"):
            raise JudgeError("upstream answered 503")
        faithfulness = meta.get("faithfulness")
        scores = {
            "faithfulness": MetricScore(
                metric="faithfulness", score=faithfulness, direction=Direction.HIGHER_IS_BETTER,
                label=meta.get("label"), reason=meta.get("reason", ""),
            ),
            "context_recall": MetricScore(
                metric="context_recall", score=1.0 if sample.reference else None,
                direction=Direction.HIGHER_IS_BETTER,
                reason="" if sample.reference else "missing input: reference",
            ),
        }
        usage = Usage(
            calls=1, prompt_tokens=meta.get("tokens", 0), completion_tokens=meta.get("tokens", 0) // 2,
            cost_usd=meta.get("cost"),
        )
        return EvaluationResult(sample_id=sample.id, judge=meta.get("judge", "openai:gpt-4o-mini"), scores=scores,
                                usage=usage)


@dataclass
class Metrics:
    provider: MeterProvider
    reader: InMemoryMetricReader

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found

    def matching(self, name: str, attributes: dict[str, Any] | None = None) -> list[Any]:
        """The points of ``name`` whose attributes include ``attributes``."""
        wanted = attributes or {}
        return [p for p in self.points(name) if all(dict(p.attributes).get(k) == v for k, v in wanted.items())]

    def value(self, name: str, attributes: dict[str, Any] | None = None) -> float:
        """The sum of the matching counter points."""
        return float(sum(p.value for p in self.matching(name, attributes)))


@pytest.fixture
def metrics() -> Iterator[Metrics]:
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    yield Metrics(provider, reader)
    provider.shutdown()
