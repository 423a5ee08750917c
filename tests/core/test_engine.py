"""The evaluator: lazy evidence, one call per stage, undetermined with reasons, judge failures contained."""

from __future__ import annotations

import asyncio

import pytest

from ragmetrics_core.aggregate import aggregate
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import Evidence, EvidencePart
from ragmetrics_core.metrics import ALL_METRICS, METRICS, ContextPrecisionStrategy, MetricOptions
from ragmetrics_core.results import Direction
from ragmetrics_core.sample import RagSample
from tests.core.conftest import SubstringJudge

P = EvidencePart

LIC = RagSample(
    user_input="What is LIC known for?",
    response="LIC is the largest insurer. LIC contributes to stability. LIC sells cars.",
    reference="LIC is the largest insurer. LIC was founded in 1956.",
    retrieved_contexts=[
        "LIC was founded in 1956.",
        "LIC is the largest insurer.",
        "LIC contributes to stability.",
        "The economy grows fast.",
    ],
)


def test_all_fifteen_metrics_with_three_judge_calls(judge: SubstringJudge) -> None:
    result = Evaluator(judge=judge).evaluate(LIC)
    assert set(result.scores) == set(ALL_METRICS) and len(ALL_METRICS) == 15
    assert [stage for stage, _ in judge.calls] == ["extract", "check", "similarity"]
    assert result.usage.calls == 2 and result.usage.embedding_calls == 1
    assert result.usage.prompt_tokens == 30
    s = result.values()
    # R = {largest ✓ref ✓c1, stability ✗ref ✓c2, cars ✗ref ✗}; G = {largest ✓c1 ✓resp, 1956 ✓c0 ✗resp}
    assert s["overall_precision"] == pytest.approx(1 / 3)
    assert s["overall_recall"] == 0.5
    assert s["claim_recall"] == 1.0
    assert s["chunk_precision"] == 0.5  # c0 and c1 are relevant
    assert s["context_utilization"] == 0.5
    assert s["noise_sensitivity_relevant"] == 0.0
    assert s["noise_sensitivity_irrelevant"] == pytest.approx(1 / 3)  # stability comes from c2, irrelevant
    assert s["hallucination"] == pytest.approx(1 / 3)
    assert s["self_knowledge"] == 0.0
    assert s["faithfulness"] == pytest.approx(2 / 3)
    assert s["context_precision"] == 1.0  # relevant chunks are ranked first
    assert s["context_recall"] == 1.0


def test_only_the_evidence_the_metrics_need_is_requested(judge: SubstringJudge) -> None:
    Evaluator(judge=judge, metrics=["faithfulness"]).evaluate(LIC)
    assert judge.calls == [
        ("extract", frozenset({P.RESPONSE_CLAIMS})),
        ("check", frozenset({P.RESPONSE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS})),
    ]
    judge.calls.clear()
    Evaluator(judge=judge, metrics=["faithfulness"], options=MetricOptions(use_joint_context=False)).evaluate(LIC)
    assert judge.calls[1] == ("check", frozenset({P.RESPONSE_VS_CHUNKS}))


def test_missing_inputs_are_undetermined_with_a_reason_and_cost_nothing(judge: SubstringJudge) -> None:
    sample = RagSample(user_input="q", response="", retrieved_contexts=[])
    result = Evaluator(judge=judge).evaluate(sample)
    assert judge.calls == []
    for score in result.scores.values():
        assert score.score is None and score.label is None
        assert score.reason.startswith("missing input:")
    assert "response" in result.scores["faithfulness"].reason
    assert "retrieved_contexts" in result.scores["faithfulness"].reason


def test_no_reference_leaves_reference_metrics_undetermined_but_scores_the_rest(judge: SubstringJudge) -> None:
    sample = LIC.model_copy(update={"reference": None})
    result = Evaluator(judge=judge).evaluate(sample)
    assert result.score("overall_precision") is None
    assert "reference" in result.scores["overall_precision"].reason
    assert result.score("faithfulness") == pytest.approx(2 / 3)
    # auto strategy falls back to the response: c1, c2 useful → AP = (1/2 + 2/3) / 2
    assert result.score("context_precision") == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_context_precision_strategies(judge: SubstringJudge) -> None:
    by_reference = Evaluator(
        judge=judge, metrics=["context_precision"],
        options=MetricOptions(context_precision_strategy=ContextPrecisionStrategy.REFERENCE),
    ).evaluate(LIC)
    by_response = Evaluator(
        judge=judge, metrics=["context_precision"],
        options=MetricOptions(context_precision_strategy=ContextPrecisionStrategy.RESPONSE),
    ).evaluate(LIC)
    assert by_reference.score("context_precision") == 1.0
    assert by_response.score("context_precision") == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_empty_claim_lists_are_undetermined(judge: SubstringJudge) -> None:
    sample = LIC.model_copy(update={"response": "..."})
    result = Evaluator(judge=judge, metrics=["faithfulness", "overall_precision"]).evaluate(sample)
    assert result.score("faithfulness") is None
    assert result.scores["faithfulness"].reason == "no claims were extracted from the response"


def test_judge_error_is_recorded_per_metric(judge: SubstringJudge) -> None:
    judge.fail_stage = "extract"
    result = Evaluator(judge=judge).evaluate(LIC)
    assert all(score.score is None for score in result.scores.values())
    assert "503" in result.scores["faithfulness"].reason
    assert "extraction failed" in result.scores["faithfulness"].reason
    assert result.evidence.errors


def test_judge_crash_in_check_keeps_extraction(judge: SubstringJudge) -> None:
    judge.fail_stage = "check"
    result = Evaluator(judge=judge, metrics=["faithfulness", "response_relevancy"]).evaluate(LIC)
    assert result.score("faithfulness") is None
    assert "RuntimeError: judge bug" in result.scores["faithfulness"].reason
    assert result.score("response_relevancy") is not None  # needs no check
    assert result.evidence.response_claims is not None


def test_misaligned_judge_answer_is_never_read(judge: SubstringJudge) -> None:
    judge.short_matrix = True
    result = Evaluator(judge=judge, metrics=["faithfulness", "overall_precision"]).evaluate(LIC)
    assert result.score("faithfulness") is None
    assert "misaligned" in result.scores["faithfulness"].reason
    assert result.score("overall_precision") == pytest.approx(1 / 3)


def test_precomputed_evidence_is_completed_not_replaced(judge: SubstringJudge) -> None:
    from ragmetrics_core.evidence import Claim

    given = Evidence(response_claims=[Claim(text="LIC sells cars")])
    result = Evaluator(judge=judge, metrics=["faithfulness"]).evaluate(LIC, given)
    assert [c.text for c in result.evidence.response_claims or []] == ["LIC sells cars"]
    assert result.score("faithfulness") == 0.0
    assert judge.calls[0][0] == "check"  # no extraction: claims were supplied
    assert given.response_vs_chunks is None and given.errors == {}


def test_precomputed_evidence_that_does_not_fit_is_rejected(judge: SubstringJudge) -> None:
    from ragmetrics_core.evidence import Check, Claim, Verdict

    bad = Evidence(response_claims=[Claim(text="x")], response_vs_chunks=[[Check(verdict=Verdict.ENTAILED)]])
    with pytest.raises(ValueError, match="expected one per chunk"):
        Evaluator(judge=judge).evaluate(LIC, bad)


def test_labels_follow_direction_and_thresholds(judge: SubstringJudge) -> None:
    result = Evaluator(judge=judge, options=MetricOptions(thresholds={"faithfulness": 0.9})).evaluate(LIC)
    assert result.scores["faithfulness"].label == "fail" and result.scores["faithfulness"].threshold == 0.9
    assert result.scores["hallucination"].direction is Direction.LOWER_IS_BETTER
    assert result.scores["hallucination"].label == "fail"  # 1/3 > 0.3
    assert result.scores["noise_sensitivity_relevant"].label == "pass"
    assert {spec.direction for spec in METRICS.values()} == set(Direction)


def test_noncommittal_response_scores_zero_relevancy(judge: SubstringJudge) -> None:
    sample = RagSample(user_input="What is the capital of France?", response="I don't know the capital of France.")
    assert Evaluator(judge=judge, metrics=["response_relevancy"]).evaluate(sample).score("response_relevancy") == 0.0


def test_bad_arguments_fail_fast(judge: SubstringJudge) -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        Evaluator(judge=judge, metrics=["faithfulnes"])
    with pytest.raises(ValueError, match="at least one"):
        Evaluator(judge=judge, metrics=[])
    with pytest.raises(TypeError, match="Judge protocol"):
        Evaluator(judge=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="RagSample"):
        Evaluator(judge=judge).evaluate({"response": "x"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="concurrency"):
        Evaluator(judge=judge).evaluate_many([LIC], concurrency=0)


def test_evaluate_works_inside_a_running_loop(judge: SubstringJudge) -> None:
    async def inside() -> float | None:
        return Evaluator(judge=judge, metrics=["faithfulness"]).evaluate(LIC).score("faithfulness")

    assert asyncio.run(inside()) == pytest.approx(2 / 3)


def test_evaluate_many_keeps_order_and_bounds_concurrency() -> None:
    active = 0
    peak = 0

    class SlowJudge(SubstringJudge):
        async def check(self, request):  # type: ignore[no-untyped-def]
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.01)
            active -= 1
            return await super().check(request)

    samples = [LIC.model_copy(update={"id": str(i)}) for i in range(12)]
    seen: list[int] = []
    results = Evaluator(judge=SlowJudge(), metrics=["faithfulness"]).evaluate_many(
        samples, concurrency=3, progress=False, on_result=lambda i, _r: seen.append(i)
    )
    assert [r.sample_id for r in results] == [str(i) for i in range(12)]
    assert peak == 3 and sorted(seen) == list(range(12))


def test_aggregate_modes(judge: SubstringJudge) -> None:
    evaluator = Evaluator(judge=judge, metrics=["faithfulness", "overall_precision"])
    results = evaluator.evaluate_many([LIC, LIC.model_copy(update={"reference": None})], progress=False)
    determined = aggregate(results)
    assert determined.metrics["overall_precision"].mean == pytest.approx(1 / 3)
    assert determined.metrics["overall_precision"].count == 1
    assert determined.metrics["overall_precision"].undetermined == 1
    ragchecker = aggregate(results, "ragchecker")
    assert ragchecker.metrics["overall_precision"].mean == pytest.approx(1 / 6)
    assert ragchecker.usage.calls == 4 and determined.samples == 2


def test_explanations_say_which_chunk_supports_which_claim(judge: SubstringJudge) -> None:
    result = Evaluator(judge=judge).evaluate(LIC)
    response = [e for e in result.explanations if e.source == "response"]
    assert [e.category for e in response] == ["correct_grounded", "noise_irrelevant", "hallucination"]
    assert response[0].supporting_chunks == [1]
    assert response[1].supporting_chunks == [2]
    reference = [e for e in result.explanations if e.source == "reference"]
    assert reference[1].supporting_chunks == [0]


@pytest.mark.parametrize("fail_stage", [None, "extract", "check"])
@pytest.mark.parametrize(
    "update",
    [{}, {"reference": None}, {"response": " "}, {"user_input": ""}, {"retrieved_contexts": [" ", ""]},
     {"response": "...", "reference": "?"}],
)
def test_engine_reads_each_metric_as_its_spec_computes_it(
    judge: SubstringJudge, fail_stage: str | None, update: dict[str, object]
) -> None:
    # The engine tests input requirements and evidence gaps once per sample; a metric's own compute() must agree.
    judge.fail_stage = fail_stage
    sample = RagSample.model_validate({**LIC.model_dump(), **update})
    options = MetricOptions(context_precision_strategy=ContextPrecisionStrategy.RESPONSE) if update else MetricOptions()
    evaluator = Evaluator(judge=judge, options=options)
    result = evaluator.evaluate(sample)
    for metric, score in result.scores.items():
        value = METRICS[metric].compute(result.evidence, sample, options)
        assert (score.score, score.reason) == (value.score, value.reason), metric
    assert evaluator.score(sample, result.evidence).scores == result.scores
