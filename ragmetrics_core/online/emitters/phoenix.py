"""Arize Phoenix output: one span annotation per metric on the evaluated span, via Phoenix's REST API.

Annotations are posted asynchronously (``sync=False``): Phoenix queues an annotation whose span it has not
ingested yet and retries it for several minutes, so the annotation may safely race the span's OTLP export.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from phoenix.client import Client

from ragmetrics_core.online.types import EvaluationRecord
from ragmetrics_core.results import MetricScore

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

AnnotatorKind = Literal["LLM", "CODE", "HUMAN"]


class NoSubjectSpanError(RuntimeError):
    """The record has no span to annotate (the app had no tracing and no OtelEmitter created one)."""


class PhoenixEmitter:
    """Posts scores as Phoenix span annotations (label, score, explanation per metric).

    Args:
        base_url / api_key / headers: as for ``phoenix.client.Client`` (``None`` reads Phoenix's
            environment variables, e.g. ``PHOENIX_COLLECTOR_ENDPOINT`` and ``PHOENIX_API_KEY``).
        client: a ready ``phoenix.client.Client`` instead; it is then reused in forked children.
        annotator_kind: how Phoenix lists the annotator; by default read off each record's judge: ``CODE`` for
            the embedded judge and other judges that call no model, ``LLM`` for an OpenAI-compatible judge or an
            ensemble with one.
        name_prefix: prepended to each metric id to form the annotation name.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        client: Client | None = None,
        annotator_kind: AnnotatorKind | None = None,
        name_prefix: str = "",
        name: str = "phoenix",
    ) -> None:
        if annotator_kind not in (None, "LLM", "CODE", "HUMAN"):
            raise ValueError(f"annotator_kind must be LLM, CODE or HUMAN, got {annotator_kind!r}")
        self._base_url = base_url
        self._api_key = api_key
        self._headers = dict(headers) if headers is not None else None
        self._given_client = client
        self._client: Client | None = client
        self._pid = os.getpid()
        self._annotator_kind = annotator_kind
        self._name_prefix = name_prefix
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:  # never show the key
        return f"PhoenixEmitter(base_url={self._base_url!r}, name={self._name!r})"

    def annotations(self, record: EvaluationRecord) -> list[dict[str, Any]]:
        """The annotation payloads for ``record`` (empty when it has no scores)."""
        if record.subject is None:
            raise NoSubjectSpanError("no span to annotate: the run had no trace and no OtelEmitter created one")
        metadata: dict[str, Any] = {"record_id": record.record_id, "route": record.route, "rate": record.rate}
        if record.judge is not None:
            metadata["judge"] = record.judge
        kind = self._annotator_kind or annotator_kind_of(record.judge)
        return [
            {
                "name": f"{self._name_prefix}{metric}",
                "span_id": record.subject.span_id_hex,
                "annotator_kind": kind,
                "result": _result(entry, record.explanation(metric)),
                "metadata": {**metadata, **_score_metadata(entry)},
                "identifier": "",
            }
            for metric, entry in record.scores.items()
        ]

    def emit(self, record: EvaluationRecord) -> None:
        if not record.scores:
            return
        payload = self.annotations(record)
        self._get_client().spans.log_span_annotations(span_annotations=payload, sync=False)  # type: ignore[arg-type]

    def force_flush(self, timeout_s: float) -> bool:
        return True

    def shutdown(self, timeout_s: float) -> None:
        """Drop our client (Phoenix's client closes its connections when collected)."""
        self._client = self._given_client

    def _get_client(self) -> Client:
        if self._given_client is not None:
            return self._given_client
        if self._client is None or self._pid != os.getpid():
            self._client = Client(base_url=self._base_url, api_key=self._api_key, headers=self._headers)
            self._pid = os.getpid()
        return self._client


def annotator_kind_of(judge: str | None) -> AnnotatorKind:
    """``LLM`` when the judge (or a member of an ensemble) is a language model behind an API, else ``CODE``."""
    return "LLM" if judge is not None and "openai:" in judge else "CODE"


def _score_metadata(entry: MetricScore) -> dict[str, Any]:
    metadata: dict[str, Any] = {"direction": entry.direction.value, "threshold": entry.threshold}
    if entry.probability is not None:  # Phoenix's result has no field for it (score, label, explanation)
        metadata["probability"] = entry.probability
    return metadata


def _result(entry: MetricScore, explanation: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if entry.score is not None:
        result["score"] = entry.score
        if entry.label is not None:
            result["label"] = entry.label
    else:
        result["label"] = "undetermined"
    if explanation:
        result["explanation"] = explanation
    return result
