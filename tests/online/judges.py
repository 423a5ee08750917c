"""Judges for the online tests: transparent verdicts, with a configurable delay, failure or hang."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    JudgeError,
    SimilarityResult,
    Usage,
)
from tests import substring_judge


@dataclass
class ScriptedJudge:
    """Claims are sentences; a premise entails a claim when it contains it. ``delay_s`` sleeps per call
    (asynchronously), ``fail`` raises ``JudgeError`` with ``fail_message``, ``hang`` never answers."""

    name: str = "scripted"
    delay_s: float = 0.0
    fail: bool = False
    fail_message: str = "upstream answered 503"
    hang: bool = False
    tokens_per_call: int = 10
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def _enter(self) -> Usage:
        with self._lock:
            self.calls += 1
        if self.hang:
            await asyncio.Event().wait()
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.fail:
            raise JudgeError(self.fail_message)
        return Usage(calls=1, prompt_tokens=self.tokens_per_call, completion_tokens=0)

    async def extract(self, request: ExtractionRequest) -> Extraction:
        usage = await self._enter()
        return substring_judge.extract(request).model_copy(update={"usage": usage})

    async def check(self, request: CheckRequest) -> CheckResult:
        usage = await self._enter()
        return substring_judge.check(request).model_copy(update={"usage": usage})

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        usage = await self._enter()
        return SimilarityResult(similarities=[1.0 for _ in candidates], usage=usage)
