"""Several LLM judges on one sample: per-judge scores, mean or majority aggregate, spread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragmetrics_core.ensemble import EnsembleEvaluator
from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.metrics import METRICS
from tests.llm.conftest import FAKE_KEY, RecordingSleep
from tests.llm.fake_openai_server import FakeOpenAIServer, slow
from tests.llm.samples import ENGLISH


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(agreeable_models=frozenset({"agreeable"})) as running:
        yield running


def judge(server: FakeOpenAIServer, model: str, **overrides: object) -> OpenAIJudge:
    settings: dict[str, object] = {
        "model": model,
        "base_url": server.base_url,
        "api_key": FAKE_KEY,
        "embedding_model": "fake-embedding",
        **overrides,
    }
    return OpenAIJudge(OpenAIJudgeConfig.model_validate(settings), sleep=RecordingSleep())


async def test_mean_of_independent_judges_with_spread(server: FakeOpenAIServer) -> None:
    ensemble = EnsembleEvaluator([judge(server, "careful-a"), judge(server, "careful-b"), judge(server, "agreeable")])
    result = await ensemble.aevaluate(ENGLISH)

    assert result.per_judge is not None and result.spread is not None
    assert list(result.per_judge) == ["openai:careful-a", "openai:careful-b", "openai:agreeable"]
    assert result.per_judge["openai:careful-a"]["faithfulness"] == pytest.approx(2 / 3)
    assert result.per_judge["openai:agreeable"]["faithfulness"] == 1.0
    assert result.score("faithfulness") == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert result.spread["faithfulness"] == pytest.approx(1 / 3)
    assert result.spread["overall_recall"] == 0.0
    assert set(result.scores) == set(METRICS)
    assert result.scores["faithfulness"].reason == "mean of 3 of 3 judges"
    assert len(server.calls("extract")) == 3  # each judge extracts its own claims
    assert result.usage.calls == 9 and result.usage.embedding_calls == 3
    assert result.judge.startswith("ensemble[mean](")


async def test_majority_votes_cell_by_cell_on_shared_claims(server: FakeOpenAIServer) -> None:
    ensemble = EnsembleEvaluator(
        [judge(server, "careful-a"), judge(server, "agreeable"), judge(server, "careful-b")], aggregate="majority"
    )
    result = await ensemble.aevaluate(ENGLISH)

    assert len(server.calls("extract")) == 1  # claims are extracted once and shared
    asked = {tuple(c["id"] for c in r.payload["claims"]) for r in server.calls("check_chunks")}
    assert len(asked) == 1 and len(server.calls("check_chunks")) == 3
    vs_contexts = result.evidence.response_vs_contexts or []
    assert [c.verdict for c in vs_contexts] == [Verdict.ENTAILED, Verdict.ENTAILED, Verdict.NEUTRAL]
    assert [c.confidence for c in vs_contexts] == [1.0, 1.0, pytest.approx(2 / 3)]
    assert result.score("faithfulness") == pytest.approx(2 / 3)
    assert result.per_judge is not None and result.spread is not None
    assert result.per_judge["openai:agreeable"]["faithfulness"] == 1.0
    assert result.spread["faithfulness"] == pytest.approx(1 / 3)
    assert result.explanations  # read off the consensus evidence
    assert result.usage.calls == 3 + 2 * 2  # lead: extract + 2 checks; others: 2 checks each


async def test_majority_tie_goes_to_neutral(server: FakeOpenAIServer) -> None:
    ensemble = EnsembleEvaluator([judge(server, "careful-a"), judge(server, "agreeable")], aggregate="majority")
    result = await ensemble.aevaluate(ENGLISH)
    third = (result.evidence.response_vs_contexts or [])[2]
    assert third.verdict is Verdict.NEUTRAL and third.confidence == 0.5


async def test_a_failing_member_is_reported_and_left_out(server: FakeOpenAIServer) -> None:
    dead = judge(server, "careful-b", base_url="http://127.0.0.1:9/v1", retry=RetryPolicy(max_attempts=1))
    for aggregate in ("mean", "majority"):
        ensemble = EnsembleEvaluator([judge(server, "careful-a"), dead], aggregate=aggregate)  # type: ignore[arg-type]
        result = await ensemble.aevaluate(ENGLISH)
        assert result.score("faithfulness") == pytest.approx(2 / 3), aggregate
        errors = result.metadata["member_errors"]["openai:careful-b"]
        assert "connection failed" in errors["faithfulness"]
        assert result.per_judge is not None and result.per_judge["openai:careful-b"]["faithfulness"] is None
        assert result.spread is not None and result.spread["faithfulness"] == 0.0


async def test_members_run_concurrently_and_names_stay_unique(server: FakeOpenAIServer) -> None:
    server.inject("extract", slow(0.3), slow(0.3))
    ensemble = EnsembleEvaluator([judge(server, "careful-a"), judge(server, "careful-a")])
    result = await ensemble.aevaluate(ENGLISH)
    assert server.max_in_flight >= 2
    assert result.per_judge is not None and list(result.per_judge) == ["openai:careful-a", "openai:careful-a#2"]


def test_sync_entry_point_and_bad_arguments(server: FakeOpenAIServer) -> None:
    ensemble = EnsembleEvaluator([judge(server, "careful-a")], metrics=["faithfulness"], aggregate="majority")
    [result] = ensemble.evaluate_many([ENGLISH])
    assert set(result.scores) == {"faithfulness"}
    with pytest.raises(ValueError, match="at least one judge"):
        EnsembleEvaluator([])
    with pytest.raises(ValueError, match="'mean' or 'majority'"):
        EnsembleEvaluator([judge(server, "x")], aggregate="median")  # type: ignore[arg-type]
