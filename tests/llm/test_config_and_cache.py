"""Configuration from arguments and the environment, the retry policy, Retry-After, and the SQLite cache."""

from __future__ import annotations

import email.utils
import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest
from pydantic import ValidationError

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.cache import JudgeCache, cache_key
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.judges.openai.client import parse_retry_after
from tests.llm.cache_writer import write_many
from tests.llm.conftest import JudgeFactory
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.llm.samples import ENGLISH, RUSSIAN
from tests.llm.test_faults import extraction_request


def test_environment_with_openai_fallbacks() -> None:
    env = {
        "RAGMETRICS_JUDGE_MODEL": "llama3.1",
        "OPENAI_BASE_URL": "http://localhost:11434/v1",
        "OPENAI_API_KEY": "ollama",
        "RAGMETRICS_JUDGE_MAX_TOKENS": "2048",
        "RAGMETRICS_JUDGE_CHECK_MODE": "per_chunk",
        "RAGMETRICS_EMBEDDING_MODEL": "nomic-embed-text",
        "RAGMETRICS_JUDGE_MAX_ATTEMPTS": "3",
        "RAGMETRICS_JUDGE_BACKOFF_INITIAL": "0.5",
    }
    config = OpenAIJudgeConfig.from_env(env)
    assert config.base_url == "http://localhost:11434/v1"
    assert config.api_key is not None and config.api_key.get_secret_value() == "ollama"
    assert (config.max_tokens, config.check_mode, config.embedding_model) == (2048, "per_chunk", "nomic-embed-text")
    assert config.retry == RetryPolicy(max_attempts=3, initial_delay_s=0.5)
    assert config.temperature == 0.0
    preferred = OpenAIJudgeConfig.from_env({**env, "RAGMETRICS_JUDGE_BASE_URL": "http://vllm:8000/v1"}, model="x")
    assert preferred.base_url == "http://vllm:8000/v1" and preferred.model == "x"


def test_bad_configuration_is_reported_clearly() -> None:
    with pytest.raises(ValueError, match="RAGMETRICS_JUDGE_MODEL"):
        OpenAIJudgeConfig.from_env({})
    with pytest.raises(ValidationError, match="max_tokens"):
        OpenAIJudgeConfig.from_env({"RAGMETRICS_JUDGE_MODEL": "m", "RAGMETRICS_JUDGE_MAX_TOKENS": "lots"})
    with pytest.raises(ValidationError, match="http:// or https://"):
        OpenAIJudgeConfig(model="m", base_url="localhost:8000/v1")
    with pytest.raises(ValidationError):
        OpenAIJudgeConfig(model="m", temperature=-1)
    with pytest.raises(ValidationError):
        OpenAIJudgeConfig(model="m", check_mode="sometimes")  # type: ignore[arg-type]


def test_judge_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMETRICS_JUDGE_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-123456")
    judge = OpenAIJudge(timeout_s=9)
    assert judge.name == "openai:gpt-4o-mini" and judge.config.timeout_s == 9
    assert "sk-env" not in repr(judge)


def test_backoff_schedule() -> None:
    policy = RetryPolicy()
    assert [policy.delay(n) for n in range(1, 7)] == [2, 4, 8, 16, 30, 30]
    assert policy.delay(1, retry_after_s=45) == 30
    assert policy.delay(3, retry_after_s=0.25) == 0.25


def test_retry_after_forms() -> None:
    now = 1_900_000_000.0
    assert parse_retry_after({"retry-after": "3"}, now) == 3
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}, now) == 1.5
    assert parse_retry_after({"retry-after": email.utils.formatdate(now + 20, usegmt=True)}, now) == pytest.approx(20)
    assert parse_retry_after({"retry-after": email.utils.formatdate(now - 20, usegmt=True)}, now) == 0
    assert parse_retry_after({"retry-after": "soon"}, now) is None
    assert parse_retry_after({"retry-after": "-4"}, now) is None
    assert parse_retry_after({}, now) is None


def test_cache_keys_depend_on_model_prompt_and_parameters() -> None:
    messages = [{"role": "user", "content": "x"}]
    base = cache_key("chat", "m", messages, {"temperature": 0})
    assert base == cache_key("chat", "m", [{"content": "x", "role": "user"}], {"temperature": 0})
    assert base != cache_key("chat", "m2", messages, {"temperature": 0})
    assert base != cache_key("chat", "m", [{"role": "user", "content": "y"}], {"temperature": 0})
    assert base != cache_key("chat", "m", messages, {"temperature": 0.5})


async def test_a_rerun_is_served_from_the_cache(
    make_judge: JudgeFactory, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    cache = JudgeCache(tmp_path / "cache" / "judge.sqlite")
    first = await Evaluator(judge=make_judge(cache=cache)).aevaluate(ENGLISH)
    calls_after_first = len(server.calls())
    second = await Evaluator(judge=make_judge(cache=cache)).aevaluate(ENGLISH)
    assert len(server.calls()) == calls_after_first == 4
    assert second.usage.calls == 0 and second.usage.embedding_calls == 0 and second.usage.prompt_tokens == 0
    assert second.usage.cache_hits == 4
    assert second.values() == first.values()
    # A different model is a different key.
    await Evaluator(judge=make_judge(cache=cache, model="other")).aevaluate(ENGLISH)
    assert len(server.calls()) == calls_after_first + 3  # embeddings model unchanged: still cached


async def test_unusable_answers_are_not_cached(
    make_judge: JudgeFactory, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    from tests.llm.fake_openai_server import malformed

    cache = JudgeCache(tmp_path / "judge.sqlite")
    server.inject("extract", malformed())
    await make_judge(cache=cache).extract(extraction_request())
    with sqlite3.connect(tmp_path / "judge.sqlite") as connection:
        values = [row[0] for row in connection.execute("SELECT value FROM judge_calls")]
    assert len(values) == 1 and "Here are the results" not in values[0]


def test_cache_path_from_config_and_judge(tmp_path: Path, server: FakeOpenAIServer) -> None:
    judge = OpenAIJudge(OpenAIJudgeConfig(model="m", base_url=server.base_url, cache_path=str(tmp_path / "c.db")))
    assert judge.cache is not None and judge.cache.path == tmp_path / "c.db"
    result = Evaluator(judge=judge, metrics=["faithfulness"]).evaluate(RUSSIAN)  # sync, in its own loop
    again = Evaluator(judge=judge, metrics=["faithfulness"]).evaluate(RUSSIAN)  # a second, new loop
    assert result.score("faithfulness") == 1.0 and again.usage.cache_hits == 2 and again.usage.calls == 0


def test_cache_is_safe_across_threads_and_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    JudgeCache(path)
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=write_many, args=(path, f"p{n}")) for n in range(2)]
    threads = [threading.Thread(target=write_many, args=(path, f"t{n}")) for n in range(4)]
    for worker in [*processes, *threads]:
        worker.start()
    for worker in [*processes, *threads]:
        worker.join(timeout=60)
    assert all(process.exitcode == 0 for process in processes)
    cache = JudgeCache(path)
    assert len(cache) == 6 * 50
    assert cache.get("p1-49") == {"content": "p149"} and cache.get("t3-0") == {"content": "t30"}
    assert cache.get("absent") is None
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
