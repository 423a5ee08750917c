"""A user's own metric over the evidence: computed in the same judge pass, shown wherever scores are shown."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core import CustomMetric, Evaluator, aggregate, metric, write_report
from ragmetrics_core.evidence import Evidence, EvidencePart, Verdict
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from ragmetrics_core.online.types import Origin, SpanRef
from ragmetrics_core.results import Direction
from ragmetrics_core.sample import RagSample
from tests.core.conftest import SubstringJudge

SAMPLE = RagSample(
    id="paris",
    user_input="Where is Paris?",
    retrieved_contexts=["Paris is in France.", "Rome is in Italy."],
    response="Paris is in France. Paris has ten million cats.",
    reference="Paris is in France.",
)


@metric(needs=[EvidencePart.RESPONSE_CLAIMS, EvidencePart.RESPONSE_VS_CHUNKS], threshold=0.75)
def claims_in_first_chunk(evidence: Evidence, sample: RagSample) -> float | None:
    """Share of response claims the first chunk entails."""
    rows = evidence.response_vs_chunks or []
    return sum(row[0].verdict is Verdict.ENTAILED for row in rows) / len(rows) if rows else None


@metric(name="response_words", direction="lower_is_better")
def words(evidence: Evidence, sample: RagSample) -> float:
    return float(len(sample.response.split()))


def test_a_custom_metric_is_scored_in_the_same_judge_pass() -> None:
    plain, judge = SubstringJudge(), SubstringJudge()
    Evaluator(judge=plain, metrics=["faithfulness"]).evaluate(SAMPLE)
    result = Evaluator(judge=judge, metrics=["faithfulness"], extra_metrics=[claims_in_first_chunk, words]).evaluate(
        SAMPLE
    )
    assert len(judge.calls) == len(plain.calls)  # no call of its own: it reads the faithfulness pass's evidence
    entry = result.scores["claims_in_first_chunk"]
    assert entry.score == 0.5 and entry.label == "fail" and entry.threshold == 0.75
    assert result.scores["response_words"].score == 9.0
    assert result.scores["response_words"].direction is Direction.LOWER_IS_BETTER
    assert list(result.scores) == ["faithfulness", "claims_in_first_chunk", "response_words"]


def test_its_needs_are_gathered_even_when_no_built_in_metric_needs_them() -> None:
    judge = SubstringJudge()
    result = Evaluator(judge=judge, metrics=["context_recall"], extra_metrics=[claims_in_first_chunk]).evaluate(SAMPLE)
    assert result.score("claims_in_first_chunk") == 0.5
    assert any(EvidencePart.RESPONSE_VS_CHUNKS in want for stage, want in judge.calls if stage == "check")


def test_it_appears_in_the_aggregate_and_the_report(tmp_path: Path) -> None:
    evaluator = Evaluator(judge=SubstringJudge(), metrics=["faithfulness"], extra_metrics=[claims_in_first_chunk])
    results = [evaluator.evaluate(SAMPLE), evaluator.evaluate(SAMPLE.model_copy(update={"id": "again"}))]
    assert aggregate(results).means()["claims_in_first_chunk"] == 0.5
    html = write_report(results, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "claims_in_first_chunk" in html


def test_it_appears_on_the_evaluation_span() -> None:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    evaluator = Evaluator(judge=SubstringJudge(), metrics=["faithfulness"], extra_metrics=[claims_in_first_chunk])
    online = OnlinePipeline(evaluator, emitters=[OtelEmitter(tracer_provider=provider, log_events=False)])
    try:
        online.submit(SAMPLE, Origin(span=SpanRef(0xABC, 0xDEF)))
        assert online.flush(timeout_s=10)
    finally:
        online.shutdown(timeout_s=5)
    (span,) = [s for s in spans.get_finished_spans() if s.name == "ragmetrics.evaluation"]
    assert span.attributes is not None and span.attributes["ragmetrics.score.claims_in_first_chunk"] == 0.5


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        (ZeroDivisionError("division by zero"), "raised ZeroDivisionError: division by zero"),
        (None, "returned no score"),
        (math.nan, "not a finite number"),
        ("0.5", "not a finite number"),
        (True, "not a finite number"),
    ],
)
def test_a_failing_or_odd_function_leaves_only_that_metric_undetermined(returned: object, reason: str) -> None:
    def read(evidence: Evidence, sample: RagSample) -> float | None:
        if isinstance(returned, Exception):
            raise returned
        return returned  # type: ignore[return-value]

    custom = CustomMetric(id="odd", compute=read)
    result = Evaluator(judge=SubstringJudge(), metrics=["faithfulness"], extra_metrics=[custom]).evaluate(SAMPLE)
    assert result.scores["odd"].score is None and reason in result.scores["odd"].reason
    assert result.score("faithfulness") is not None and result.error is None


def test_a_judge_failure_on_its_evidence_is_its_reason() -> None:
    judge = SubstringJudge(fail_stage="check")
    result = Evaluator(judge=judge, metrics=["faithfulness"], extra_metrics=[claims_in_first_chunk]).evaluate(SAMPLE)
    assert result.scores["claims_in_first_chunk"].score is None
    assert result.scores["claims_in_first_chunk"].reason.startswith("evidence unavailable")


def test_bad_definitions_are_refused_when_made() -> None:
    with pytest.raises(ValueError, match="built-in"):
        CustomMetric(id="faithfulness", compute=lambda evidence, sample: 1.0)
    with pytest.raises(ValueError, match="non-empty"):
        CustomMetric(id=" ", compute=lambda evidence, sample: 1.0)
    with pytest.raises(TypeError):
        CustomMetric(id="x", compute="not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        metric(needs=["no_such_part"])(lambda evidence, sample: 1.0)
    with pytest.raises(ValueError, match="unique"):
        Evaluator(judge=SubstringJudge(), extra_metrics=[words, words])
    with pytest.raises(TypeError, match="@metric"):
        Evaluator(judge=SubstringJudge(), extra_metrics=[lambda evidence, sample: 1.0])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Evaluator(SubstringJudge(), None, None, None, None, [words])  # type: ignore[call-arg,misc]
