"""The embedded judge: offline, deterministic, pure Python; the engine's default.

Every text of a request is analysed once (sentences → weighted terms → inverted index) and reused across the
whole verdict matrix, so a sample of five 100-word chunks costs a few milliseconds whatever the metrics.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from ragmetrics_core.budget import checkpoint, metered
from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Check, Claim, EvidencePart, GeneratedQuestion, SkippedPiece, Verdict
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    SimilarityResult,
    Usage,
)
from ragmetrics_core.judges.embedded.answers import ReadAnswer, read_answer
from ragmetrics_core.judges.embedded.claims import read_claims
from ragmetrics_core.judges.embedded.entail import Premise, check
from ragmetrics_core.judges.embedded.entities import entity_found, extract_entities
from ragmetrics_core.judges.embedded.questions import generate_questions, similarities
from ragmetrics_core.judges.embedded.structured import readable
from ragmetrics_core.judges.embedded.terms import Terms, terms

T = TypeVar("T")

MAX_CONTEXTS = 1000
"""Chunks judged per sample; verdicts for chunks beyond it are *neutral* with a reason (documented cap)."""
MAX_CLAIM_CHARS = 2000
"""A claim longer than this is judged on its first 2,000 characters (documented cap)."""


class EmbeddedJudge:
    """Rule-based judge for English, Russian and Chinese: no model download, no network, no randomness."""

    @property
    def name(self) -> str:
        return "embedded"

    async def extract(self, request: ExtractionRequest) -> Extraction:
        if not isinstance(request, ExtractionRequest):
            raise TypeError(f"extract expects an ExtractionRequest, got {type(request).__name__}")
        started = time.perf_counter()
        want = request.want
        skipped: list[SkippedPiece] = []
        with metered():
            result = Extraction(
                response_claims=_wanted(want, EvidencePart.RESPONSE_CLAIMS, _answer_claims, request.user_input,
                                        request.response, "response", skipped),
                reference_claims=_wanted(want, EvidencePart.REFERENCE_CLAIMS, _answer_claims, request.user_input,
                                         request.reference or "", "reference", skipped),
                reference_entities=_wanted(want, EvidencePart.REFERENCE_ENTITIES, extract_entities, request.reference),
                generated_questions=_wanted(want, EvidencePart.GENERATED_QUESTIONS, _questions, request.user_input,
                                            request.response, request.n_questions),
            )
        if skipped:
            result.skipped = skipped
        result.usage = Usage(latency_s=time.perf_counter() - started)
        return result

    async def check(self, request: CheckRequest) -> CheckResult:
        if not isinstance(request, CheckRequest):
            raise TypeError(f"check expects a CheckRequest, got {type(request).__name__}")
        started = time.perf_counter()
        with metered():
            result = _Checker(request).run()
        result.usage = Usage(latency_s=time.perf_counter() - started)
        return result

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        if not isinstance(question, str) or not isinstance(candidates, list):
            raise TypeError("similarity expects a question string and a list of candidate strings")
        started = time.perf_counter()
        texts = [candidate for candidate in candidates if isinstance(candidate, str)]
        with metered():
            computed = iter(_step(similarities, question, texts))
        values = [next(computed) if isinstance(candidate, str) else 0.0 for candidate in candidates]
        return SimilarityResult(similarities=values, usage=Usage(latency_s=time.perf_counter() - started))


class _Checker:
    """One check request: each text analysed at most once, then every requested matrix filled."""

    def __init__(self, request: CheckRequest) -> None:
        self.request = request
        self.want = request.want
        self._chunks: list[Premise] | None = None
        self._labels: list[str] = []
        self._joint: Premise | None = None

    def run(self) -> CheckResult:
        want = self.want
        request = self.request
        response_terms = _claim_terms(request.response_claims)
        reference_terms = _claim_terms(request.reference_claims)
        result = CheckResult()
        if EvidencePart.RESPONSE_VS_REFERENCE in want:
            result.response_vs_reference = _against_answer(
                response_terms, read_answer(request.user_input, request.reference or ""), "reference"
            )
        if EvidencePart.REFERENCE_VS_RESPONSE in want:
            result.reference_vs_response = _against_answer(
                reference_terms, read_answer(request.user_input, request.response), "response"
            )
        if EvidencePart.RESPONSE_VS_CHUNKS in want:
            result.response_vs_chunks = [self._row(claim) for claim in response_terms]
        if EvidencePart.REFERENCE_VS_CHUNKS in want:
            result.reference_vs_chunks = [self._row(claim) for claim in reference_terms]
        if EvidencePart.RESPONSE_VS_CONTEXTS in want:
            result.response_vs_contexts = self._joint_column(response_terms, result.response_vs_chunks)
        if EvidencePart.REFERENCE_VS_CONTEXTS in want:
            result.reference_vs_contexts = self._joint_column(reference_terms, result.reference_vs_chunks)
        if EvidencePart.ENTITIES_IN_CONTEXTS in want:
            key_sets = [premise.keys for premise in self.chunks]
            result.entities_in_contexts = [
                entity_found(terms(entity), key_sets) if isinstance(entity, str) else False
                for entity in request.reference_entities
            ]
        return result

    @property
    def chunks(self) -> list[Premise]:
        if self._chunks is None:
            contexts = self.request.contexts[:MAX_CONTEXTS]
            self._chunks = [
                _step(Premise.from_text, readable(text), group=number) for number, text in enumerate(contexts)
            ]
            self._labels = [f"chunk {number + 1}" for number in range(len(contexts))]
        return self._chunks

    @property
    def joint(self) -> Premise:
        if self._joint is None:
            self._joint = Premise.joined(self.chunks)
        return self._joint

    def _joint_column(self, claims: list[Terms], rows: list[list[Check]] | None) -> list[Check]:
        """All chunks together. They entail at least what their best chunk entails: a claim one chunk fully
        supports keeps that verdict; otherwise the joined chunks are checked and the stronger verdict kept."""
        column: list[Check] = []
        for number, claim in enumerate(claims):
            if rows is not None and len(self.chunks) == 1:
                column.append(_from_chunk(0, rows[number][0]))  # one chunk: together is the chunk itself
                continue
            best = None if rows is None else max(
                ((chunk, check) for chunk, check in enumerate(rows[number]) if check.entailed),
                key=lambda pair: pair[1].strength, default=None,
            )
            if best is not None and best[1].strength >= 1.0:
                column.append(_from_chunk(*best))  # full support already
                continue
            checkpoint()
            together = check(claim, self.joint, "contexts")
            if best is not None and best[1].strength >= together.strength:
                together = _from_chunk(*best)
            column.append(together)
        return column

    def _row(self, claim: Terms) -> list[Check]:
        checkpoint()
        row = [check(claim, premise, label) for premise, label in zip(self.chunks, self._labels, strict=True)]
        skipped = len(self.request.contexts) - len(row)
        if skipped > 0:
            row.extend(
                [Check(verdict=Verdict.NEUTRAL, confidence=None,
                       rationale=f"not judged: more than {MAX_CONTEXTS} chunks")] * skipped
            )
        return row


def _answer_claims(question: str, answer: str, source: str, skipped: list[SkippedPiece]) -> list[Claim]:
    """The claims of an answer read with its question (:mod:`.answers`); what is no claim goes to ``skipped``."""
    read = read_answer(question, answer)
    claims, aside = read_claims(read.text)
    skipped.extend(
        _new_skipped({"source": source, "text": piece.text, "reason": piece.reason})
        for piece in (*read.skipped, *aside)
    )
    return list(claims)


def _against_answer(claims: list[Terms], answer: ReadAnswer, label: str) -> list[Check]:
    """Each claim checked against an answer read with its question. An answer that only declines states nothing,
    and the verdict says so (not that the text is empty)."""
    if not answer.text and answer.declined:
        declined = _new_check({"verdict": Verdict.NEUTRAL, "confidence": 1.0, "support": 0.0,
                               "rationale": f"the {label} declines to answer"})
        return [declined] * len(claims)
    premise = Premise.from_text(answer.text)
    return [check(claim, premise, label) for claim in claims]


def _questions(question: str, answer: str, n_questions: int) -> list[GeneratedQuestion]:
    """The questions the answer answers. A fragment put into the question ("Jørn Utzon." to "Who designed the
    Sydney Opera House?") answers exactly that question; any other answer is read with its question, and one
    that only declines stays as written (it is noncommittal)."""
    read = read_answer(question, answer)
    if read.completed and read.question:
        return [_new_question({"text": read.question + "?", "noncommittal": False})] * n_questions
    return generate_questions(read.text or answer, n_questions)


def _step(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """One step of the judge's work, after checking the sample's CPU budget (:mod:`ragmetrics_core.budget`)."""
    checkpoint()
    return work(*args, **kwargs)


def _wanted(want: Collection[EvidencePart], part: EvidencePart, work: Callable[..., T], *args: Any) -> T | None:
    """One step of the extraction, done only when the engine asks for ``part``."""
    return _step(work, *args) if part in want else None


def _from_chunk(chunk: int, single: Check) -> Check:
    return _new_check({"verdict": single.verdict, "confidence": single.confidence, "support": single.support,
                       "rationale": f"chunk {chunk + 1}: {single.rationale}"})


_new_check = builder(Check)
_new_skipped = builder(SkippedPiece)
_new_question = builder(GeneratedQuestion)


def _claim_terms(claims: Sequence[Claim]) -> list[Terms]:
    return [terms(claim.text[:MAX_CLAIM_CHARS]) for claim in claims]
