"""The one protocol every judge speaks: extract, check, compare questions.

A judge turns text into evidence. The engine asks it for exactly the evidence parts the requested metrics
need (``want``), so a judge must fill every part in ``want`` and may leave the rest ``None``. A judge that
cannot establish a part raises :class:`JudgeError`; the engine records the reason on the metrics that
needed it instead of guessing.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ragmetrics_core.evidence import CheckedParts, Claim, EvidencePart, ExtractedParts, SkippedPiece
from ragmetrics_core.results import Usage as Usage  # defined with the results it is part of; judges report it


class ExtractionRequest(BaseModel):
    """Ask for claims, entities and generated questions in one pass."""

    model_config = ConfigDict(frozen=True)

    user_input: str
    response: str
    reference: str | None
    want: frozenset[EvidencePart]
    n_questions: int = Field(default=3, ge=1, le=20)


class Extraction(ExtractedParts):
    """The extracted parts (declared with the evidence), what the judge set aside as no claim, and what extracting
    them cost."""

    skipped: list[SkippedPiece] | None = None
    usage: Usage = Field(default_factory=Usage)


class CheckRequest(BaseModel):
    """Ask for verdict matrices: claims against the reference, the response, each chunk and all chunks."""

    model_config = ConfigDict(frozen=True)

    response: str
    reference: str | None
    contexts: list[str]
    user_input: str = ""
    """The question, for judges that read an answer with it (a short answer, "Yes.", a leading pronoun)."""
    response_claims: list[Claim] = Field(default_factory=list)
    reference_claims: list[Claim] = Field(default_factory=list)
    reference_entities: list[str] = Field(default_factory=list)
    want: frozenset[EvidencePart]


class CheckResult(CheckedParts):
    """The checked parts (declared with the evidence) and what checking them cost."""

    usage: Usage = Field(default_factory=Usage)


class SimilarityResult(BaseModel):
    similarities: list[float]
    usage: Usage = Field(default_factory=Usage)


class JudgeError(Exception):
    """A judge could not produce the evidence it was asked for (the message never holds secrets).

    ``usage`` is what the failed attempt spent (an LLM that answered 200 with tokens but unusable content is
    still paid for): the engine charges it to the sample, so budgets and cost reports see every billed token.
    """

    def __init__(self, message: str = "", *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage if usage is not None else Usage()


@runtime_checkable
class Judge(Protocol):
    """Anything that can extract claims, check them, and compare questions."""

    @property
    def name(self) -> str:
        """A stable label for results and telemetry, e.g. ``embedded`` or ``openai:gpt-4o-mini``."""
        ...

    async def extract(self, request: ExtractionRequest) -> Extraction: ...

    async def check(self, request: CheckRequest) -> CheckResult: ...

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        """Cosine similarity (in [-1, 1], usually [0, 1]) of ``question`` to each candidate."""
        ...
