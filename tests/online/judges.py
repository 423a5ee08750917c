"""Judges for the online tests: transparent verdicts, with a configurable delay, failure or hang."""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import dataclass, field

from ragmetrics_core.evidence import Check, Claim, EvidencePart, GeneratedQuestion, Verdict
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    JudgeError,
    SimilarityResult,
    Usage,
)

P = EvidencePart


def sentences(text: str | None) -> list[str]:
    return [part.strip() for part in re.split(r"[.!?]", text or "") if part.strip()]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.lower())).strip()


def entails(premise: str, claim: str) -> Check:
    ok = bool(_norm(claim)) and _norm(claim) in _norm(premise)
    return Check(verdict=Verdict.ENTAILED if ok else Verdict.NEUTRAL, rationale="substring" if ok else None)


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
        out = Extraction(usage=await self._enter())
        if P.RESPONSE_CLAIMS in request.want:
            out.response_claims = [Claim(text=s) for s in sentences(request.response)]
        if P.REFERENCE_CLAIMS in request.want:
            out.reference_claims = [Claim(text=s) for s in sentences(request.reference)]
        if P.REFERENCE_ENTITIES in request.want:
            out.reference_entities = sorted(set(re.findall(r"\b[A-Z][a-z]+\b", request.reference or "")))
        if P.GENERATED_QUESTIONS in request.want:
            out.generated_questions = [GeneratedQuestion(text=f"{s}?") for s in sentences(request.response)[:3]]
        return out

    async def check(self, request: CheckRequest) -> CheckResult:
        out = CheckResult(usage=await self._enter())
        r, g, contexts = request.response_claims, request.reference_claims, request.contexts
        joined = " ".join(contexts)
        want = request.want
        if P.RESPONSE_VS_REFERENCE in want:
            out.response_vs_reference = [entails(request.reference or "", c.text) for c in r]
        if P.REFERENCE_VS_RESPONSE in want:
            out.reference_vs_response = [entails(request.response, c.text) for c in g]
        if P.RESPONSE_VS_CHUNKS in want:
            out.response_vs_chunks = [[entails(k, c.text) for k in contexts] for c in r]
        if P.REFERENCE_VS_CHUNKS in want:
            out.reference_vs_chunks = [[entails(k, c.text) for k in contexts] for c in g]
        if P.RESPONSE_VS_CONTEXTS in want:
            out.response_vs_contexts = [entails(joined, c.text) for c in r]
        if P.REFERENCE_VS_CONTEXTS in want:
            out.reference_vs_contexts = [entails(joined, c.text) for c in g]
        if P.ENTITIES_IN_CONTEXTS in want:
            out.entities_in_contexts = [e in joined for e in request.reference_entities]
        return out

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        usage = await self._enter()
        return SimilarityResult(similarities=[1.0 for _ in candidates], usage=usage)
