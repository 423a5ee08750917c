"""Metric specifications: what each metric needs, how it reads the evidence, and which way is better.

Each reader pulls claim strengths out of :class:`Evidence` (graded supports, or 1/0 verdicts with
``scoring="binary"``) and hands them to the pure formula in :mod:`ragmetrics_core.metrics.formulas`;
preconditions (empty inputs) come out as undetermined with a reason, never as 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ragmetrics_core.evidence import Check, Evidence, EvidencePart
from ragmetrics_core.metrics import formulas
from ragmetrics_core.metrics.claims import (
    ClaimCategory,
    category_measures,
    chunk_relevance,
    grounding,
    strength_reader,
)
from ragmetrics_core.metrics.options import ContextPrecisionStrategy, MetricOptions
from ragmetrics_core.results import Direction
from ragmetrics_core.sample import RagSample

P = EvidencePart


class MetricValue(NamedTuple):
    score: float | None
    reason: str


class Undetermined(Exception):
    """Raised inside a reader when the evidence leaves the metric without a denominator."""


@dataclass(frozen=True)
class MetricSpec:
    id: str
    family: str
    direction: Direction
    description: str
    default_threshold: float
    requires: Callable[[RagSample, MetricOptions], list[str]]
    needs: Callable[[RagSample, MetricOptions], frozenset[EvidencePart]]
    optional: frozenset[EvidencePart]
    read: Callable[[Evidence, RagSample, MetricOptions], float]

    def compute(self, evidence: Evidence, sample: RagSample, options: MetricOptions) -> MetricValue:
        missing = self.requires(sample, options)
        if missing:
            return MetricValue(None, f"missing input: {', '.join(missing)}")
        gaps = evidence.missing(self.needs(sample, options))
        if gaps:
            errors = [evidence.errors[p.value] for p in sorted(gaps) if p.value in evidence.errors]
            detail = "; ".join(errors) if errors else ", ".join(sorted(p.value for p in gaps))
            return MetricValue(None, f"evidence unavailable: {detail}")
        try:
            return MetricValue(self.read(evidence, sample, options), "")
        except Undetermined as exc:
            return MetricValue(None, str(exc))


# ---------------------------------------------------------------- input requirements


def _missing(*fields: str) -> Callable[[RagSample, MetricOptions], list[str]]:
    checks: dict[str, Callable[[RagSample], bool]] = {
        "user_input": lambda s: bool(s.user_input.strip()),
        "response": lambda s: bool(s.response.strip()),
        "reference": lambda s: s.has_reference,
        "retrieved_contexts": lambda s: any(c.text.strip() for c in s.retrieved_contexts),
    }

    def requires(sample: RagSample, _options: MetricOptions) -> list[str]:
        return [name for name in fields if not checks[name](sample)]

    return requires


def _static(*parts: EvidencePart) -> Callable[[RagSample, MetricOptions], frozenset[EvidencePart]]:
    frozen = frozenset(parts)
    return lambda _sample, _options: frozen


def _precision_strategy(sample: RagSample, options: MetricOptions) -> ContextPrecisionStrategy:
    if options.context_precision_strategy is ContextPrecisionStrategy.AUTO:
        return ContextPrecisionStrategy.REFERENCE if sample.has_reference else ContextPrecisionStrategy.RESPONSE
    return options.context_precision_strategy


def _context_precision_requires(sample: RagSample, options: MetricOptions) -> list[str]:
    anchor = "reference" if _precision_strategy(sample, options) is ContextPrecisionStrategy.REFERENCE else "response"
    return _missing("retrieved_contexts", anchor)(sample, options)


def _context_precision_needs(sample: RagSample, options: MetricOptions) -> frozenset[EvidencePart]:
    if _precision_strategy(sample, options) is ContextPrecisionStrategy.REFERENCE:
        return frozenset({P.REFERENCE_CLAIMS, P.REFERENCE_VS_CHUNKS})
    return frozenset({P.RESPONSE_CLAIMS, P.RESPONSE_VS_CHUNKS})


# ---------------------------------------------------------------- evidence readers


def _nonempty(values: list[Check] | list[list[Check]] | None, what: str) -> None:
    if not values:
        raise Undetermined(f"no claims were extracted from the {what}")


def _strengths(checks: list[Check] | None, what: str, o: MetricOptions) -> list[float]:
    assert checks is not None
    _nonempty(checks, what)
    strength = strength_reader(o.scoring)
    return [strength(check) for check in checks]


def _correct(e: Evidence, o: MetricOptions) -> list[float]:
    return _strengths(e.response_vs_reference, "response", o)


def _recalled(e: Evidence, o: MetricOptions) -> list[float]:
    return _strengths(e.reference_vs_response, "reference", o)


def _grounded(matrix: list[list[Check]] | None, joint: list[Check] | None, what: str, o: MetricOptions) -> list[float]:
    assert matrix is not None
    _nonempty(matrix, what)
    strength = strength_reader(o.scoring)
    return [grounding(row, None if joint is None else joint[i], strength) for i, row in enumerate(matrix)]


def _grounded_reference_by_chunk(e: Evidence, o: MetricOptions) -> list[float]:
    return _grounded(e.reference_vs_chunks, None, "reference", o)


def _relevance(e: Evidence, s: RagSample, o: MetricOptions) -> list[float]:
    assert e.reference_vs_chunks is not None
    return chunk_relevance(e.reference_vs_chunks, len(s.retrieved_contexts), strength_reader(o.scoring))


def category_measures_of(
    evidence: Evidence, sample: RagSample, options: MetricOptions
) -> list[dict[ClaimCategory, float]]:
    """For every response claim, the share of strictness levels at which it falls in each category."""
    correct = _correct(evidence, options)
    assert evidence.response_vs_chunks is not None
    relevance = _relevance(evidence, sample, options)
    strength = strength_reader(options.scoring)
    joint = evidence.response_vs_contexts
    return [
        category_measures(
            correct[i], [strength(check) for check in row], None if joint is None else strength(joint[i]), relevance
        )
        for i, row in enumerate(evidence.response_vs_chunks)
    ]


def _precision(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.overall_precision(_correct(e, o))


def _recall(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.overall_recall(_recalled(e, o))


def _f1(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.overall_f1(_correct(e, o), _recalled(e, o))


def _claim_recall(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.claim_recall(_grounded_reference_by_chunk(e, o))


def _chunk_precision(e: Evidence, s: RagSample, o: MetricOptions) -> float:
    return formulas.chunk_precision(_relevance(e, s, o))


def _context_utilization(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    value = formulas.context_utilization(_grounded_reference_by_chunk(e, o), _recalled(e, o))
    if value is None:
        raise Undetermined("no reference claim is supported by any chunk, so none could be utilised")
    return value


def _category_reader(*wanted: ClaimCategory) -> Callable[[Evidence, RagSample, MetricOptions], float]:
    def read(e: Evidence, s: RagSample, o: MetricOptions) -> float:
        return formulas.category_share(category_measures_of(e, s, o), *wanted)

    return read


def _faithfulness(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.faithfulness(_grounded(e.response_vs_chunks, e.response_vs_contexts, "response", o))


def _context_precision(e: Evidence, s: RagSample, o: MetricOptions) -> float:
    if _precision_strategy(s, o) is ContextPrecisionStrategy.REFERENCE:
        matrix, what = e.reference_vs_chunks, "reference"
    else:
        matrix, what = e.response_vs_chunks, "response"
    assert matrix is not None
    _nonempty(matrix, what)
    # A chunk is useful when it entails some claim: the same max-over-claims as chunk relevance.
    return formulas.average_precision(chunk_relevance(matrix, len(s.retrieved_contexts), strength_reader(o.scoring)))


def _context_recall(e: Evidence, _s: RagSample, o: MetricOptions) -> float:
    return formulas.claim_recall(_grounded(e.reference_vs_chunks, e.reference_vs_contexts, "reference", o))


def _entity_recall(e: Evidence, _s: RagSample, _o: MetricOptions) -> float:
    if not e.reference_entities:
        raise Undetermined("no entities were found in the reference")
    assert e.entities_in_contexts is not None
    return formulas.entity_recall(e.entities_in_contexts)


def _response_relevancy(e: Evidence, _s: RagSample, _o: MetricOptions) -> float:
    if not e.generated_questions:
        raise Undetermined("no questions could be generated from the response")
    noncommittal = any(question.noncommittal for question in e.generated_questions)
    assert e.question_similarities is not None
    return formulas.response_relevancy(e.question_similarities, noncommittal)


# ---------------------------------------------------------------- the table

_CORRECTNESS = (P.RESPONSE_CLAIMS, P.RESPONSE_VS_REFERENCE)
_RELEVANCE = (P.REFERENCE_CLAIMS, P.REFERENCE_VS_CHUNKS)
_CATEGORIES = (*_CORRECTNESS, P.RESPONSE_VS_CHUNKS, *_RELEVANCE)
_R_JOINT = frozenset({P.RESPONSE_VS_CONTEXTS})
_NONE: frozenset[EvidencePart] = frozenset()
HIGHER = Direction.HIGHER_IS_BETTER
LOWER = Direction.LOWER_IS_BETTER
_RRC = _missing("response", "reference", "retrieved_contexts")


def _spec(
    metric_id: str, family: str, direction: Direction, description: str, requires: Callable[..., list[str]],
    needs: Callable[..., frozenset[EvidencePart]], read: Callable[[Evidence, RagSample, MetricOptions], float],
    optional: frozenset[EvidencePart] = _NONE,
) -> MetricSpec:
    threshold = 0.5 if direction is HIGHER else 0.3
    return MetricSpec(metric_id, family, direction, description, threshold, requires, needs, optional, read)


METRICS: dict[str, MetricSpec] = {
    spec.id: spec
    for spec in (
        _spec("overall_precision", "overall", HIGHER, "Share of response claims entailed by the reference.",
              _missing("response", "reference"), _static(*_CORRECTNESS), _precision),
        _spec("overall_recall", "overall", HIGHER, "Share of reference claims entailed by the response.",
              _missing("response", "reference"), _static(P.REFERENCE_CLAIMS, P.REFERENCE_VS_RESPONSE), _recall),
        _spec("overall_f1", "overall", HIGHER, "Harmonic mean of overall precision and recall (0 if either is 0).",
              _missing("response", "reference"),
              _static(*_CORRECTNESS, P.REFERENCE_CLAIMS, P.REFERENCE_VS_RESPONSE), _f1),
        _spec("claim_recall", "retriever", HIGHER, "Share of reference claims entailed by at least one chunk.",
              _missing("reference", "retrieved_contexts"), _static(*_RELEVANCE), _claim_recall),
        _spec("chunk_precision", "retriever", HIGHER,
              "Share of chunks that entail at least one reference claim (RAGChecker's context precision).",
              _missing("reference", "retrieved_contexts"), _static(*_RELEVANCE), _chunk_precision),
        _spec("context_utilization", "generator", HIGHER,
              "Of the reference claims some chunk entails, the share the response also entails.", _RRC,
              _static(*_RELEVANCE, P.REFERENCE_VS_RESPONSE), _context_utilization),
        _spec("noise_sensitivity_relevant", "generator", LOWER,
              "Share of response claims that are incorrect and entailed by a relevant chunk.", _RRC,
              _static(*_CATEGORIES), _category_reader(ClaimCategory.NOISE_RELEVANT), _R_JOINT),
        _spec("noise_sensitivity_irrelevant", "generator", LOWER,
              "Share of response claims that are incorrect and entailed only by irrelevant chunks.", _RRC,
              _static(*_CATEGORIES), _category_reader(ClaimCategory.NOISE_IRRELEVANT), _R_JOINT),
        _spec("hallucination", "generator", LOWER,
              "Share of response claims that are incorrect and entailed by no chunk.", _RRC,
              _static(*_CATEGORIES), _category_reader(ClaimCategory.HALLUCINATION), _R_JOINT),
        _spec("self_knowledge", "generator", HIGHER,
              "Share of response claims that are correct but entailed by no chunk.", _RRC,
              _static(*_CATEGORIES), _category_reader(ClaimCategory.CORRECT_SELF_KNOWLEDGE), _R_JOINT),
        _spec("faithfulness", "generator", HIGHER, "Share of response claims entailed by the retrieved contexts.",
              _missing("response", "retrieved_contexts"), _static(P.RESPONSE_CLAIMS, P.RESPONSE_VS_CHUNKS),
              _faithfulness, _R_JOINT),
        _spec("context_precision", "ragas", HIGHER,
              "Average precision of the ranked chunks, a chunk being useful when it entails a reference claim "
              "(or a response claim without reference).",
              _context_precision_requires, _context_precision_needs, _context_precision),
        _spec("context_recall", "ragas", HIGHER, "Share of reference claims attributable to the retrieved contexts.",
              _missing("reference", "retrieved_contexts"), _static(*_RELEVANCE), _context_recall,
              frozenset({P.REFERENCE_VS_CONTEXTS})),
        _spec("context_entity_recall", "ragas", HIGHER, "Share of reference entities also found in the contexts.",
              _missing("reference", "retrieved_contexts"),
              _static(P.REFERENCE_ENTITIES, P.ENTITIES_IN_CONTEXTS), _entity_recall),
        _spec("response_relevancy", "ragas", HIGHER,
              "Mean similarity of the question to questions generated from the response; 0 if noncommittal.",
              _missing("user_input", "response"), _static(P.GENERATED_QUESTIONS, P.QUESTION_SIMILARITIES),
              _response_relevancy),
    )
}
