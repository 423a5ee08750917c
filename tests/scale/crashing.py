"""A row scorer whose worker process dies the first time it meets one sample: Ray must restart the worker and
retry the batch, and the driver must lose no row it already received. Imported by the Ray workers (tests/ is on
their PYTHONPATH, see conftest)."""

from __future__ import annotations

import os
from pathlib import Path

from ragmetrics_core.engine import AsyncEvaluator, Evaluator
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, SimilarityResult
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.scale import RowScorer


class DiesOnce:
    """The embedded judge, except that the process exits (as an OOM kill would end it) on ``fatal`` the first time."""

    def __init__(self, fatal: str, marker: Path) -> None:
        self.inner = EmbeddedJudge()
        self.name = self.inner.name
        self.fatal = fatal
        self.marker = marker

    async def extract(self, request: ExtractionRequest) -> Extraction:
        if request.response == self.fatal and not self.marker.exists():
            self.marker.write_text(str(os.getpid()), encoding="utf-8")
            os._exit(1)
        return await self.inner.extract(request)

    async def check(self, request: CheckRequest) -> CheckResult:
        return await self.inner.check(request)

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        return await self.inner.similarity(question, candidates)


class CrashOnceScorer(RowScorer):
    def __init__(self, fatal: str, marker: Path) -> None:
        super().__init__(concurrency=1)
        self.fatal = fatal
        self.marker = marker

    @property
    def evaluator(self) -> AsyncEvaluator:
        if self._evaluator is None:
            self._evaluator = Evaluator(judge=DiesOnce(self.fatal, self.marker), metrics=self.metrics)
        return self._evaluator
