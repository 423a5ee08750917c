"""Online explanations are read from the real evidence, once per record, and only then redacted."""

from __future__ import annotations

import threading
from typing import Any

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.explain import metric_explanations
from ragmetrics_core.online import CallbackEmitter, OnlinePipeline, PhoenixEmitter, PrivacyOptions
from ragmetrics_core.online.emitters import otel_attributes
from ragmetrics_core.online.types import EvaluationRecord, Origin, SpanRef
from ragmetrics_core.sample import Context, RagSample

METRICS = ["faithfulness", "response_relevancy", "context_entity_recall", "hallucination", "overall_recall"]

SAMPLE = RagSample(
    id="eiffel",
    user_input="When was the Eiffel Tower finished, and who designed it?",
    retrieved_contexts=[
        Context(text="The Eiffel Tower in Paris was completed in 1889."),
        Context(text="Gustave Eiffel's company built the tower for the World's Fair."),
    ],
    response="The Eiffel Tower was finished in 1889. It was designed by Leonardo da Vinci.",
    reference="The Eiffel Tower was completed in 1889 and designed by Maurice Koechlin for Gustave Eiffel.",
)


def _one_record(privacy: PrivacyOptions | None = None) -> EvaluationRecord:
    records: list[EvaluationRecord] = []
    done = threading.Event()

    def keep(record: EvaluationRecord) -> None:
        records.append(record)
        done.set()

    online = OnlinePipeline(
        Evaluator(metrics=METRICS), emitters=[CallbackEmitter(keep)], privacy=privacy, evaluation_timeout_s=None
    )
    try:
        online.submit(SAMPLE, Origin(span=SpanRef(0xABC, 0xDEF)))
        assert done.wait(60)
    finally:
        online.shutdown(timeout_s=5)
    assert records[0].ok, records[0].error
    return records[0]


def test_an_online_explanation_is_the_offline_one_for_the_same_sample() -> None:
    offline = metric_explanations(Evaluator(metrics=METRICS).evaluate(SAMPLE))
    record = _one_record()
    assert record.metric_explanations == offline
    # What was empty when the explanations were read after redaction: the questions and entities are counted.
    assert "to 0 questions" not in offline["response_relevancy"]
    assert not offline["context_entity_recall"].startswith("all 0 ")
    # Both emitters show that one line (computed once, on the worker): Phoenix's annotation and the OTel event.
    annotations = PhoenixEmitter(base_url="http://127.0.0.1:9").annotations(record)
    assert {a["name"]: a["result"].get("explanation", "") for a in annotations} == offline
    for metric, entry in record.scores.items():
        event: dict[str, Any] = dict(otel_attributes.result_event(metric, entry, record))
        assert event.get("gen_ai.evaluation.explanation", "") == offline[metric]


def test_quoted_texts_are_redacted_but_the_counts_stay() -> None:
    offline = metric_explanations(Evaluator(metrics=METRICS).evaluate(SAMPLE))
    redacted = _one_record(PrivacyOptions(redact=lambda text: text.replace("Leonardo da Vinci", "[person]")))
    hidden = _one_record(PrivacyOptions(capture_texts=False))
    for metric, line in offline.items():
        assert "Leonardo" not in redacted.metric_explanations[metric]
        assert "Eiffel" not in hidden.metric_explanations[metric] and "'" not in hidden.metric_explanations[metric]
        # The counting part (before any quote) is the same whatever the privacy options.
        counts = line.split(": ", 1)[0].split("; ", 1)[0]
        assert hidden.metric_explanations[metric].startswith(counts)
    assert "[person]" in redacted.metric_explanations["faithfulness"] + redacted.metric_explanations["hallucination"]
