"""One sample's evidence read into claim strengths, once per scoring pass.

The metrics of a sample share most of what they read (which response claims are correct, which chunks are
relevant, each claim's category measures); reading them once here keeps a full report at one pass over the
verdicts. A strength is a graded support, or 1/0 from a verdict with ``scoring="binary"`` (see
:mod:`ragmetrics_core.metrics.claims`).
"""

from __future__ import annotations

from functools import cached_property

from ragmetrics_core.evidence import Check, Evidence
from ragmetrics_core.metrics.claims import ClaimCategory, category_measures, chunk_relevance, grounding, strength_reader
from ragmetrics_core.metrics.options import MetricOptions
from ragmetrics_core.sample import RagSample


class Undetermined(Exception):
    """Raised by a reader when the evidence leaves the metric without a denominator."""


def _nonempty(values: list[Check] | list[list[Check]] | None, what: str) -> None:
    if not values:
        raise Undetermined(f"no claims were extracted from the {what}")


class Strengths:
    """Lazily derived claim strengths of one (evidence, sample, options); a property that raises
    :class:`Undetermined` raises it again on every read (nothing is cached for it)."""

    def __init__(self, evidence: Evidence, sample: RagSample, options: MetricOptions) -> None:
        self.evidence = evidence
        self.sample = sample
        self.options = options
        self.strength = strength_reader(options.scoring)

    def _row(self, checks: list[Check] | None, what: str) -> list[float]:
        assert checks is not None
        _nonempty(checks, what)
        return [self.strength(check) for check in checks]

    def _grounded(self, matrix: list[list[Check]] | None, joint: list[Check] | None, what: str) -> list[float]:
        assert matrix is not None
        _nonempty(matrix, what)
        return [grounding(row, None if joint is None else joint[i], self.strength) for i, row in enumerate(matrix)]

    def usefulness(self, matrix: list[list[Check]] | None, what: str) -> list[float]:
        """Per chunk: the levels at which it entails some claim of ``matrix``."""
        assert matrix is not None
        _nonempty(matrix, what)
        if matrix is self.evidence.reference_vs_chunks:
            return self.relevance  # the same maximum over the reference claims, derived once
        return chunk_relevance(matrix, len(self.sample.retrieved_contexts), self.strength)

    @cached_property
    def correct(self) -> list[float]:
        """s(reference ⊨ r) for every response claim."""
        return self._row(self.evidence.response_vs_reference, "response")

    @cached_property
    def recalled(self) -> list[float]:
        """s(response ⊨ g) for every reference claim."""
        return self._row(self.evidence.reference_vs_response, "reference")

    @cached_property
    def relevance(self) -> list[float]:
        """s(chunk j entails some reference claim), RAGChecker's relevant chunks."""
        assert self.evidence.reference_vs_chunks is not None
        return chunk_relevance(self.evidence.reference_vs_chunks, len(self.sample.retrieved_contexts), self.strength)

    @cached_property
    def grounded_response(self) -> list[float]:
        """s(some chunk, or all chunks together, ⊨ r)."""
        return self._grounded(self.evidence.response_vs_chunks, self.evidence.response_vs_contexts, "response")

    @cached_property
    def grounded_reference_by_chunk(self) -> list[float]:
        """s(some chunk ⊨ g): per-chunk verdicts only, as RAGChecker's claim recall reads them."""
        return self._grounded(self.evidence.reference_vs_chunks, None, "reference")

    @cached_property
    def grounded_reference(self) -> list[float]:
        """s(some chunk, or all chunks together, ⊨ g)."""
        return self._grounded(self.evidence.reference_vs_chunks, self.evidence.reference_vs_contexts, "reference")

    @cached_property
    def categories(self) -> list[dict[ClaimCategory, float]]:
        """For every response claim, the share of strictness levels at which it falls in each category."""
        correct = self.correct
        relevance = self.relevance
        matrix = self.evidence.response_vs_chunks
        assert matrix is not None
        joint = self.evidence.response_vs_contexts
        strength = self.strength
        return [
            category_measures(
                correct[i], [strength(check) for check in row], None if joint is None else strength(joint[i]),
                relevance,
            )
            for i, row in enumerate(matrix)
        ]
