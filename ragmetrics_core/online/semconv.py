"""The attribute and event names ragmetrics writes to telemetry, in one place.

The GenAI evaluation names follow the OpenTelemetry GenAI semantic conventions (``gen_ai.evaluation.*``,
still incubating upstream, so we keep our own copy instead of importing ``opentelemetry.semconv._incubating``).
The ``input.value`` / ``retrieval.documents.*`` names are OpenInference's, which Phoenix renders. Everything
under ``ragmetrics.`` is ours.
"""

from __future__ import annotations

from typing import Final

# OpenTelemetry GenAI: one log event per metric, parented to the evaluated span.
EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"
EVENT_NAME: Final = "event.name"
EVALUATION_NAME: Final = "gen_ai.evaluation.name"
EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
ERROR_TYPE: Final = "error.type"

# OpenInference: the span kinds and attributes Phoenix (and other OpenInference readers) render.
OPENINFERENCE_SPAN_KIND: Final = "openinference.span.kind"
SPAN_KIND_CHAIN: Final = "CHAIN"
SPAN_KIND_EVALUATOR: Final = "EVALUATOR"
INPUT_VALUE: Final = "input.value"
OUTPUT_VALUE: Final = "output.value"
INPUT_MIME_TYPE: Final = "input.mime_type"
OUTPUT_MIME_TYPE: Final = "output.mime_type"
MIME_TEXT: Final = "text/plain"
MIME_JSON: Final = "application/json"
RETRIEVAL_DOCUMENTS_PREFIX: Final = "retrieval.documents"
DOCUMENT_CONTENT: Final = "document.content"
DOCUMENT_ID: Final = "document.id"
DOCUMENT_SCORE: Final = "document.score"


def retrieval_document_attribute(index: int, field: str) -> str:
    """``retrieval.documents.{index}.{field}``, OpenInference's flattened list attribute."""
    return f"{RETRIEVAL_DOCUMENTS_PREFIX}.{index}.{field}"


# ragmetrics: the evaluation span.
EVALUATION_SPAN_NAME: Final = "ragmetrics.evaluation"
RAG_SPAN_DEFAULT_NAME: Final = "rag"
SCORE_PREFIX: Final = "ragmetrics.score"
LABEL_PREFIX: Final = "ragmetrics.label"
PROBABILITY_PREFIX: Final = "ragmetrics.probability"
"""P(the user's label says yes | score), with a calibration (``ragmetrics calibrate``); absent without one."""
EVALUATION_PROBABILITY: Final = "ragmetrics.evaluation.probability"
"""The same on a ``gen_ai.evaluation.result`` event (the GenAI conventions have no attribute for it)."""
UNDETERMINED_PREFIX: Final = "ragmetrics.undetermined"
JUDGE: Final = "ragmetrics.judge"
SAMPLE_ID: Final = "ragmetrics.sample.id"
RECORD_ID: Final = "ragmetrics.record.id"
ERROR: Final = "ragmetrics.error"
USAGE_CALLS: Final = "ragmetrics.usage.calls"
USAGE_EMBEDDING_CALLS: Final = "ragmetrics.usage.embedding_calls"
USAGE_PROMPT_TOKENS: Final = "ragmetrics.usage.prompt_tokens"
USAGE_COMPLETION_TOKENS: Final = "ragmetrics.usage.completion_tokens"
USAGE_LATENCY_S: Final = "ragmetrics.usage.latency_s"
USAGE_COST_USD: Final = "ragmetrics.usage.cost_usd"
SAMPLING_DECISION: Final = "ragmetrics.sampling.decision"
SAMPLING_RATE: Final = "ragmetrics.sampling.rate"
SAMPLING_ROUTE: Final = "ragmetrics.sampling.route"
ORIGIN_FRAMEWORK: Final = "ragmetrics.origin.framework"
ORIGIN_CHAIN_NAME: Final = "ragmetrics.origin.chain_name"
ORIGIN_RUN_ID: Final = "ragmetrics.origin.run_id"
SUBJECT_CREATED: Final = "ragmetrics.subject.created"
QUEUE_WAIT_S: Final = "ragmetrics.queue_wait_s"

# ragmetrics: per-claim evidence, as events on the evaluation span.
CLAIM_EVENT: Final = "ragmetrics.claim"
CLAIM_SOURCE: Final = "ragmetrics.claim.source"
CLAIM_INDEX: Final = "ragmetrics.claim.index"
CLAIM_TEXT: Final = "ragmetrics.claim.text"
CLAIM_CATEGORY: Final = "ragmetrics.claim.category"
CLAIM_AGAINST_REFERENCE: Final = "ragmetrics.claim.against_reference"
CLAIM_SUPPORTING_CHUNKS: Final = "ragmetrics.claim.supporting_chunks"
CLAIM_CONTRADICTING_CHUNKS: Final = "ragmetrics.claim.contradicting_chunks"
CLAIM_RATIONALE: Final = "ragmetrics.claim.rationale"
CLAIMS_OMITTED: Final = "ragmetrics.claims.omitted"


def score_attribute(metric: str) -> str:
    return f"{SCORE_PREFIX}.{metric}"


def label_attribute(metric: str) -> str:
    return f"{LABEL_PREFIX}.{metric}"


def probability_attribute(metric: str) -> str:
    return f"{PROBABILITY_PREFIX}.{metric}"


def undetermined_attribute(metric: str) -> str:
    return f"{UNDETERMINED_PREFIX}.{metric}"


# ---------------------------------------------------------------- metrics (see docs/monitoring.md)
# The GenAI conventions define no evaluation metric yet, so the instruments are ours (``ragmetrics.``); their
# attributes reuse the GenAI names where one exists (the metric's name and label, the judge's model, the token
# type, ``error.type``).

METRIC_SCORE: Final = "ragmetrics.evaluation.score"
METRIC_UNDETERMINED: Final = "ragmetrics.evaluation.undetermined"
METRIC_PROBABILITY: Final = "ragmetrics.evaluation.probability"
"""With a calibration: P(label = yes) per calibrated score, so alert rules can be written in probabilities."""
METRIC_DURATION: Final = "ragmetrics.evaluation.duration"
METRIC_JUDGE_TOKENS: Final = "ragmetrics.judge.token.usage"
METRIC_JUDGE_COST: Final = "ragmetrics.judge.cost"
METRIC_SUBMITTED: Final = "ragmetrics.online.samples.submitted"
METRIC_SAMPLED_OUT: Final = "ragmetrics.online.samples.sampled_out"
METRIC_DROPPED: Final = "ragmetrics.online.samples.dropped"
METRIC_COMPLETED: Final = "ragmetrics.online.samples.completed"
METRIC_FAILED: Final = "ragmetrics.online.samples.failed"
METRIC_PENDING: Final = "ragmetrics.online.samples.pending"
METRIC_EMITTER_RECORDS: Final = "ragmetrics.online.emitter.records"

GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
GEN_AI_TOKEN_TYPE: Final = "gen_ai.token.type"
TOKEN_TYPE_INPUT: Final = "input"
TOKEN_TYPE_OUTPUT: Final = "output"
JUDGE_KIND: Final = "ragmetrics.judge.kind"
UNDETERMINED_REASON: Final = "ragmetrics.undetermined.reason"
DROP_REASON: Final = "ragmetrics.drop.reason"
PENDING_STATE: Final = "ragmetrics.pending.state"
PIPELINE: Final = "ragmetrics.pipeline"
EMITTER_NAME: Final = "ragmetrics.emitter.name"
EMITTER_OUTCOME: Final = "ragmetrics.emitter.outcome"
