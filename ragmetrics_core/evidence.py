"""Claim-level evidence: the one shared pass every metric is read from.

Matrices are indexed ``[claim][chunk]``. Every check says whether a *premise* entails a *claim*; only
``entailed`` counts as support, ``neutral`` and ``contradicted`` do not. A judge may also grade its support
(:attr:`Check.support`); see :mod:`ragmetrics_core.metrics.claims` for how graded scores read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


class Verdict(StrEnum):
    ENTAILED = "entailed"
    NEUTRAL = "neutral"
    CONTRADICTED = "contradicted"

    @classmethod
    def parse(cls, label: str) -> Verdict:
        """Read our labels and RAGChecker's (``Entailment`` / ``Neutral`` / ``Contradiction``)."""
        key = label.strip().lower()
        for prefix, verdict in (("entail", cls.ENTAILED), ("contradict", cls.CONTRADICTED), ("neutral", cls.NEUTRAL)):
            if key.startswith(prefix):
                return verdict
        raise ValueError(f"unknown verdict label {label!r}; expected entailed, neutral or contradicted")

    def ragchecker_label(self) -> str:
        return {"entailed": "Entailment", "neutral": "Neutral", "contradicted": "Contradiction"}[self.value]


#: The strictness at which a judge's own verdict is taken: a graded check is *entailed* iff its support reaches it.
VERDICT_STRICTNESS = 0.5


class Check(BaseModel):
    """The judge's verdict on one (premise, claim) pair.

    ``support`` (optional) grades the verdict: the check counts as entailed by a judge of strictness τ ∈ (0, 1]
    when ``support ≥ τ``, and the verdict itself is the decision at τ = 1/2. So ``support`` is at least 1/2
    exactly when the verdict is *entailed*: 1 for a claim the premise states word for word, just above 1/2 for
    one it barely supports, 0 for one it contradicts or never mentions. Without it the verdict is all there is
    (support 1 if entailed, else 0).
    """

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    rationale: str | None = None
    support: float | None = Field(default=None, ge=0.0, le=1.0)

    # A field validator, not a model one: it runs once when a check is built, not again each time a built
    # check is placed into Evidence (pydantic re-runs model validators on instances, not field validators).
    @field_validator("support")
    @classmethod
    def _support_agrees_with_verdict(cls, support: float | None, info: ValidationInfo) -> float | None:
        verdict = info.data.get("verdict")
        if support is not None and verdict is not None and (support >= VERDICT_STRICTNESS) != (
            verdict is Verdict.ENTAILED
        ):
            side = "at least" if verdict is Verdict.ENTAILED else "below"
            raise ValueError(
                f"support {support} contradicts the verdict {verdict.value!r}: "
                f"it must be {side} {VERDICT_STRICTNESS} for that verdict"
            )
        return support

    @property
    def entailed(self) -> bool:
        return self.verdict is Verdict.ENTAILED

    @property
    def strength(self) -> float:
        """The graded support, or 1/0 from the verdict when the judge gave no grade."""
        if self.support is not None:
            return self.support
        return 1.0 if self.verdict is Verdict.ENTAILED else 0.0


class Claim(BaseModel):
    """An atomic statement; ``subject``/``predicate``/``object`` when it came as a knowledge triplet."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    text: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None

    @classmethod
    def from_triplet(cls, triplet: list[str] | tuple[str, ...]) -> Claim:
        parts = [str(part).strip() for part in triplet]
        if len(parts) == 3:
            return cls(text=" ".join(parts), subject=parts[0], predicate=parts[1], object=parts[2])
        return cls(text=" ".join(parts))

    def as_triplet(self) -> list[str]:
        if self.subject is not None and self.predicate is not None and self.object is not None:
            return [self.subject, self.predicate, self.object]
        return [self.text]


class SkippedPiece(BaseModel):
    """A piece of the response or the reference that states nothing checkable, set aside by the judge with its
    reason: a greeting, thanks, an offer of help, a remark about the sources, a hedge taken off the claim it
    wraps. It counts in no metric; explanations show it."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="'response' or 'reference'.")
    text: str
    reason: str


class GeneratedQuestion(BaseModel):
    """A question the response could be answering, generated for ``response_relevancy``."""

    model_config = ConfigDict(frozen=True)

    text: str
    noncommittal: bool = False


class EvidencePart(StrEnum):
    """One piece of evidence a metric can ask for; the engine computes only the parts requested.

    Each part is an attribute of :class:`Evidence` of the same name; :data:`PARTS` says how it is computed."""

    RESPONSE_CLAIMS = "response_claims"
    REFERENCE_CLAIMS = "reference_claims"
    REFERENCE_ENTITIES = "reference_entities"
    GENERATED_QUESTIONS = "generated_questions"
    RESPONSE_VS_REFERENCE = "response_vs_reference"
    REFERENCE_VS_RESPONSE = "reference_vs_response"
    RESPONSE_VS_CHUNKS = "response_vs_chunks"
    REFERENCE_VS_CHUNKS = "reference_vs_chunks"
    RESPONSE_VS_CONTEXTS = "response_vs_contexts"
    REFERENCE_VS_CONTEXTS = "reference_vs_contexts"
    ENTITIES_IN_CONTEXTS = "entities_in_contexts"
    QUESTION_SIMILARITIES = "question_similarities"


class Stage(StrEnum):
    """The judge call that produces a part (one call per stage and sample at most)."""

    EXTRACTION = "extraction"
    CHECKING = "checking"
    SIMILARITY = "similarity"


class Premise(StrEnum):
    """What a checked part asks to entail (or, for similarities, to resemble) each of its items."""

    REFERENCE = "reference"
    RESPONSE = "response"
    EACH_CHUNK = "each chunk"
    ALL_CHUNKS = "all chunks together"
    QUESTION = "the user's question"


@dataclass(frozen=True, slots=True)
class PartSpec:
    """How one evidence part is made: by which judge call, read from which text (``source``, for an extracted
    list), or as one entry per item of another part (``items``, the claim side) checked against ``premise``.
    A part whose premise is :attr:`Premise.EACH_CHUNK` is a ``[item][chunk]`` matrix."""

    stage: Stage
    source: str | None = None
    items: EvidencePart | None = None
    premise: Premise | None = None

    @property
    def per_chunk(self) -> bool:
        return self.premise is Premise.EACH_CHUNK


_R, _G = EvidencePart.RESPONSE_CLAIMS, EvidencePart.REFERENCE_CLAIMS
PARTS: dict[EvidencePart, PartSpec] = {
    _R: PartSpec(Stage.EXTRACTION, source="response"),
    _G: PartSpec(Stage.EXTRACTION, source="reference"),
    EvidencePart.REFERENCE_ENTITIES: PartSpec(Stage.EXTRACTION, source="reference"),
    EvidencePart.GENERATED_QUESTIONS: PartSpec(Stage.EXTRACTION, source="response"),
    EvidencePart.RESPONSE_VS_REFERENCE: PartSpec(Stage.CHECKING, items=_R, premise=Premise.REFERENCE),
    EvidencePart.REFERENCE_VS_RESPONSE: PartSpec(Stage.CHECKING, items=_G, premise=Premise.RESPONSE),
    EvidencePart.RESPONSE_VS_CHUNKS: PartSpec(Stage.CHECKING, items=_R, premise=Premise.EACH_CHUNK),
    EvidencePart.REFERENCE_VS_CHUNKS: PartSpec(Stage.CHECKING, items=_G, premise=Premise.EACH_CHUNK),
    EvidencePart.RESPONSE_VS_CONTEXTS: PartSpec(Stage.CHECKING, items=_R, premise=Premise.ALL_CHUNKS),
    EvidencePart.REFERENCE_VS_CONTEXTS: PartSpec(Stage.CHECKING, items=_G, premise=Premise.ALL_CHUNKS),
    EvidencePart.ENTITIES_IN_CONTEXTS: PartSpec(
        Stage.CHECKING, items=EvidencePart.REFERENCE_ENTITIES, premise=Premise.ALL_CHUNKS
    ),
    EvidencePart.QUESTION_SIMILARITIES: PartSpec(
        Stage.SIMILARITY, items=EvidencePart.GENERATED_QUESTIONS, premise=Premise.QUESTION
    ),
}
"""The one table of evidence parts; the stages, the engine's plan, the shape checks and the explanations are
read from it."""


def _parts_of(stage: Stage) -> frozenset[EvidencePart]:
    return frozenset(part for part, spec in PARTS.items() if spec.stage is stage)


EXTRACTION_PARTS = _parts_of(Stage.EXTRACTION)
CHECK_PARTS = _parts_of(Stage.CHECKING)
SIMILARITY_PARTS = _parts_of(Stage.SIMILARITY)

CHECK_INPUTS: dict[EvidencePart, frozenset[EvidencePart]] = {
    part: frozenset({spec.items}) for part, spec in PARTS.items() if spec.items is not None
}
"""What each checked part is computed from, so the engine extracts before it checks."""


def checks_of(items: EvidencePart) -> dict[Premise, EvidencePart]:
    """The checked parts about the entries of ``items`` (e.g. response claims), by premise."""
    return {spec.premise: part for part, spec in PARTS.items() if spec.items is items and spec.premise is not None}


_PART_NAMES = tuple(part.value for part in EvidencePart)
"""Attribute names of the parts in order (iterating the enum and reading ``.value`` costs more than merging)."""
_MERGED_NAMES = (*_PART_NAMES, "skipped")
"""What :meth:`Evidence.merged` takes over: the parts and what their extraction set aside."""
_INDEXED = tuple((part.value, spec.items.value) for part, spec in PARTS.items() if spec.items is not None)
_MATRICES = tuple(part.value for part, spec in PARTS.items() if spec.per_chunk)


class ExtractedParts(BaseModel):
    """The parts the extraction stage produces (a judge's :class:`~ragmetrics_core.judges.base.Extraction`)."""

    response_claims: list[Claim] | None = None
    reference_claims: list[Claim] | None = None
    reference_entities: list[str] | None = None
    generated_questions: list[GeneratedQuestion] | None = None


class CheckedParts(BaseModel):
    """The parts the checking stage produces (a judge's :class:`~ragmetrics_core.judges.base.CheckResult`)."""

    response_vs_reference: list[Check] | None = None
    reference_vs_response: list[Check] | None = None
    response_vs_chunks: list[list[Check]] | None = None
    reference_vs_chunks: list[list[Check]] | None = None
    response_vs_contexts: list[Check] | None = None
    reference_vs_contexts: list[Check] | None = None
    entities_in_contexts: list[bool] | None = None


class Evidence(CheckedParts, ExtractedParts):
    """Everything the judge established about one sample. ``None`` means *not computed*, ``[]`` means *none*.

    Every part is indexed as :data:`PARTS` says: ``response_vs_chunks[i][j]`` is whether chunk ``j`` entails
    response claim ``i``, ``reference_vs_contexts[g]`` whether all chunks together entail reference claim ``g``,
    ``entities_in_contexts[e]`` whether reference entity ``e`` is found in the contexts,
    ``question_similarities[q]`` the similarity of generated question ``q`` to the user input.
    """

    model_config = ConfigDict(extra="forbid")

    question_similarities: list[float] | None = None
    skipped: list[SkippedPiece] | None = Field(
        default=None, description="What the claim extraction set aside as no claim (read by explanations only)."
    )
    errors: dict[str, str] = Field(
        default_factory=dict, description="Evidence part → why the judge could not establish it."
    )

    def has(self, part: EvidencePart) -> bool:
        # A part is a ``StrEnum``: it is its own attribute name (``.value`` costs an enum descriptor call).
        return getattr(self, part) is not None

    def missing(self, parts: frozenset[EvidencePart]) -> frozenset[EvidencePart]:
        return frozenset(part for part in parts if not self.has(part))

    def merged(self, other: Evidence) -> Evidence:
        """This evidence with every part ``other`` has and this one lacks."""
        update = {
            name: getattr(other, name)
            for name in _MERGED_NAMES
            if getattr(self, name) is None and getattr(other, name) is not None
        }
        errors = {**other.errors, **self.errors}
        return self.model_copy(update={**update, "errors": errors})

    def shape_problems(self, n_chunks: int) -> list[str]:
        """Inconsistencies between claim lists and verdict matrices (e.g. a judge answer that came back short)."""
        problems: list[str] = []
        for name, items_name in _INDEXED:
            values: Sequence[object] | None = getattr(self, name)
            if values is None:
                continue
            items: Sequence[object] | None = getattr(self, items_name)
            if items is None:
                problems.append(f"{name} is given but the claims/items it is indexed by are not")
            elif len(values) != len(items):
                problems.append(f"{name} has {len(values)} rows, expected {len(items)}")
        for name in _MATRICES:
            matrix: list[list[Check]] | None = getattr(self, name)
            for index, row in enumerate(matrix or []):
                if len(row) != n_chunks:
                    problems.append(f"{name}[{index}] has {len(row)} verdicts, expected one per chunk ({n_chunks})")
                    break
        return problems
