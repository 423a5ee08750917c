"""The LLM judge over real HTTP: call budget, verdict matrices, languages, structured-output fallback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import CHECK_PARTS, EXTRACTION_PARTS, EvidencePart, Verdict
from ragmetrics_core.judges.base import CheckRequest, ExtractionRequest, Judge
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.sample import RagSample
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import FakeOpenAIServer, fenced_with_prose, refuses_json_schema
from tests.llm.samples import CHINESE, ENGLISH, RUSSIAN, synthetic_sample


async def test_judge_satisfies_the_protocol(make_judge: JudgeFactory) -> None:
    judge = make_judge()
    assert isinstance(judge, Judge)
    assert judge.name == "openai:fake-judge-1"


@pytest.mark.parametrize("k", [2, 4, 8])
async def test_all_fifteen_metrics_cost_three_chat_calls_and_one_embeddings_call(
    make_judge: JudgeFactory, server: FakeOpenAIServer, k: int
) -> None:
    sample = synthetic_sample(k)
    result = await Evaluator(judge=make_judge()).aevaluate(sample)

    assert set(result.scores) == set(METRICS)
    undetermined = {m: s.reason for m, s in result.scores.items() if s.score is None}
    assert undetermined == {}
    chat = server.calls(succeeded_only=True)
    assert sorted(r.task for r in chat) == ["check_chunks", "check_texts", "embeddings", "extract"]
    assert result.usage.calls == 3
    assert result.usage.embedding_calls == 1
    assert result.usage.prompt_tokens == sum(r.prompt_tokens for r in chat)
    assert result.usage.completion_tokens == sum(r.completion_tokens for r in chat)


async def test_verdicts_follow_the_models_answer(make_judge: JudgeFactory) -> None:
    result = await Evaluator(judge=make_judge()).aevaluate(ENGLISH)
    evidence = result.evidence
    assert [c.text for c in evidence.response_claims or []] == [
        "Shakespeare wrote Hamlet",
        "Hamlet was written around 1600",
        "Hamlet is set in Denmark",
    ]
    assert [c.verdict for c in evidence.response_vs_reference or []] == [
        Verdict.ENTAILED,
        Verdict.ENTAILED,
        Verdict.NEUTRAL,
    ]
    matrix = [[c.verdict for c in row] for row in evidence.response_vs_chunks or []]
    assert matrix == [
        [Verdict.ENTAILED, Verdict.NEUTRAL, Verdict.NEUTRAL],
        [Verdict.NEUTRAL, Verdict.ENTAILED, Verdict.NEUTRAL],
        [Verdict.NEUTRAL, Verdict.NEUTRAL, Verdict.NEUTRAL],
    ]
    supporting = (evidence.response_vs_chunks or [])[0][0]
    assert supporting.rationale == "supported by C1"
    assert result.score("overall_precision") == pytest.approx(2 / 3)
    assert result.score("faithfulness") == pytest.approx(2 / 3)
    assert result.score("response_relevancy") is not None


async def test_per_chunk_mode_costs_k_plus_two_calls(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    sample = synthetic_sample(4)
    joint = await Evaluator(judge=make_judge()).aevaluate(sample)
    server.reset()
    per_chunk = await Evaluator(judge=make_judge(check_mode="per_chunk")).aevaluate(sample)

    assert per_chunk.usage.calls == 4 + 2
    assert len(server.calls("check_chunks")) == 4
    assert all(len(r.payload["chunks"]) == 1 for r in server.calls("check_chunks"))
    # Per chunk, the verdicts are the same as in one joint call for this sample.
    assert per_chunk.evidence.response_vs_chunks == joint.evidence.response_vs_chunks
    assert per_chunk.values() == pytest.approx(joint.values())


@pytest.mark.parametrize("sample", [RUSSIAN, CHINESE], ids=["russian", "chinese"])
async def test_russian_and_chinese_samples_keep_their_language(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sample: RagSample
) -> None:
    result = await Evaluator(judge=make_judge()).aevaluate(sample)

    extraction = server.calls("extract")[0]
    assert extraction.payload["response"] == sample.response  # sent as UTF-8 text, not \\u escapes
    assert sample.response.split("。")[0].split(".")[0] in extraction.user_text
    assert "language of the text it comes from" in extraction.system_text
    claims = [c.text for c in result.evidence.response_claims or []]
    assert claims and all(claim in sample.response for claim in claims)
    assert result.score("faithfulness") == 1.0
    assert result.score("overall_recall") == 1.0


async def test_nothing_to_judge_makes_no_call(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    judge = make_judge()
    extraction = await judge.extract(
        ExtractionRequest(user_input="q", response="  ", reference=None, want=EXTRACTION_PARTS)
    )
    checked = await judge.check(CheckRequest(response="", reference=None, contexts=[], want=CHECK_PARTS))
    similar = await judge.similarity("q", [])
    assert extraction.response_claims == [] and extraction.generated_questions == []
    assert extraction.reference_claims == [] and extraction.reference_entities == []
    assert checked.response_vs_chunks == [] and checked.entities_in_contexts == []
    assert similar.similarities == []
    assert server.calls() == []


async def test_only_wanted_parts_are_asked_for_and_returned(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    judge = make_judge()
    extraction = await judge.extract(
        ExtractionRequest(
            user_input=ENGLISH.user_input,
            response=ENGLISH.response,
            reference=ENGLISH.reference,
            want=frozenset({EvidencePart.RESPONSE_CLAIMS}),
        )
    )
    assert server.calls("extract")[0].payload["tasks"] == ["response_claims"]
    assert extraction.reference_claims is None and extraction.generated_questions is None
    checked = await judge.check(
        CheckRequest(
            response=ENGLISH.response,
            reference=ENGLISH.reference,
            contexts=ENGLISH.context_texts,
            response_claims=extraction.response_claims or [],
            want=frozenset({EvidencePart.RESPONSE_VS_CONTEXTS}),
        )
    )
    assert [r.task for r in server.calls()] == ["extract", "check_chunks"]
    assert checked.response_vs_contexts is not None and checked.response_vs_chunks is None
    assert len(checked.response_vs_contexts) == 3


async def test_structured_output_steps_down_when_the_endpoint_refuses_json_schema(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", refuses_json_schema())
    judge = make_judge()
    result = await Evaluator(judge=judge).aevaluate(ENGLISH)

    formats = [(r.task, (r.body.get("response_format") or {}).get("type")) for r in server.calls()]
    assert formats[0] == ("extract", "json_schema")
    assert formats[1] == ("extract", "json_object")
    # The endpoint is remembered: the checking calls go straight to JSON mode.
    assert {f for t, f in formats[2:] if t != "embeddings"} == {"json_object"}
    assert result.usage.calls == 4  # the refused request counts as a call
    assert all(score.score is not None for score in result.scores.values())


async def test_json_schema_sent_is_strict_and_closed(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    await Evaluator(judge=make_judge()).aevaluate(ENGLISH)
    request = server.calls("check_chunks")[0].body
    json_schema = request["response_format"]["json_schema"]
    assert json_schema["strict"] is True
    schema = json_schema["schema"]
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"claims", "entities"}
    assert request["temperature"] == 0.0
    assert request["max_tokens"] == 4096


async def test_prose_and_code_fences_around_json_are_read_without_a_retry(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("check_texts", fenced_with_prose())
    server.inject("extract", fenced_with_prose())
    result = await Evaluator(judge=make_judge(structured_output="off")).aevaluate(ENGLISH)
    assert "response_format" not in server.calls("extract")[0].body
    assert result.usage.calls == 3
    assert result.score("overall_precision") == pytest.approx(2 / 3)


async def test_questions_and_noncommittal_flag(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    sample = RagSample(user_input="What is the capital of Peru?", response="I don't know, sorry.", reference="Lima.")
    result = await Evaluator(judge=make_judge(), metrics=["response_relevancy"]).aevaluate(sample)
    questions = result.evidence.generated_questions or []
    assert len(questions) == 3 and all(q.noncommittal for q in questions)
    assert result.score("response_relevancy") == 0.0
    embedded = server.calls("embeddings")[0].body["input"]
    assert embedded[0] == sample.user_input and len(embedded) == 4  # one request for all texts


async def test_similarity_falls_back_to_a_lexical_judge_without_an_embeddings_model(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    class Lexical:
        name = "lexical"

        def __init__(self) -> None:
            self.asked: list[tuple[str, list[str]]] = []

        async def extract(self, request: ExtractionRequest) -> object:
            raise AssertionError("only similarity is delegated")

        async def check(self, request: CheckRequest) -> object:
            raise AssertionError("only similarity is delegated")

        async def similarity(self, question: str, candidates: list[str]) -> object:
            from ragmetrics_core.judges.base import SimilarityResult

            self.asked.append((question, candidates))
            return SimilarityResult(similarities=[0.5 for _ in candidates])

    fallback = Lexical()
    judge = make_judge(embedding_model=None, similarity_fallback=fallback)
    result = await judge.similarity("q", ["a", "b"])
    assert result.similarities == [0.5, 0.5]
    assert fallback.asked == [("q", ["a", "b"])]
    assert server.calls("embeddings") == []


async def test_usage_and_price_table(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    prices = {"models": {"fake-judge-1": {"prompt_per_million": 1.0, "completion_per_million": 2.0}}}
    judge = make_judge(prices=prices)
    first = await Evaluator(judge=judge).aevaluate(ENGLISH)
    second = await Evaluator(judge=judge).aevaluate(RUSSIAN)
    chat = [r for r in server.calls() if r.task != "embeddings"]
    prompt = sum(r.prompt_tokens for r in chat)
    completion = sum(r.completion_tokens for r in chat)
    total = judge.usage
    assert total.calls == 6 and total.embedding_calls == 2
    assert total.completion_tokens == completion
    assert total.prompt_tokens == prompt + sum(r.prompt_tokens for r in server.calls("embeddings"))
    assert first.usage.cost_usd is not None and second.usage.cost_usd is not None
    assert first.usage.cost_usd + second.usage.cost_usd == pytest.approx((prompt * 1.0 + completion * 2.0) / 1e6)
    assert first.usage.latency_s > 0
    json.dumps(first.model_dump(mode="json"))  # results stay serialisable


async def test_reasoning_model_parameters_are_adapted_once_per_endpoint(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    from tests.llm.fake_openai_server import Fault

    server.inject(
        "extract",
        Fault(status=400, message="Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."),
        Fault(status=400, message="Unsupported value: 'temperature' does not support 0 with this model."),
    )
    result = await Evaluator(judge=make_judge()).aevaluate(ENGLISH)
    bodies = [r.body for r in server.calls() if r.task != "embeddings"]
    assert "max_tokens" in bodies[0] and "temperature" in bodies[0]
    assert "max_completion_tokens" in bodies[1] and "temperature" in bodies[1]
    for body in bodies[2:]:
        assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body and "temperature" not in body
    assert len(bodies) == 5 and result.usage.calls == 5
    assert all(score.score is not None for score in result.scores.values())


async def test_default_similarity_fallback_is_the_embedded_judge(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    embedded = pytest.importorskip(
        "ragmetrics_core.judges.embedded", reason="the embedded judge lands with its own branch"
    )
    judge = make_judge(embedding_model=None)
    candidates = ["Who wrote Hamlet?", "What is the boiling point of water?"]
    ours = await judge.similarity("Who wrote Hamlet?", candidates)
    theirs = await embedded.EmbeddedJudge().similarity("Who wrote Hamlet?", candidates)
    assert ours.similarities == theirs.similarities
    assert ours.similarities[0] > ours.similarities[1]
    assert server.calls() == []


def test_config_must_be_a_config() -> None:
    from ragmetrics_core.judges.openai import OpenAIJudge

    with pytest.raises(TypeError, match="OpenAIJudgeConfig"):
        OpenAIJudge({"model": "m"})  # type: ignore[arg-type]


def test_one_judge_serves_several_threads_each_with_its_own_loop(server: FakeOpenAIServer) -> None:
    """The online evaluator's workers run their own event loops; the judge keeps a client per loop."""
    import threading

    from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig

    judge = OpenAIJudge(OpenAIJudgeConfig(model="m", base_url=server.base_url, embedding_model="e"))
    results: list[object] = []

    def work() -> None:
        results.append(Evaluator(judge=judge).evaluate(ENGLISH))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 3
    assert all(r.score("faithfulness") == pytest.approx(2 / 3) for r in results)  # type: ignore[attr-defined]
    assert judge.usage.calls == 9 and judge.usage.embedding_calls == 3


def test_connections_are_pooled_within_a_check_and_closed_on_their_loop(server: FakeOpenAIServer) -> None:
    import asyncio
    import gc
    import warnings

    from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig

    config = OpenAIJudgeConfig(
        model="m", base_url=server.base_url, embedding_model="e", check_mode="per_chunk", concurrency=1
    )
    judge = OpenAIJudge(config)
    gc.collect()  # what earlier tests left is theirs: only this test's loops are measured
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(2):  # two loops, as two sync evaluate() calls would use
            asyncio.run(Evaluator(judge=judge).aevaluate(synthetic_sample(4)))
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
    chunk_ports = [r.client_port for r in server.calls("check_chunks")]
    assert len(chunk_ports) == 8 and len(set(chunk_ports)) == 2  # one pooled connection per check


def test_one_client_per_endpoint_and_loop_for_the_loops_life(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building an AsyncOpenAI costs an SSL context (~18 ms of CPU): once per endpoint and loop, not per call."""
    import asyncio

    from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
    from ragmetrics_core.judges.openai.client import OpenAIEndpoint

    built: list[object] = []
    original = OpenAIEndpoint._new_client

    def counting(self: OpenAIEndpoint) -> Any:
        client = original(self)
        built.append(client)
        return client

    monkeypatch.setattr(OpenAIEndpoint, "_new_client", counting)
    judge = OpenAIJudge(OpenAIJudgeConfig(model="m", base_url=server.base_url, embedding_model="e"))

    async def many() -> None:
        await Evaluator(judge=judge).aevaluate_many([synthetic_sample(2) for _ in range(20)], concurrency=4)

    asyncio.run(many())
    assert len(built) == 1  # embeddings come from the chat endpoint: one client for 20 samples × 4 requests
    assert all(client.is_closed() for client in built)  # closed when asyncio.run shut its loop down

    async def explicit() -> None:
        await Evaluator(judge=judge).aevaluate(synthetic_sample(2))
        await judge.aclose()

    asyncio.run(explicit())
    assert len(built) == 2 and all(client.is_closed() for client in built)

    # Embeddings from an endpoint of their own: a client each.
    elsewhere = OpenAIJudge(OpenAIJudgeConfig(
        model="m", base_url=server.base_url, embedding_model="e", embedding_base_url=server.base_url + "/"
    ))
    asyncio.run(Evaluator(judge=elsewhere).aevaluate(synthetic_sample(2)))
    assert len(built) == 4 and all(client.is_closed() for client in built)
