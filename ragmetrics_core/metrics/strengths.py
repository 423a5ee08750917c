"""One sample's evidence read into claim strengths, once per scoring pass.

The metrics of a sample share most of what they read (which response claims are correct, which chunks are
relevant, each claim's category measures); reading them once here keeps a full report at one pass over the
verdicts. A strength is a graded support, or 1/0 from a verdict with ``scoring="binary"`` (see
:mod:`ragmetrics_core.metrics.claims`).
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from ragmetrics_core.evidence import Check, Evidence
from ragmetrics_core.metrics.claims import (
    ClaimCategory,
    category_measures,
    chunk_relevance,
    grounding,
    strength_reader,
    strengths_of,
)
from ragmetrics_core.metrics.options import MetricOptions
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class Undetermined(Exception):
    """Raised by a reader when the evidence leaves the metric without a denominator."""


def _nonempty(values: list[Check] | list[list[Check]] | list[list[float]] | None, what: str) -> None:
    if not values:
        raise Undetermined(f"no claims were extracted from the {what}")


class Strengths:
    """Lazily derived claim strengths of one (evidence, sample, options); a property that raises
    :class:`Undetermined` raises it again on every read (nothing is cached for it). Each verdict matrix is read
    into strengths once, and every measure below works on those floats."""

    def __init__(self, evidence: Evidence, sample: RagSample, options: MetricOptions) -> None:
        self.evidence = evidence
        self.sample = sample
        self.options = options
        self.strength = strength_reader(options.scoring)

    def _row(self, checks: list[Check] | None, what: str) -> list[float]:
        assert checks is not None
        _nonempty(checks, what)
        return strengths_of(checks, self.strength)

    def _matrix(self, matrix: list[list[Check]] | None) -> list[list[float]]:
        assert matrix is not None
        strength = self.strength
        return [strengths_of(row, strength) for row in matrix]

    def _column(self, checks: list[Check] | None) -> list[float] | None:
        return None if checks is None else strengths_of(checks, self.strength)

    @cached_property
    def response_chunks(self) -> list[list[float]]:
        """s(chunk j ⊨ r) for every response claim r and chunk j."""
        return self._matrix(self.evidence.response_vs_chunks)

    @cached_property
    def reference_chunks(self) -> list[list[float]]:
        """s(chunk j ⊨ g) for every reference claim g and chunk j."""
        return self._matrix(self.evidence.reference_vs_chunks)

    @cached_property
    def response_joint(self) -> list[float] | None:
        """s(all chunks together ⊨ r), when the judge was asked."""
        return self._column(self.evidence.response_vs_contexts)

    @cached_property
    def reference_joint(self) -> list[float] | None:
        """s(all chunks together ⊨ g), when the judge was asked."""
        return self._column(self.evidence.reference_vs_contexts)

    def _grounded(self, matrix: list[list[float]], joint: list[float] | None, what: str) -> list[float]:
        _nonempty(matrix, what)
        return [grounding(row, None if joint is None else joint[i]) for i, row in enumerate(matrix)]

    def usefulness(self, claims: Literal["reference", "response"]) -> list[float]:
        """Per chunk: the levels at which it entails some claim of the reference or of the response."""
        if claims == "reference":
            _nonempty(self.evidence.reference_vs_chunks, "reference")
            return self.relevance  # the same maximum over the reference claims, derived once
        _nonempty(self.evidence.response_vs_chunks, "response")
        return chunk_relevance(self.response_chunks, len(self.sample.retrieved_contexts))

    @cached_property
    def correct(self) -> list[float]:
        """s(reference ⊨ r) for every response claim."""
        return self._row(self.evidence.response_vs_reference, "response")

    @cached_property
    def recalled(self) -> list[float]:
        """s(response ⊨ g) for every reference claim."""
        return self._row(self.evidence.reference_vs_response, "reference")

    def require_relevance(self) -> None:
        """Raise :class:`Undetermined` when chunk relevance is unknowable: a chunk is relevant when it entails a
        reference claim, so with no reference claims no chunk can be told relevant or irrelevant."""
        if not self.evidence.reference_claims:
            raise Undetermined("no claims were extracted from the reference, so chunk relevance is unknown")

    @cached_property
    def relevance(self) -> list[float]:
        """s(chunk j entails some reference claim), RAGChecker's relevant chunks."""
        return chunk_relevance(self.reference_chunks, len(self.sample.retrieved_contexts))

    @cached_property
    def grounded_response(self) -> list[float]:
        """s(some chunk, or all chunks together, ⊨ r)."""
        return self._grounded(self.response_chunks, self.response_joint, "response")

    @cached_property
    def grounded_reference_by_chunk(self) -> list[float]:
        """s(some chunk ⊨ g): per-chunk verdicts only, as RAGChecker's claim recall reads them."""
        return self._grounded(self.reference_chunks, None, "reference")

    @cached_property
    def grounded_reference(self) -> list[float]:
        """s(some chunk, or all chunks together, ⊨ g)."""
        return self._grounded(self.reference_chunks, self.reference_joint, "reference")

    @cached_property
    def categories(self) -> list[dict[ClaimCategory, float]]:
        """For every response claim, the share of strictness levels at which it falls in each category."""
        correct = self.correct
        relevance = self.relevance
        joint = self.response_joint
        return [
            category_measures(correct[i], row, None if joint is None else joint[i], relevance)
            for i, row in enumerate(self.response_chunks)
        ]
