"""LangfuseEmitter against a local stand-in of Langfuse's scores API that validates every request."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, Origin, OtelEmitter, SpanRef
from ragmetrics_core.online.emitters.langfuse import (
    MAX_BODY_BYTES,
    MAX_COMMENT_CHARS,
    LangfuseEmitter,
    NoSubjectSpanError,
)
from ragmetrics_core.online.types import EvaluationRecord
from ragmetrics_core.sample import Context, RagSample
from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.langchain.conftest import make_store, rag_chain
from tests.monitoring.conftest import DictatedEvaluator
from tests.monitoring.langfuse_server import LangfuseStandIn, serve
from tests.online.judges import ScriptedJudge
from tests.servers import free_port

PUBLIC = "pk-lf-test-1234"
SECRET = "sk-lf-very-secret-5678"


@pytest.fixture
def langfuse() -> Iterator[tuple[LangfuseStandIn, str]]:
    stand_in = LangfuseStandIn(PUBLIC, SECRET)
    server, url = serve(stand_in)
    yield stand_in, url
    server.shutdown()
    server.server_close()


def emitter(url: str, **kwargs: Any) -> LangfuseEmitter:
    options: dict[str, Any] = {"public_key": PUBLIC, "secret_key": SECRET, "base_url": url, "max_delay_s": 0.05}
    return LangfuseEmitter(**{**options, **kwargs})


def sample(**metadata: Any) -> RagSample:
    reference = metadata.pop("reference", None)
    return RagSample(
        user_input="Where is Paris?", response="Paris is in France.", reference=reference,
        retrieved_contexts=[Context(text="Paris is in France.")], metadata=metadata,
    )


def span(n: int) -> SpanRef:
    return SpanRef(trace_id=0xA1B2C3D4E5F60718293A4B5C6D7E8F90 + n, span_id=0x1122334455667788 + n)


def pipeline(target: LangfuseEmitter, items: list[tuple[RagSample, SpanRef | None]]) -> OnlinePipeline:
    online = OnlinePipeline(DictatedEvaluator(), emitters=[target])
    for item, ref in items:
        online.submit(item, Origin(span=ref))
    return online


def by_name(stand_in: LangfuseStandIn, observation: str) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in stand_in.scores.values() if s["observationId"] == observation}


def test_each_metric_becomes_scores_on_the_spans_trace_and_observation(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    items = [
        (sample(faithfulness=0.75, label="pass", reason="3 of 4 claims supported", reference="Paris is in France."),
         span(1)),
        (sample(faithfulness=0.25, label="fail"), span(2)),
    ]
    online = pipeline(emitter(url, environment="production"), items)
    assert online.flush(timeout_s=10)
    assert stand_in.invalid == []
    first = by_name(stand_in, span(1).span_id_hex)
    assert set(first) == {"faithfulness", "faithfulness_label", "context_recall"}
    numeric = first["faithfulness"]
    assert numeric["traceId"] == span(1).trace_id_hex and len(numeric["traceId"]) == 32
    assert (numeric["value"], numeric["dataType"], numeric["comment"]) == (0.75, "NUMERIC", "3 of 4 claims supported")
    assert numeric["environment"] == "production"
    assert numeric["metadata"]["judge"] == "openai:gpt-4o-mini" and numeric["metadata"]["route"] == "default"
    assert (first["faithfulness_label"]["value"], first["faithfulness_label"]["dataType"]) == ("pass", "CATEGORICAL")
    assert first["context_recall"]["value"] == 1.0
    second = by_name(stand_in, span(2).span_id_hex)
    # Without a reference context_recall is undetermined: no number, a categorical score saying so and why.
    assert "context_recall" not in second
    assert second["context_recall_label"]["value"] == "undetermined"
    assert second["context_recall_label"]["comment"] == "missing input: reference"
    assert second["faithfulness_label"]["value"] == "fail"
    assert len(stand_in.scores) == 3 + 3 and len(set(stand_in.sent_ids())) == 6
    online.shutdown()


def test_scores_land_on_the_ids_the_otlp_export_gives_langfuse(langfuse: tuple[LangfuseStandIn, str]) -> None:
    """A LangChain run without app tracing: the OtelEmitter creates the RAG span; the Langfuse scores name the
    trace and span ids that span is exported with (Langfuse's trace and observation ids for OTLP data)."""
    stand_in, url = langfuse
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=["faithfulness"]),
        emitters=[OtelEmitter(tracer_provider=provider, log_events=False), emitter(url)],
    )
    handler = RagMetricsCallbackHandler(online)
    answer = "The Eiffel Tower is in Paris."
    chain = rag_chain(make_store().as_retriever(search_kwargs={"k": 2}), [answer])
    config: Any = {"callbacks": [handler], "run_name": "support-rag"}
    assert chain.invoke("Where is the Eiffel Tower?", config=config) == answer
    assert online.flush(timeout_s=30)
    (rag,) = [s for s in spans.get_finished_spans() if s.name == "support-rag"]
    assert rag.context is not None
    scores = by_name(stand_in, f"{rag.context.span_id:016x}")
    assert scores["faithfulness"]["value"] == 1.0
    assert scores["faithfulness"]["traceId"] == f"{rag.context.trace_id:032x}"
    online.shutdown()
    provider.shutdown()


def test_a_retried_request_does_not_duplicate_scores(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    stand_in.fail_next = [503]  # the first request is stored, but its answer is lost
    target = emitter(url)
    online = pipeline(target, [(sample(faithfulness=1.0, label="pass"), span(3))])
    assert online.flush(timeout_s=20)
    sent = stand_in.sent_ids()
    assert len(stand_in.requests) == 2 and len(sent) == 6 and len(set(sent)) == 3
    assert sent[:3] == sent[3:]  # the same ids (and timestamps) again: Langfuse upserts them
    assert len(stand_in.scores) == 3
    assert (target.sent, target.failed) == (3, 0)
    # The same record exported again (a replay) also maps onto the same scores.
    record = _record(target, span(3))
    assert [s["id"] for s in target.scores(record)] == [s["id"] for s in target.scores(record)]
    online.shutdown()


def test_emit_only_queues_and_the_sender_batches(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    target = emitter(url, batch_size=4, max_delay_s=30)
    for n in range(3):
        target.emit(_record(target, span(n)))  # 3 scores each
    deadline = time.monotonic() + 10
    while len(stand_in.scores) < 8 and time.monotonic() < deadline:
        time.sleep(0.02)
    # Two full batches of 4 went out on the sender thread; the last score waits for its delay or a flush.
    assert [len(json.loads(r.body)) for r in stand_in.requests] == [4, 4]
    assert target.force_flush(10)
    assert [len(json.loads(r.body)) for r in stand_in.requests] == [4, 4, 1]
    assert len(stand_in.scores) == 9 and stand_in.invalid == []
    target.shutdown(5)


def test_a_lone_score_is_sent_after_its_delay_without_a_flush(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    target = emitter(url, batch_size=1000, max_delay_s=0.1)
    for n, expected in ((9, 3), (10, 6)):  # the second one arrives while the sender sleeps with nothing queued
        target.emit(_record(target, span(n)))
        deadline = time.monotonic() + 10
        while len(stand_in.scores) < expected and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(stand_in.scores) == expected
    assert len(stand_in.requests) == 2
    target.shutdown(5)


def test_requests_stay_under_the_body_limit_with_huge_unicode_comments(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    target = emitter(url, batch_size=1000, max_delay_s=30)
    reason = "Ünïcode 🙂 " * 2000  # 20 000 characters, capped to MAX_COMMENT_CHARS
    for n in range(150):
        target.emit(_record(target, span(n), reason=reason))
    assert target.force_flush(30)
    sizes = [len(r.body) for r in stand_in.requests]
    assert len(sizes) > 1 and max(sizes) < MAX_BODY_BYTES
    assert len(stand_in.scores) == 450 and stand_in.invalid == []
    comments = {s["comment"] for s in stand_in.scores.values() if s["name"] == "faithfulness"}
    (comment,) = comments
    assert len(comment) == MAX_COMMENT_CHARS and comment.endswith("…")
    target.shutdown(5)


def test_rejected_scores_are_counted_and_not_retried(langfuse: tuple[LangfuseStandIn, str], caplog: Any) -> None:
    stand_in, url = langfuse
    stand_in.reject_names = {"faithfulness_label"}
    target = emitter(url)
    online = pipeline(target, [(sample(faithfulness=0.5, label="pass"), span(4))])
    with caplog.at_level(logging.WARNING, logger="ragmetrics.online"):
        assert not online.flush(timeout_s=10)  # the emitter's flush reports the loss
    assert (target.sent, target.rejected, len(stand_in.requests)) == (2, 1, 1)
    assert "Langfuse rejected 1 of 3 scores" in caplog.text
    online.shutdown()


def test_keys_and_host_come_from_the_environment_and_are_never_shown(
    langfuse: tuple[LangfuseStandIn, str], caplog: Any
) -> None:
    stand_in, url = langfuse
    environ = {"LANGFUSE_PUBLIC_KEY": PUBLIC, "LANGFUSE_SECRET_KEY": SECRET, "LANGFUSE_HOST": url}
    target = LangfuseEmitter(environ=environ, max_delay_s=0.05)
    assert target.base_url == url
    newer = LangfuseEmitter(environ={**environ, "LANGFUSE_BASE_URL": url + "/", "LANGFUSE_HOST": "http://old"})
    assert newer.base_url == url
    online = pipeline(target, [(sample(faithfulness=1.0), span(5))])
    assert online.flush(timeout_s=10) and len(stand_in.scores) == 2
    online.shutdown()
    # A wrong secret: 401, not retried, logged without any key.
    wrong = LangfuseEmitter(environ={**environ, "LANGFUSE_SECRET_KEY": SECRET + "-wrong"}, max_delay_s=0.05)
    with caplog.at_level(logging.DEBUG):
        online = pipeline(wrong, [(sample(faithfulness=1.0), span(6))])
        assert not online.flush(timeout_s=10)
        online.shutdown()
    assert "HTTP 401" in caplog.text
    for shown in (caplog.text, repr(target), repr(wrong), str(online.stats())):
        assert SECRET not in shown and PUBLIC not in shown


def test_missing_keys_and_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="LANGFUSE_PUBLIC_KEY") as error:
        LangfuseEmitter(environ={"LANGFUSE_SECRET_KEY": SECRET})
    assert SECRET not in str(error.value)
    with pytest.raises(ValueError, match="batch_size"):
        LangfuseEmitter(public_key=PUBLIC, secret_key=SECRET, batch_size=0, environ={})
    with pytest.raises(ValueError, match="max_retries"):
        LangfuseEmitter(public_key=PUBLIC, secret_key=SECRET, max_retries=-1, environ={})
    assert LangfuseEmitter(public_key=PUBLIC, secret_key=SECRET, environ={}).base_url == "https://cloud.langfuse.com"


def test_a_record_without_a_span_is_an_emitter_failure(langfuse: tuple[LangfuseStandIn, str]) -> None:
    stand_in, url = langfuse
    target = emitter(url)
    with pytest.raises(NoSubjectSpanError):
        target.scores(_record(target, None))
    online = pipeline(target, [(sample(faithfulness=1.0), None)])
    assert online.flush(timeout_s=10)
    assert online.stats().emitters["langfuse"].failed == 1 and stand_in.requests == []
    online.shutdown()


def test_an_unreachable_langfuse_costs_the_flush_not_the_app(caplog: Any) -> None:
    target = emitter(f"http://127.0.0.1:{free_port()}", max_retries=1, timeout_s=1)
    online = pipeline(target, [(sample(faithfulness=1.0), span(7))])
    assert not online.flush(timeout_s=10)
    assert target.failed == 2 and target.sent == 0
    assert online.shutdown(timeout_s=5)
    assert "could not send 2 scores to Langfuse: ConnectError" in caplog.text


def test_the_stand_in_refuses_what_langfuse_would_not_attach(langfuse: tuple[LangfuseStandIn, str]) -> None:
    """The checks above mean something: a misspelt field, a string numeric score, a non-hex trace id are refused."""
    import httpx

    _, url = langfuse
    good = {"id": "x", "traceId": span(1).trace_id_hex, "observationId": span(1).span_id_hex, "name": "f",
            "value": 0.5, "dataType": "NUMERIC", "timestamp": "2026-01-01T00:00:00+00:00"}
    bad = [{**good, "trace_id": good["traceId"]}, {**good, "value": "0.5"}, {**good, "traceId": "run-42"},
           {**good, "timestamp": "2026-01-01T00:00:00"}]
    for item in bad:
        answer = httpx.post(f"{url}/api/public/scores", json=[item], auth=(PUBLIC, SECRET))
        assert answer.status_code == 400, item
    assert httpx.post(f"{url}/api/public/scores", json=[good], auth=(PUBLIC, SECRET)).status_code == 202
    assert httpx.post(f"{url}/api/public/scores", json=[good], auth=(PUBLIC, "nope")).status_code == 401


def _record(target: LangfuseEmitter, subject: SpanRef | None, reason: str = "because") -> EvaluationRecord:
    from ragmetrics_core.judges.base import Usage
    from ragmetrics_core.online.types import SamplingDecision
    from ragmetrics_core.results import Direction, EvaluationResult, MetricScore

    scores = {
        "faithfulness": MetricScore(metric="faithfulness", score=0.5, direction=Direction.HIGHER_IS_BETTER,
                                    label="pass", reason=reason),
        "context_recall": MetricScore(metric="context_recall", score=None, direction=Direction.HIGHER_IS_BETTER,
                                      reason="missing input: reference"),
    }
    return EvaluationRecord(
        record_id=f"record-{subject.span_id if subject else 0}", origin=Origin(), decision=SamplingDecision.EVALUATED,
        route="default", rate=1.0, subject=subject, sample_id=None, sample=None,
        result=EvaluationResult(judge="embedded", scores=scores), error=None, judge="embedded", usage=Usage(),
        submitted_ns=1_700_000_000_000_000_000, started_ns=1_700_000_000_000_000_000,
        finished_ns=1_700_000_000_500_000_000,
    )


def test_flush_and_shutdown_keep_to_their_timeout_and_account_for_every_score(
    langfuse: tuple[LangfuseStandIn, str],
) -> None:
    stand_in, url = langfuse
    target = emitter(url, batch_size=3, max_delay_s=60)
    target.emit(_record(target, span(99)))
    assert target.force_flush(10) and target.sent == 3  # the client is up
    stand_in.delay_s = 0.3  # now a slow Langfuse: each request takes 0.3 s
    for n in range(10):
        target.emit(_record(target, span(n)))  # 30 scores, 10 requests' worth
    start = time.monotonic()
    assert not target.force_flush(0.5)
    assert time.monotonic() - start < 2.5  # the request under way finishes; no new one starts after the deadline
    target.shutdown(0.5)
    deadline = time.monotonic() + 5  # a request already under way when time ran out still completes
    while target.sent + target.dropped < 33 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert 3 <= target.sent < 33 and target.failed == 0
    assert target.sent + target.dropped == 33
    assert len(stand_in.scores) == target.sent
    target.emit(_record(target, span(11)))  # after shutdown: counted, not sent
    assert target.sent + target.dropped == 36
