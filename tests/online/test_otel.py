"""OpenTelemetry output through the real SDK with in-memory span and log exporters."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry._logs import SeverityNumber
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.metrics import MetricOptions
from ragmetrics_core.online import OnlinePipeline, OtelEmitter, PrivacyOptions, SamplingDecision, current_origin
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.types import ContextDraft, Origin
from tests.online.conftest import METRICS, Telemetry, paris_draft
from tests.online.judges import ScriptedJudge

MakeOnline = Callable[..., OnlinePipeline]


def otel(telemetry: Telemetry, **kwargs: Any) -> OtelEmitter:
    return OtelEmitter(tracer_provider=telemetry.tracer_provider, logger_provider=telemetry.logger_provider, **kwargs)


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == name]
    return span


def run_app_span(telemetry: Telemetry) -> tuple[Origin, ReadableSpan]:
    """The app's own traced RAG run: the span has ended before anything is scored."""
    tracer = telemetry.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("rag-chain"):
        origin = current_origin(framework="test", chain_name="qa", run_id="run-7")
    return origin, by_name(telemetry.spans.get_finished_spans(), "rag-chain")


def test_evaluation_span_is_a_child_of_the_ended_app_span(make_online: MakeOnline, telemetry: Telemetry) -> None:
    online = make_online(emitters=[otel(telemetry)])
    origin, app_span = run_app_span(telemetry)
    assert online.submit(paris_draft(), origin) is SamplingDecision.EVALUATED
    assert online.flush(10)
    evaluation = by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    assert app_span.context is not None and evaluation.context is not None and evaluation.parent is not None
    assert evaluation.context.trace_id == app_span.context.trace_id
    assert evaluation.parent.span_id == app_span.context.span_id
    assert evaluation.parent.is_remote
    attributes = dict(evaluation.attributes or {})
    assert attributes[sc.score_attribute("faithfulness")] == 0.5
    assert attributes[sc.score_attribute("context_recall")] == 1.0
    assert attributes[sc.score_attribute("hallucination")] == 0.5
    assert attributes[sc.label_attribute("faithfulness")] in ("pass", "fail")
    assert attributes[sc.JUDGE] == "scripted"
    assert attributes[sc.USAGE_CALLS] == 2 and attributes[sc.USAGE_PROMPT_TOKENS] == 20
    assert attributes[sc.SAMPLING_DECISION] == "evaluated"
    assert attributes[sc.SAMPLING_RATE] == 1.0 and attributes[sc.SAMPLING_ROUTE] == "default"
    assert attributes[sc.OPENINFERENCE_SPAN_KIND] == "EVALUATOR"
    assert attributes[sc.ORIGIN_RUN_ID] == "run-7" and attributes[sc.SUBJECT_CREATED] is False
    assert json.loads(str(attributes[sc.OUTPUT_VALUE]))["overall_precision"] == 0.5
    assert evaluation.status.status_code is not StatusCode.ERROR


def test_one_evaluation_result_log_event_per_metric_parented_to_the_app_span(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    judge = ScriptedJudge()
    evaluator = Evaluator(judge=judge, metrics=list(METRICS), options=MetricOptions(thresholds={"faithfulness": 0.8}))
    online = OnlinePipeline(evaluator, emitters=[otel(telemetry)])
    try:
        origin, app_span = run_app_span(telemetry)
        online.submit(paris_draft(), origin)
        assert online.flush(10)
    finally:
        online.shutdown(2)
    logs = [entry.log_record for entry in telemetry.logs.get_finished_logs()]
    assert sorted(str((r.attributes or {})[sc.EVALUATION_NAME]) for r in logs) == sorted(METRICS)
    assert app_span.context is not None
    for record in logs:
        assert record.event_name == sc.EVALUATION_RESULT_EVENT
        assert (record.attributes or {})[sc.EVENT_NAME] == sc.EVALUATION_RESULT_EVENT
        assert record.trace_id == app_span.context.trace_id
        assert record.span_id == app_span.context.span_id
    faithfulness = next(r for r in logs if (r.attributes or {})[sc.EVALUATION_NAME] == "faithfulness")
    attributes = dict(faithfulness.attributes or {})
    assert attributes[sc.EVALUATION_SCORE_VALUE] == 0.5
    assert attributes[sc.EVALUATION_SCORE_LABEL] == "fail"  # 0.5 < the configured 0.8


def test_undetermined_metrics_carry_their_reason_instead_of_a_score(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    online = make_online(emitters=[otel(telemetry)])
    online.submit(paris_draft(reference=None), Origin(run_id="no-ref"))
    assert online.flush(10)
    evaluation = by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    attributes = dict(evaluation.attributes or {})
    assert sc.score_attribute("context_recall") not in attributes
    assert attributes[sc.undetermined_attribute("context_recall")]
    event = next(
        e.log_record
        for e in telemetry.logs.get_finished_logs()
        if (e.log_record.attributes or {})[sc.EVALUATION_NAME] == "context_recall"
    )
    assert sc.EVALUATION_SCORE_VALUE not in (event.attributes or {})
    assert (event.attributes or {})[sc.EVALUATION_SCORE_LABEL] == "undetermined"
    assert (event.attributes or {})[sc.EVALUATION_EXPLANATION]


def test_without_app_tracing_a_rag_span_with_openinference_attributes_is_created(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    online = make_online(emitters=[otel(telemetry)])
    origin = Origin(chain_name="support-bot", run_id="r", start_time_ns=1_000_000_000, end_time_ns=1_500_000_000)
    online.submit(paris_draft(), origin)
    assert online.flush(10)
    spans = telemetry.spans.get_finished_spans()
    rag = by_name(spans, "support-bot")
    evaluation = by_name(spans, sc.EVALUATION_SPAN_NAME)
    assert rag.parent is None and (rag.start_time, rag.end_time) == (1_000_000_000, 1_500_000_000)
    assert rag.context is not None and evaluation.parent is not None
    assert evaluation.parent.span_id == rag.context.span_id
    attributes = dict(rag.attributes or {})
    assert attributes[sc.OPENINFERENCE_SPAN_KIND] == "CHAIN"
    assert attributes[sc.INPUT_VALUE] == "Where is Paris?"
    assert attributes[sc.OUTPUT_VALUE] == "Paris is in France. Paris has ten million cats."
    assert attributes["retrieval.documents.0.document.content"] == "Paris is in France."
    assert attributes["retrieval.documents.0.document.id"] == "doc-1"
    assert attributes["retrieval.documents.0.document.score"] == 0.9
    assert attributes["retrieval.documents.1.document.content"] == "Rome is in Italy."
    assert (evaluation.attributes or {})[sc.SUBJECT_CREATED] is True
    for entry in telemetry.logs.get_finished_logs():
        assert entry.log_record.span_id == rag.context.span_id


def test_claim_evidence_is_attached_as_capped_span_events(make_online: MakeOnline, telemetry: Telemetry) -> None:
    online = make_online(emitters=[otel(telemetry, max_claim_events=2)])
    online.submit(paris_draft(response="Paris is in France. Paris has cats. Paris has dogs. Paris has rats."))
    assert online.flush(10)
    evaluation = by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    events = [e for e in evaluation.events if e.name == sc.CLAIM_EVENT]
    assert len(events) == 2
    first = dict(events[0].attributes or {})
    assert first[sc.CLAIM_SOURCE] in ("response", "reference")
    assert first[sc.CLAIM_TEXT]
    assert (evaluation.attributes or {})[sc.CLAIMS_OMITTED] >= 3


def test_claim_events_and_log_events_can_be_turned_off(make_online: MakeOnline, telemetry: Telemetry) -> None:
    online = make_online(emitters=[otel(telemetry, claim_events=False, log_events=False)])
    online.submit(paris_draft())
    assert online.flush(10)
    evaluation = by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    assert not evaluation.events
    assert not telemetry.logs.get_finished_logs()


def test_a_failed_evaluation_is_an_error_span_and_error_typed_result_events(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    online = make_online(emitters=[otel(telemetry)], metrics=("faithfulness", "context_recall"))
    online.submit(paris_draft(response=["not", "a", "string"]))
    assert online.flush(10)
    evaluation = by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    assert evaluation.status.status_code is StatusCode.ERROR
    assert "invalid sample" in str((evaluation.attributes or {})[sc.ERROR])
    # One gen_ai.evaluation.result per requested metric, each with error.type and no score.
    events = [entry.log_record for entry in telemetry.logs.get_finished_logs()]
    attributes = [dict(event.attributes or {}) for event in events]
    assert sorted(a[sc.EVALUATION_NAME] for a in attributes) == ["context_recall", "faithfulness"]
    assert all(a[sc.ERROR_TYPE] == "invalid_sample" and sc.EVALUATION_SCORE_VALUE not in a for a in attributes)
    assert all("invalid sample" in str(a[sc.EVALUATION_EXPLANATION]) for a in attributes)
    assert all(event.severity_number is SeverityNumber.ERROR for event in events)
    # parented to the evaluated span (the RAG span created for the draft), like successful results
    assert {event.trace_id for event in events} == {evaluation.context.trace_id}


def test_a_judge_failure_reports_judge_error_on_each_metric(make_online: MakeOnline, telemetry: Telemetry) -> None:
    online = make_online(judge=ScriptedJudge(fail=True, fail_message="upstream 503"), emitters=[otel(telemetry)],
                         metrics=("faithfulness",))
    online.submit(paris_draft())
    assert online.flush(10)
    [event] = [entry.log_record for entry in telemetry.logs.get_finished_logs()]
    attributes = dict(event.attributes or {})
    assert attributes[sc.EVALUATION_NAME] == "faithfulness"
    assert attributes[sc.ERROR_TYPE] == "judge_error" and "upstream 503" in str(attributes[sc.EVALUATION_EXPLANATION])


def all_telemetry_text(telemetry: Telemetry) -> str:
    parts = []
    for span in telemetry.spans.get_finished_spans():
        parts.append(span.to_json())
    for entry in telemetry.logs.get_finished_logs():
        parts.append(entry.to_json())
    return "\n".join(parts)


def test_capture_texts_off_keeps_every_user_text_out_of_telemetry(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    online = make_online(emitters=[otel(telemetry)], privacy=PrivacyOptions(capture_texts=False))
    secret_question = "What is the diagnosis of patient 4711?"
    online.submit(paris_draft(user_input=secret_question), Origin(run_id="r"))
    assert online.flush(10)
    text = all_telemetry_text(telemetry)
    assert sc.score_attribute("faithfulness") in text
    for private in ("diagnosis", "ten million cats", "Rome is in Italy", "Paris is in France"):
        assert private not in text
    rag = by_name(telemetry.spans.get_finished_spans(), "rag")
    assert "retrieval.documents.0.document.id" in dict(rag.attributes or {})


def test_redaction_hook_runs_before_anything_is_emitted_and_api_keys_never_appear(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    def hide_cats(text: str) -> str:
        return text.replace("cats", "[animal]")

    online = make_online(emitters=[otel(telemetry)], privacy=PrivacyOptions(redact=hide_cats, max_text_chars=40))
    draft = paris_draft(
        user_input="my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUV and api_key=hunter2hunter2",
        contexts=[ContextDraft("Paris is in France. " + "x" * 500)],
    )
    online.submit(draft)
    assert online.flush(10)
    text = all_telemetry_text(telemetry)
    assert "cats" not in text and "[animal]" in text
    assert "sk-proj-ABCDEFGHIJKLMNOPQRSTUV" not in text and "hunter2" not in text
    rag = dict(by_name(telemetry.spans.get_finished_spans(), "rag").attributes or {})
    assert len(str(rag["retrieval.documents.0.document.content"])) == 40


def test_a_broken_redaction_hook_withholds_the_text(make_online: MakeOnline, telemetry: Telemetry) -> None:
    def broken(text: str) -> str:
        raise RuntimeError("hook bug")

    online = make_online(emitters=[otel(telemetry)], privacy=PrivacyOptions(redact=broken))
    online.submit(paris_draft())
    assert online.flush(10)
    rag = dict(by_name(telemetry.spans.get_finished_spans(), "rag").attributes or {})
    assert rag[sc.INPUT_VALUE] == "[redaction failed]"
    assert "Where is Paris" not in all_telemetry_text(telemetry)


def test_the_global_providers_are_used_when_none_are_given(
    make_online: MakeOnline, telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry import _logs, trace

    monkeypatch.setattr(trace, "get_tracer_provider", lambda: telemetry.tracer_provider)
    monkeypatch.setattr(_logs._internal, "get_logger_provider", lambda: telemetry.logger_provider)
    online = make_online(emitters=[OtelEmitter()])
    online.submit(paris_draft())
    assert online.flush(10)
    assert by_name(telemetry.spans.get_finished_spans(), sc.EVALUATION_SPAN_NAME)
    assert len(telemetry.logs.get_finished_logs()) == len(METRICS)


def test_ids_names_and_tags_with_lone_surrogates_still_encode_for_otlp(
    make_online: MakeOnline, telemetry: Telemetry
) -> None:
    """A document id that is a file name decoded with ``surrogateescape`` (``os.fsdecode`` of non-UTF-8 bytes), or a
    run name cut from broken JSON, holds lone surrogates. The OTLP encoder cannot encode them: one such attribute
    fails the whole export batch, the app's own spans in it included. Texts are repaired on validation; ids, names and
    tags must be too."""
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    file_name = os.fsdecode(b"caf\xe9-menu.txt")  # what os.listdir gives for a Latin-1 file name
    broken = "support \ud800 bot"
    online = make_online(emitters=[otel(telemetry)])
    draft = paris_draft(contexts=[ContextDraft("Paris is in France.", id=file_name)])
    online.submit(draft, Origin(chain_name=broken, run_id=broken, tags=(broken,)))
    assert online.flush(10)
    spans = telemetry.spans.get_finished_spans()
    assert len(spans) == 2  # the RAG span (named after the chain) and the evaluation span
    assert encode_spans(spans).SerializeToString()
    assert encode_logs(telemetry.logs.get_finished_logs()).SerializeToString()
    rag = next(s for s in spans if s.name != sc.EVALUATION_SPAN_NAME)
    assert rag.name == "support \ufffd bot"
    assert dict(rag.attributes or {})[sc.retrieval_document_attribute(0, sc.DOCUMENT_ID)] == "caf\ufffd-menu.txt"
