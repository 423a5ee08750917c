"""The judge as the engine sees it: protocol, shapes, determinism and bad input."""

from __future__ import annotations

import time

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import CHECK_PARTS, EXTRACTION_PARTS, Claim, EvidencePart, Verdict
from ragmetrics_core.judges.base import CheckRequest, ExtractionRequest, Judge
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.judges.embedded.judge import MAX_CONTEXTS
from ragmetrics_core.metrics import MetricOptions, Scoring
from ragmetrics_core.sample import RagSample

SAMPLE = RagSample(
    user_input="When was the Eiffel Tower built and how tall is it?",
    response="The Eiffel Tower was completed in 1889. It is 330 metres tall, and it was designed by Gustave Eiffel.",
    reference="The Eiffel Tower was completed in 1889. It is 330 metres tall.",
    retrieved_contexts=[
        "The Eiffel Tower is a wrought-iron tower in Paris. It was completed in 1889 for the World's Fair.",
        "The tower is 330 metres tall, about the height of an 81-storey building.",
        "Paris has mild weather in spring.",
    ],
)


def test_is_a_judge(judge: EmbeddedJudge) -> None:
    assert isinstance(judge, Judge)
    assert judge.name == "embedded"


async def test_fills_every_requested_part_with_matching_shapes(judge: EmbeddedJudge) -> None:
    extraction = await judge.extract(
        ExtractionRequest(user_input=SAMPLE.user_input, response=SAMPLE.response, reference=SAMPLE.reference,
                          want=EXTRACTION_PARTS, n_questions=4)
    )
    assert extraction.response_claims and extraction.reference_claims and extraction.reference_entities
    assert extraction.generated_questions is not None and len(extraction.generated_questions) == 4
    checked = await judge.check(
        CheckRequest(response=SAMPLE.response, reference=SAMPLE.reference, contexts=SAMPLE.context_texts,
                     response_claims=extraction.response_claims, reference_claims=extraction.reference_claims,
                     reference_entities=extraction.reference_entities, want=CHECK_PARTS)
    )
    n_r, n_g, n_k = len(extraction.response_claims), len(extraction.reference_claims), len(SAMPLE.context_texts)
    assert checked.response_vs_reference is not None and len(checked.response_vs_reference) == n_r
    assert checked.reference_vs_response is not None and len(checked.reference_vs_response) == n_g
    assert checked.response_vs_chunks is not None and [len(row) for row in checked.response_vs_chunks] == [n_k] * n_r
    assert checked.reference_vs_chunks is not None and [len(row) for row in checked.reference_vs_chunks] == [n_k] * n_g
    assert checked.response_vs_contexts is not None and len(checked.response_vs_contexts) == n_r
    assert checked.reference_vs_contexts is not None and len(checked.reference_vs_contexts) == n_g
    assert checked.entities_in_contexts is not None and len(checked.entities_in_contexts) == len(
        extraction.reference_entities
    )
    assert all(check.rationale for row in checked.response_vs_chunks for check in row)


async def test_fills_only_what_is_asked(judge: EmbeddedJudge) -> None:
    extraction = await judge.extract(
        ExtractionRequest(user_input="q", response="The sky is blue.", reference=None,
                          want=frozenset({EvidencePart.RESPONSE_CLAIMS}))
    )
    assert extraction.response_claims is not None
    assert extraction.reference_claims is None and extraction.generated_questions is None


def test_evaluator_scores_the_sample_sensibly(evaluator: Evaluator) -> None:
    scores = evaluator.evaluate(SAMPLE).values()
    faithfulness, hallucination, self_knowledge = (
        scores["faithfulness"], scores["hallucination"], scores["self_knowledge"]
    )
    assert faithfulness is not None and hallucination is not None and self_knowledge is not None
    assert 0.5 <= faithfulness < 1.0  # "designed by Gustave Eiffel" is in no chunk
    assert scores["context_recall"] is not None and 0.9 < scores["context_recall"] < 1.0
    assert scores["context_entity_recall"] == 1.0
    assert scores["overall_recall"] == 1.0
    assert faithfulness + hallucination + self_knowledge == pytest.approx(1.0)


def test_a_claim_two_chunks_support_together_is_entailed_with_less_than_full_support(evaluator: Evaluator) -> None:
    result = evaluator.evaluate(SAMPLE)
    evidence = result.evidence
    assert evidence is not None and evidence.reference_claims is not None
    assert evidence.reference_vs_contexts is not None
    # "The Eiffel Tower is 330 metres tall": chunk 2 has the height of "the tower", chunk 1 names it.
    jointly = evidence.reference_vs_contexts[1]
    assert jointly.verdict is Verdict.ENTAILED and jointly.rationale and "chunk 1" in jointly.rationale
    assert jointly.support is not None and 0.5 <= jointly.support < 1.0
    # The binary score counts it fully; the graded one by its support (the other claim is stated verbatim).
    assert evidence.reference_vs_contexts[0].support == 1.0
    binary = Evaluator(metrics=["context_recall"], options=MetricOptions(scoring=Scoring.BINARY)).evaluate(SAMPLE)
    assert binary.values()["context_recall"] == 1.0
    assert result.values()["context_recall"] == pytest.approx((1.0 + jointly.support) / 2)
    assert [e.grounding for e in result.explanations if e.source == "reference"] == [1.0, jointly.support]


def test_deterministic_whatever_the_order(judge: EmbeddedJudge) -> None:
    other = RagSample(user_input="Где башня?", response="Башня стоит в Париже.", retrieved_contexts=["Башня в Париже."])
    first = Evaluator(judge=judge).evaluate(SAMPLE).model_dump(exclude={"usage"})
    Evaluator(judge=EmbeddedJudge()).evaluate(other)
    second = Evaluator(judge=EmbeddedJudge()).evaluate(SAMPLE).model_dump(exclude={"usage"})
    assert first == second


def test_empty_inputs_give_empty_claims_and_undetermined_metrics(evaluator: Evaluator) -> None:
    result = evaluator.evaluate(RagSample(user_input="", response="", reference="", retrieved_contexts=[]))
    assert result.error is None
    assert all(score is None for score in result.values().values())
    assert result.evidence.response_claims in (None, [])


async def test_wrong_request_types_raise_type_error(judge: EmbeddedJudge) -> None:
    with pytest.raises(TypeError, match="ExtractionRequest"):
        await judge.extract(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="CheckRequest"):
        await judge.check("contexts")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="similarity"):
        await judge.similarity(None, ["q"])  # type: ignore[arg-type]
    result = await judge.similarity("Where is Paris?", ["Where is Paris?", 42])  # type: ignore[list-item]
    assert result.similarities[0] == pytest.approx(1.0)
    assert result.similarities[1] == 0.0


def test_one_megabyte_texts_finish_quickly(evaluator: Evaluator) -> None:
    sentence = "The committee reviewed 42 proposals about river transport in Lisbon during 1998. "
    huge = (sentence * (1_000_000 // len(sentence) + 1))[:1_000_000]
    no_spaces = "x" * 1_000_000
    started = time.perf_counter()
    result = evaluator.evaluate(
        RagSample(user_input=huge, response=huge, reference=no_spaces, retrieved_contexts=[huge, no_spaces])
    )
    assert time.perf_counter() - started < 60
    assert result.error is None
    assert result.values()["faithfulness"] == 1.0


def test_two_hundred_contexts(evaluator: Evaluator) -> None:
    contexts = [f"Fact number {index}: the archive in Porto stores {index} maps." for index in range(200)]
    contexts[150] = "The Eiffel Tower was completed in 1889."
    sample = RagSample(user_input="When?", response="The Eiffel Tower was completed in 1889.",
                       reference="The Eiffel Tower was completed in 1889.", retrieved_contexts=contexts)
    result = evaluator.evaluate(sample)
    rows = result.evidence.response_vs_chunks
    assert rows is not None and len(rows[0]) == 200
    assert [index for index, check in enumerate(rows[0]) if check.verdict is Verdict.ENTAILED] == [150]
    assert result.values()["context_precision"] == pytest.approx(1 / 151)


async def test_contexts_beyond_the_cap_are_neutral_with_a_reason(judge: EmbeddedJudge) -> None:
    contexts = ["The tower is in Paris."] * (MAX_CONTEXTS + 2)
    checked = await judge.check(
        CheckRequest(response="", reference=None, contexts=contexts,
                     response_claims=[Claim(text="The tower is in Paris")],
                     want=frozenset({EvidencePart.RESPONSE_VS_CHUNKS}))
    )
    assert checked.response_vs_chunks is not None
    row = checked.response_vs_chunks[0]
    assert len(row) == MAX_CONTEXTS + 2
    assert row[0].verdict is Verdict.ENTAILED
    assert row[-1].verdict is Verdict.NEUTRAL and "more than" in (row[-1].rationale or "")


@pytest.mark.parametrize(
    "text",
    [
        "Paris\udcff is \ud800 the capital.",  # unpaired surrogates (RagSample repairs them)
        "Pa\u0301ris is the ca\u200bpital\u202e of France \U0001f1eb\U0001f1f7.",
        "\x00\x01\x02 control characters \x7f",
        "ﬁnancial ＦＵＬＬＷＩＤＴＨ ① ½ ﷺ",
        "مرحبا بالعالم שלום עולם",
    ],
)
def test_odd_unicode_does_not_crash(evaluator: Evaluator, text: str) -> None:
    result = evaluator.evaluate(
        RagSample(user_input=text, response=text, reference=text, retrieved_contexts=[text, "Paris is the capital."])
    )
    assert result.error is None
    assert not result.evidence.errors
