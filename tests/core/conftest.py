"""The core tests' judge: the shared substring judge, recording every call and able to fail on demand."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from ragmetrics_core.evidence import EvidencePart
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
from tests.substring_judge import norm


@dataclass
class SubstringJudge:
    name: str = "substring"
    calls: list[tuple[str, frozenset[EvidencePart]]] = field(default_factory=list)
    fail_stage: str | None = None
    short_matrix: bool = False

    async def extract(self, request: ExtractionRequest) -> Extraction:
        self.calls.append(("extract", request.want))
        if self.fail_stage == "extract":
            raise JudgeError("endpoint http://127.0.0.1:1 answered 503")
        usage = Usage(calls=1, prompt_tokens=10, completion_tokens=5)
        return substring_judge.extract(request).model_copy(update={"usage": usage})

    async def check(self, request: CheckRequest) -> CheckResult:
        self.calls.append(("check", request.want))
        if self.fail_stage == "check":
            raise RuntimeError("judge bug")
        out = substring_judge.check(request)
        out.usage = Usage(calls=1, prompt_tokens=20, completion_tokens=10)
        if self.short_matrix and out.response_vs_chunks:
            out.response_vs_chunks[0] = out.response_vs_chunks[0][:-1]
        return out

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        self.calls.append(("similarity", frozenset()))
        q = set(norm(question).split())
        sims = [len(q & set(norm(c).split())) / max(1, len(q | set(norm(c).split()))) for c in candidates]
        return SimilarityResult(similarities=sims, usage=Usage(embedding_calls=1))


@pytest.fixture
def judge() -> SubstringJudge:
    return SubstringJudge()
