"""Fixtures: a fake OpenAI-compatible server on 127.0.0.1 and judges pointed at it with a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from tests.llm.fake_openai_server import FakeOpenAIServer

FAKE_KEY = "sk-test-LEAKCANARY-7f3a9c2e5b"
FIXED_NOW = 1_900_000_000.0


class RecordingSleep:
    """Stands in for ``asyncio.sleep``: records the backoff schedule without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


@pytest.fixture
def sleep() -> RecordingSleep:
    return RecordingSleep()


JudgeFactory = Callable[..., OpenAIJudge]


@pytest.fixture
def make_judge(server: FakeOpenAIServer, sleep: RecordingSleep) -> JudgeFactory:
    def factory(**overrides: Any) -> OpenAIJudge:
        settings: dict[str, Any] = {
            "model": "fake-judge-1",
            "base_url": server.base_url,
            "api_key": FAKE_KEY,
            "embedding_model": "fake-embedding",
            "timeout_s": 5.0,
            "retry": RetryPolicy(),
        }
        settings.update(overrides)
        cache = settings.pop("cache", None)
        fallback = settings.pop("similarity_fallback", None)
        return OpenAIJudge(
            OpenAIJudgeConfig.model_validate(settings),
            cache=cache,
            similarity_fallback=fallback,
            sleep=sleep,
            now=lambda: FIXED_NOW,
        )

    return factory
