"""The evidence logic shared by the transparent test judges of every test area.

Claims are sentences; a premise entails a claim when it contains the claim's words in order, and
contradicts it when it contains the claim with "not" added or removed. Simple enough that every expected
score in the tests can be worked out by hand. Each area's judge adds its own behaviour (delays, failures,
call records) around these functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragmetrics_core.evidence import Check, Claim, EvidencePart, GeneratedQuestion, Verdict
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest

P = EvidencePart
Splitter = Callable[[str | None], list[str]]


def sentences(text: str | None) -> list[str]:
    """Split on every ``.``, ``!`` or ``?``, dropping the marks ("..." gives no sentence)."""
    return [part.strip() for part in re.split(r"[.!?]", text or "") if part.strip()]


def norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def verdict(premise: str, claim: str) -> Check:
    p, c = norm(premise), norm(claim)
    if c and c in p:
        return Check(verdict=Verdict.ENTAILED, rationale="substring")
    if c and ((c.startswith("not ") and c[4:] in p) or ("not " + c) in p):
        return Check(verdict=Verdict.CONTRADICTED, rationale="negated")
    return Check(verdict=Verdict.NEUTRAL)


def sentence_questions(request: ExtractionRequest) -> list[GeneratedQuestion]:
    """The response's first sentences as questions, noncommittal when it says it does not know."""
    noncommittal = "don't know" in request.response.lower()
    return [
        GeneratedQuestion(text=f"{s}?", noncommittal=noncommittal)
        for s in sentences(request.response)[: request.n_questions]
    ]


def extract(
    request: ExtractionRequest,
    split: Splitter = sentences,
    questions: Callable[[ExtractionRequest], list[GeneratedQuestion]] = sentence_questions,
) -> Extraction:
    """Fill every extraction part in ``request.want`` (usage left at zero for the caller to set)."""
    out = Extraction()
    if P.RESPONSE_CLAIMS in request.want:
        out.response_claims = [Claim(text=s) for s in split(request.response)]
    if P.REFERENCE_CLAIMS in request.want:
        out.reference_claims = [Claim(text=s) for s in split(request.reference)]
    if P.REFERENCE_ENTITIES in request.want:
        out.reference_entities = sorted(set(re.findall(r"\b[A-Z][a-z]+\b", request.reference or "")))
    if P.GENERATED_QUESTIONS in request.want:
        out.generated_questions = questions(request)
    return out


def check(request: CheckRequest) -> CheckResult:
    """Fill every check part in ``request.want`` (usage left at zero for the caller to set)."""
    out = CheckResult()
    r, g, chunks = request.response_claims, request.reference_claims, request.contexts
    joined = " ".join(chunks)
    want = request.want
    if P.RESPONSE_VS_REFERENCE in want:
        out.response_vs_reference = [verdict(request.reference or "", c.text) for c in r]
    if P.REFERENCE_VS_RESPONSE in want:
        out.reference_vs_response = [verdict(request.response, c.text) for c in g]
    if P.RESPONSE_VS_CHUNKS in want:
        out.response_vs_chunks = [[verdict(k, c.text) for k in chunks] for c in r]
    if P.REFERENCE_VS_CHUNKS in want:
        out.reference_vs_chunks = [[verdict(k, c.text) for k in chunks] for c in g]
    if P.RESPONSE_VS_CONTEXTS in want:
        out.response_vs_contexts = [verdict(joined, c.text) for c in r]
    if P.REFERENCE_VS_CONTEXTS in want:
        out.reference_vs_contexts = [verdict(joined, c.text) for c in g]
    if P.ENTITIES_IN_CONTEXTS in want:
        out.entities_in_contexts = [entity in joined for entity in request.reference_entities]
    return out
