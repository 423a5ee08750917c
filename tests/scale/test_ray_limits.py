"""One rate limit and one budget for every Ray worker against one provider: a fake OpenAI-compatible server on
127.0.0.1 that answers 429 above its request rate, and the LLM judge on two workers."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
from ragmetrics_core.judges.pricing import ModelPrice, PriceTable
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import cli_command, good_row, read_jsonl, write_jsonl
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.scale.conftest import ray_env

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
LIMIT = 20.0  # requests per second, the fake provider's and ours
PRICE = (1000.0, 2000.0)  # USD per million prompt / completion tokens: a sample costs cents


@pytest.fixture
def limited_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency_s=0.05, requests_per_s=LIMIT) as server:
        yield server


def _rows(count: int) -> list[dict[str, object]]:
    return [{**good_row(index), "id": f"s{index}"} for index in range(count)]


def _judge_cli(tmp_path: Path, server: FakeOpenAIServer, address: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = ray_env()
    env["RAGMETRICS_EMBEDDING_MODEL"] = "fake-embedding"
    command = cli_command(
        "evaluate", "rows.jsonl", "--out", "out.jsonl", "--judge", "openai", "--model", "fake-judge",
        "--base-url", server.base_url, "--backend", "ray", "--workers", "2", "--address", address, *args,
    )
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_workers_share_one_rate_limit(ray_head: str, limited_server: FakeOpenAIServer, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", _rows(40))
    done = _judge_cli(tmp_path, limited_server, ray_head, "--concurrency", "8", "--batch-size", "10",
                      "--requests-per-second", str(LIMIT))
    assert done.returncode == 0, done.stderr
    written = read_jsonl(tmp_path / "out.jsonl")
    assert len(written) == 40 and all(not row["error"] and not row["evidence"]["errors"] for row in written)
    answered = sorted(call.received_at for call in limited_server.calls(succeeded_only=True))
    assert len(answered) == 160  # 3 chat calls and 1 embeddings call per sample, none lost
    rate = (len(answered) - 1) / (answered[-1] - answered[0])
    # 16 samples in flight at 50 ms a request could send 300 a second: the shared limit holds them near 20.
    assert 0.85 * LIMIT <= rate <= 1.05 * LIMIT, rate
    assert limited_server.rate_limited <= 2
    assert f"{len(limited_server.calls())} requests" in done.stderr


def _sample_cost(server: FakeOpenAIServer) -> float:
    config = OpenAIJudgeConfig(
        model="fake-judge", base_url=server.base_url, embedding_model="fake-embedding",
        prices=PriceTable(models={"fake-judge": ModelPrice(prompt_per_million=PRICE[0],
                                                          completion_per_million=PRICE[1])}),
    )
    usage = Evaluator(judge=OpenAIJudge(config)).evaluate(RagSample.model_validate(good_row(0))).usage
    assert usage.cost_usd
    return usage.cost_usd


def test_the_budget_stops_every_worker_and_a_rerun_scores_the_rest(
    ray_head: str, limited_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    per_sample = _sample_cost(limited_server)
    limited_server.reset()
    budget = 8 * per_sample
    write_jsonl(tmp_path / "rows.jsonl", _rows(30))
    price = f"{PRICE[0]},{PRICE[1]}"
    limit = ("--requests-per-second", str(LIMIT))
    first = _judge_cli(tmp_path, limited_server, ray_head, "--concurrency", "2", "--batch-size", "5",
                       "--price", price, "--budget-usd", f"{budget:.6f}", *limit)
    assert first.returncode == 1, first.stderr  # some samples left undetermined: partial
    written = read_jsonl(tmp_path / "out.jsonl")
    assert sorted(row["sample_id"] for row in written) == sorted(f"s{index}" for index in range(30))
    exhausted = [row for row in written if any("budget exhausted" in e for e in row["evidence"]["errors"].values())]
    assert 10 <= len(exhausted) <= 24
    for row in exhausted:
        for score in row["scores"].values():
            if "budget exhausted" in score["reason"]:
                assert score["score"] is None  # undetermined, never 0
    assert f"budget exhausted: {len(exhausted)} samples left undetermined" in first.stdout
    spent = sum(row["usage"]["cost_usd"] or 0.0 for row in written)
    in_flight = 2 * 2  # workers × samples in flight each: each may finish what it started
    # Spend can land exactly on the budget: compare sums of floats with a rounding allowance on both sides, not bit
    # for bit (budget 18.344 against a spend summing to 18.343999999999998 failed).
    rounding = 1e-9 * budget
    assert budget - rounding <= spent <= budget + in_flight * per_sample + rounding

    limited_server.reset()
    again = _judge_cli(tmp_path, limited_server, ray_head, "--concurrency", "2", "--price", price,
                       "--budget-usd", "1000", *limit)
    assert again.returncode == 0, again.stderr
    # Only the undetermined rows are scored again.
    assert len(limited_server.calls("extract", succeeded_only=True)) == len(exhausted)
    latest = {row["sample_id"]: row for row in read_jsonl(tmp_path / "out.jsonl")}
    assert len(latest) == 30 and all(not row["evidence"]["errors"] for row in latest.values())
