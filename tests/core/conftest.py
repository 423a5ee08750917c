"""A transparent test judge: claims are sentences, a premise entails a claim when it contains its text.

Simple enough that every expected score in these tests can be worked out by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from ragmetrics_core.evidence import Check, Claim, EvidencePart, GeneratedQuestion, Verdict
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    SimilarityResult,
    Usage,
)

P = EvidencePart


def sentences(text: str | None) -> list[str]:
    return [part.strip() for part in re.split(r"[.!?]", text or "") if part.strip()]


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.lower())).strip()


def verdict(premise: str, claim: str) -> Check:
    p, c = norm(premise), norm(claim)
    if c and c in p:
        return Check(verdict=Verdict.ENTAILED, rationale="substring")
    if (c.startswith("not ") and c[4:] in p) or ("not " + c) in p:
        return Check(verdict=Verdict.CONTRADICTED, rationale="negated")
    return Check(verdict=Verdict.NEUTRAL)


@dataclass
class SubstringJudge:
    name: str = "substring"
    calls: list[tuple[str, frozenset[EvidencePart]]] = field(default_factory=list)
    fail_stage: str | None = None
    short_matrix: bool = False

    async def extract(self, request: ExtractionRequest) -> Extraction:
        self.calls.append(("extract", request.want))
        if self.fail_stage == "extract":
            from ragmetrics_core.judges.base import JudgeError

            raise JudgeError("endpoint http://127.0.0.1:1 answered 503")
        out = Extraction(usage=Usage(calls=1, prompt_tokens=10, completion_tokens=5))
        if P.RESPONSE_CLAIMS in request.want:
            out.response_claims = [Claim(text=s) for s in sentences(request.response)]
        if P.REFERENCE_CLAIMS in request.want:
            out.reference_claims = [Claim(text=s) for s in sentences(request.reference)]
        if P.REFERENCE_ENTITIES in request.want:
            out.reference_entities = sorted(set(re.findall(r"\b[A-Z][a-z]+\b", request.reference or "")))
        if P.GENERATED_QUESTIONS in request.want:
            noncommittal = "don't know" in request.response.lower()
            out.generated_questions = [
                GeneratedQuestion(text=f"{s}?", noncommittal=noncommittal)
                for s in sentences(request.response)[: request.n_questions]
            ]
        return out

    async def check(self, request: CheckRequest) -> CheckResult:
        self.calls.append(("check", request.want))
        if self.fail_stage == "check":
            raise RuntimeError("judge bug")
        out = CheckResult(usage=Usage(calls=1, prompt_tokens=20, completion_tokens=10))
        r, g = request.response_claims, request.reference_claims
        joined = " ".join(request.contexts)
        if P.RESPONSE_VS_REFERENCE in request.want:
            out.response_vs_reference = [verdict(request.reference or "", c.text) for c in r]
        if P.REFERENCE_VS_RESPONSE in request.want:
            out.reference_vs_response = [verdict(request.response, c.text) for c in g]
        if P.RESPONSE_VS_CHUNKS in request.want:
            out.response_vs_chunks = [[verdict(k, c.text) for k in request.contexts] for c in r]
            if self.short_matrix and out.response_vs_chunks:
                out.response_vs_chunks[0] = out.response_vs_chunks[0][:-1]
        if P.REFERENCE_VS_CHUNKS in request.want:
            out.reference_vs_chunks = [[verdict(k, c.text) for k in request.contexts] for c in g]
        if P.RESPONSE_VS_CONTEXTS in request.want:
            out.response_vs_contexts = [verdict(joined, c.text) for c in r]
        if P.REFERENCE_VS_CONTEXTS in request.want:
            out.reference_vs_contexts = [verdict(joined, c.text) for c in g]
        if P.ENTITIES_IN_CONTEXTS in request.want:
            out.entities_in_contexts = [entity in joined for entity in request.reference_entities]
        return out

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        self.calls.append(("similarity", frozenset()))
        q = set(norm(question).split())
        sims = [len(q & set(norm(c).split())) / max(1, len(q | set(norm(c).split()))) for c in candidates]
        return SimilarityResult(similarities=sims, usage=Usage(embedding_calls=1))


@pytest.fixture
def judge() -> SubstringJudge:
    return SubstringJudge()
