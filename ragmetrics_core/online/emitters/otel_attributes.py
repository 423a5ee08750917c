"""What the OTel emitter writes, as plain attribute maps: one function per span or event, no OpenTelemetry calls.

Kept apart from the emitter so that the mapping from a record to the GenAI and OpenInference conventions
(``ragmetrics_core.online.semconv``) reads, and is tested, on its own.
"""

from __future__ import annotations

import json

from opentelemetry.util.types import AttributeValue

from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.types import EvaluationRecord, Origin, SampleView
from ragmetrics_core.results import ClaimExplanation, MetricScore

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

Attributes = dict[str, AttributeValue]


def rag_span(origin: Origin, sample: SampleView | None) -> Attributes:
    """The RAG span created for a run the app did not trace (OpenInference's chain, input, output, documents)."""
    attributes: Attributes = {sc.OPENINFERENCE_SPAN_KIND: sc.SPAN_KIND_CHAIN, **_origin(origin)}
    if origin.tags:
        attributes["tag.tags"] = list(origin.tags)
    if sample is None:
        return attributes
    if sample.user_input is not None:
        attributes[sc.INPUT_VALUE] = sample.user_input
        attributes[sc.INPUT_MIME_TYPE] = sc.MIME_TEXT
    if sample.response is not None:
        attributes[sc.OUTPUT_VALUE] = sample.response
        attributes[sc.OUTPUT_MIME_TYPE] = sc.MIME_TEXT
    for index, context in enumerate(sample.contexts):
        if context.text is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_CONTENT)] = context.text
        if context.id is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_ID)] = context.id
        if context.score is not None:
            attributes[sc.retrieval_document_attribute(index, sc.DOCUMENT_SCORE)] = float(context.score)
    return attributes


def evaluation_span(record: EvaluationRecord) -> Attributes:
    """The evaluation span: sampling, judge usage, queue wait, and one score (or undetermined reason) per metric."""
    usage = record.usage
    attributes: Attributes = {
        sc.OPENINFERENCE_SPAN_KIND: sc.SPAN_KIND_EVALUATOR,
        sc.RECORD_ID: record.record_id,
        sc.SAMPLING_DECISION: record.decision.value,
        sc.SAMPLING_RATE: record.rate,
        sc.SAMPLING_ROUTE: record.route,
        sc.USAGE_CALLS: usage.calls,
        sc.USAGE_EMBEDDING_CALLS: usage.embedding_calls,
        sc.USAGE_PROMPT_TOKENS: usage.prompt_tokens,
        sc.USAGE_COMPLETION_TOKENS: usage.completion_tokens,
        sc.USAGE_LATENCY_S: usage.latency_s,
        sc.QUEUE_WAIT_S: max(0, record.started_ns - record.submitted_ns) / 1e9,
        **_origin(record.origin),
    }
    optional = {
        sc.USAGE_COST_USD: usage.cost_usd,
        sc.JUDGE: record.judge,
        sc.SAMPLE_ID: record.sample_id,
        sc.SUBJECT_CREATED: None if record.subject is None else record.subject.created,
        sc.ERROR: record.error,
    }
    attributes.update({key: value for key, value in optional.items() if value is not None})
    for metric, entry in record.scores.items():
        if entry.score is not None:
            attributes[sc.score_attribute(metric)] = entry.score
        else:
            attributes[sc.undetermined_attribute(metric)] = entry.reason or "undetermined"
        if entry.label is not None:
            attributes[sc.label_attribute(metric)] = entry.label
        if entry.probability is not None:
            attributes[sc.probability_attribute(metric)] = entry.probability
    if record.scores:
        attributes[sc.OUTPUT_VALUE] = json.dumps(
            {metric: entry.score for metric, entry in record.scores.items()}, allow_nan=False, default=str
        )
        attributes[sc.OUTPUT_MIME_TYPE] = sc.MIME_JSON
    return attributes


def result_event(metric: str, entry: MetricScore, record: EvaluationRecord) -> Attributes:
    """One ``gen_ai.evaluation.result`` event for a scored (or undetermined) metric."""
    attributes: Attributes = {sc.EVENT_NAME: sc.EVALUATION_RESULT_EVENT, sc.EVALUATION_NAME: metric}
    if entry.score is not None:
        attributes[sc.EVALUATION_SCORE_VALUE] = entry.score
    label = entry.label if entry.label is not None else (None if entry.score is not None else "undetermined")
    if label is not None:
        attributes[sc.EVALUATION_SCORE_LABEL] = label
    if entry.probability is not None:
        attributes[sc.EVALUATION_PROBABILITY] = entry.probability
    explanation = record.explanation(metric)
    if explanation:
        attributes[sc.EVALUATION_EXPLANATION] = explanation
    if entry.score is None and record.failure is not None:
        attributes[sc.ERROR_TYPE] = record.failure  # undetermined because the evaluation failed (the judge, …)
    if record.judge is not None:
        attributes[sc.JUDGE] = record.judge
    attributes[sc.RECORD_ID] = record.record_id
    return attributes


def failure_event(metric: str, record: EvaluationRecord) -> Attributes:
    """One ``gen_ai.evaluation.result`` event for a metric of an evaluation that failed before any score: its
    ``error.type``, as the GenAI conventions ask."""
    attributes: Attributes = {
        sc.EVENT_NAME: sc.EVALUATION_RESULT_EVENT,
        sc.EVALUATION_NAME: metric,
        sc.ERROR_TYPE: record.failure or "error",
        sc.RECORD_ID: record.record_id,
    }
    if record.error:
        attributes[sc.EVALUATION_EXPLANATION] = record.error
    return attributes


def claim_event(claim: ClaimExplanation) -> Attributes:
    """One event per explained claim on the evaluation span (texts already redacted and capped)."""
    attributes: Attributes = {
        sc.CLAIM_SOURCE: claim.source,
        sc.CLAIM_INDEX: claim.index,
        sc.CLAIM_SUPPORTING_CHUNKS: list(claim.supporting_chunks),
        sc.CLAIM_CONTRADICTING_CHUNKS: list(claim.contradicting_chunks),
    }
    optional = {
        sc.CLAIM_TEXT: claim.text or None,
        sc.CLAIM_CATEGORY: claim.category,
        sc.CLAIM_AGAINST_REFERENCE: None if claim.against_reference is None else claim.against_reference.value,
        sc.CLAIM_RATIONALE: claim.rationale or None,
    }
    attributes.update({key: value for key, value in optional.items() if value is not None})
    return attributes


def _origin(origin: Origin) -> Attributes:
    attributes: Attributes = {sc.ORIGIN_FRAMEWORK: origin.framework}
    if origin.chain_name is not None:
        attributes[sc.ORIGIN_CHAIN_NAME] = origin.chain_name
    if origin.run_id is not None:
        attributes[sc.ORIGIN_RUN_ID] = origin.run_id
    return attributes
