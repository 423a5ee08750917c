"""Metric specifications: what each metric needs, how it reads the evidence, and which way is better.

Each reader takes the claim strengths a :class:`Strengths` derives from the evidence (graded supports, or 1/0
verdicts with ``scoring="binary"``) and hands them to the pure formula in
:mod:`ragmetrics_core.metrics.formulas`; preconditions (empty inputs) come out as undetermined with a reason,
never as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ragmetrics_core.evidence import Evidence, EvidencePart
from ragmetrics_core.metrics import formulas
from ragmetrics_core.metrics.claims import ClaimCategory
from ragmetrics_core.metrics.options import ContextPrecisionStrategy, MetricOptions
from ragmetrics_core.metrics.strengths import Strengths, Undetermined
from ragmetrics_core.results import Direction
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

P = EvidencePart


class MetricValue(NamedTuple):
    score: float | None
    reason: str


@dataclass(frozen=True)
class MetricSpec:
    id: str
    family: str
    direction: Direction
    description: str
    default_threshold: float | None
    """The pass/fail bound; ``None`` for a metric with no plainly good direction (no label unless a threshold is
    configured)."""
    requires: Callable[[RagSample, MetricOptions], list[str]]
    needs: Callable[[RagSample, MetricOptions], frozenset[EvidencePart]]
    optional: frozenset[EvidencePart]
    read: Callable[[Strengths], float]

    def compute(
        self, evidence: Evidence, sample: RagSample, options: MetricOptions, strengths: Strengths | None = None
    ) -> MetricValue:
        """The metric's value, or undetermined with a reason. ``strengths`` shares what the metrics of one
        sample derive from its evidence (the engine passes one per sample)."""
        missing = self.requires(sample, options)
        if missing:
            return unmet_inputs(missing)
        gaps = evidence.missing(self.needs(sample, options))
        return self.value(evidence, gaps, strengths or Strengths(evidence, sample, options))

    def label(self, score: float | None, thresholds: Mapping[str, float]) -> tuple[str | None, float | None]:
        """``pass``/``fail`` for ``score`` against the configured or default threshold (and that threshold);
        no label for an undetermined score or a metric without a threshold."""
        threshold = thresholds.get(self.id, self.default_threshold)
        if score is None or threshold is None:
            return None, threshold
        passed = score >= threshold if self.direction is Direction.HIGHER_IS_BETTER else score <= threshold
        return ("pass" if passed else "fail"), threshold

    def value(self, evidence: Evidence, gaps: frozenset[EvidencePart], strengths: Strengths) -> MetricValue:
        """:meth:`compute` once the sample's inputs are known to be present and ``gaps`` (the parts of
        :attr:`needs` the evidence lacks) is known: the engine establishes both once per sample."""
        if gaps:
            return evidence_unavailable(evidence, gaps)
        try:
            return MetricValue(self.read(strengths), "")
        except Undetermined as exc:
            return MetricValue(None, str(exc))


def evidence_unavailable(evidence: Evidence, gaps: frozenset[EvidencePart]) -> MetricValue:
    """Undetermined because the evidence lacks ``gaps``: the judge's errors for them, else their names."""
    errors = [evidence.errors[p.value] for p in sorted(gaps) if p.value in evidence.errors]
    detail = "; ".join(errors) if errors else ", ".join(sorted(p.value for p in gaps))
    return MetricValue(None, f"evidence unavailable: {detail}")


def unmet_inputs(missing: list[str]) -> MetricValue:
    """Undetermined because the sample lacks the inputs ``missing`` (what :attr:`MetricSpec.requires` found)."""
    return MetricValue(None, f"missing input: {', '.join(missing)}")


# ---------------------------------------------------------------- input requirements


_REQUIREMENTS: dict[tuple[str, ...], Callable[[RagSample, MetricOptions], list[str]]] = {}


def _missing(*fields: str) -> Callable[[RagSample, MetricOptions], list[str]]:
    """The input test of ``fields``, one function per tuple of fields: the engine runs each distinct test once
    per sample, however many metrics share it (only this module's table calls this, so the dict stays small)."""
    known = _REQUIREMENTS.get(fields)
    if known is not None:
        return known
    checks: dict[str, Callable[[RagSample], bool]] = {
        "user_input": lambda s: bool(s.user_input.strip()),
        "response": lambda s: bool(s.response.strip()),
        "reference": lambda s: s.has_reference,
        "retrieved_contexts": lambda s: any(c.text.strip() for c in s.retrieved_contexts),
    }

    def requires(sample: RagSample, _options: MetricOptions) -> list[str]:
        return [name for name in fields if not checks[name](sample)]

    _REQUIREMENTS[fields] = requires
    return requires


def _precision_strategy(sample: RagSample, options: MetricOptions) -> ContextPrecisionStrategy:
    if options.context_precision_strategy is ContextPrecisionStrategy.AUTO:
        return ContextPrecisionStrategy.REFERENCE if sample.has_reference else ContextPrecisionStrategy.RESPONSE
    return options.context_precision_strategy


_CONTEXTS_AND_REFERENCE = _missing("retrieved_contexts", "reference")
_CONTEXTS_AND_RESPONSE = _missing("retrieved_contexts", "response")


def _context_precision_requires(sample: RagSample, options: MetricOptions) -> list[str]:
    if _precision_strategy(sample, options) is ContextPrecisionStrategy.REFERENCE:
        return _CONTEXTS_AND_REFERENCE(sample, options)
    return _CONTEXTS_AND_RESPONSE(sample, options)


def _context_precision_needs(sample: RagSample, options: MetricOptions) -> frozenset[EvidencePart]:
    if _precision_strategy(sample, options) is ContextPrecisionStrategy.REFERENCE:
        return frozenset({P.REFERENCE_CLAIMS, P.REFERENCE_VS_CHUNKS})
    return frozenset({P.RESPONSE_CLAIMS, P.RESPONSE_VS_CHUNKS})


# ---------------------------------------------------------------- declaring a metric

METRICS: dict[str, MetricSpec] = {}
"""Every metric, in declaration order (the order of reports): each is declared once, by :func:`metric` on its
reader below."""

HIGHER = Direction.HIGHER_IS_BETTER
LOWER = Direction.LOWER_IS_BETTER
Needs = frozenset[EvidencePart] | Callable[[RagSample, MetricOptions], frozenset[EvidencePart]]


def check_metric_ids(ids: Iterable[str]) -> None:
    """Refuse ids that name no metric, naming them and the metrics there are (the API's and the commands' check)."""
    if isinstance(ids, str):  # a str is an Iterable[str] too: it would be read letter by letter
        raise TypeError(f"metrics takes a list of metric ids, e.g. metrics=[{ids!r}], not a string")
    unknown = [metric for metric in ids if metric not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")


def metric(
    metric_id: str,
    family: str,
    direction: Direction,
    requires: Callable[[RagSample, MetricOptions], list[str]],
    needs: Needs,
    optional: frozenset[EvidencePart] = frozenset(),
    labelled: bool = True,
) -> Callable[[Callable[[Strengths], float]], Callable[[Strengths], float]]:
    """Register the decorated reader as metric ``metric_id``; its docstring is the metric's description.

    ``needs``: the evidence parts it reads (or a function of the sample and options for a metric whose needs
    depend on them); ``optional``: parts it also reads when the judge computes them anyway; ``labelled``: whether it
    gets a default pass/fail threshold (0.5 for higher-is-better, 0.3 for lower-is-better).
    """

    def register(read: Callable[[Strengths], float]) -> Callable[[Strengths], float]:
        if metric_id in METRICS:
            raise ValueError(f"metric {metric_id!r} is declared twice")
        threshold = None if not labelled else 0.5 if direction is HIGHER else 0.3
        METRICS[metric_id] = MetricSpec(
            metric_id, family, direction, " ".join((read.__doc__ or "").split()), threshold, requires,
            _static(needs) if isinstance(needs, frozenset) else needs, optional, read,
        )
        return read

    return register


def _static(parts: frozenset[EvidencePart]) -> Callable[[RagSample, MetricOptions], frozenset[EvidencePart]]:
    return lambda _sample, _options: parts


# ---------------------------------------------------------------- the metrics

_CORRECTNESS = frozenset({P.RESPONSE_CLAIMS, P.RESPONSE_VS_REFERENCE})
_RECALL = frozenset({P.REFERENCE_CLAIMS, P.REFERENCE_VS_RESPONSE})
_RELEVANCE = frozenset({P.REFERENCE_CLAIMS, P.REFERENCE_VS_CHUNKS})
_CATEGORIES = _CORRECTNESS | _RELEVANCE | {P.RESPONSE_VS_CHUNKS}
_R_JOINT = frozenset({P.RESPONSE_VS_CONTEXTS})
_RRC = _missing("response", "reference", "retrieved_contexts")


@metric("overall_precision", "overall", HIGHER, _missing("response", "reference"), _CORRECTNESS)
def _precision(v: Strengths) -> float:
    """Share of response claims entailed by the reference."""
    return formulas.overall_precision(v.correct)


@metric("overall_recall", "overall", HIGHER, _missing("response", "reference"), _RECALL)
def _recall(v: Strengths) -> float:
    """Share of reference claims entailed by the response."""
    return formulas.overall_recall(v.recalled)


@metric("overall_f1", "overall", HIGHER, _missing("response", "reference"), _CORRECTNESS | _RECALL)
def _f1(v: Strengths) -> float:
    """Harmonic mean of overall precision and recall (0 if either is 0)."""
    return formulas.overall_f1(v.correct, v.recalled)


@metric("claim_recall", "retriever", HIGHER, _missing("reference", "retrieved_contexts"), _RELEVANCE)
def _claim_recall(v: Strengths) -> float:
    """Share of reference claims entailed by at least one chunk."""
    return formulas.claim_recall(v.grounded_reference_by_chunk)


@metric("chunk_precision", "retriever", HIGHER, _missing("reference", "retrieved_contexts"), _RELEVANCE)
def _chunk_precision(v: Strengths) -> float:
    """Share of chunks that entail at least one reference claim (RAGChecker's context precision)."""
    v.require_relevance()
    return formulas.chunk_precision(v.relevance)


@metric("context_utilization", "generator", HIGHER, _RRC, _RELEVANCE | {P.REFERENCE_VS_RESPONSE})
def _context_utilization(v: Strengths) -> float:
    """Of the reference claims some chunk entails, the share the response also entails."""
    value = formulas.context_utilization(v.grounded_reference_by_chunk, v.recalled)
    if value is None:
        raise Undetermined("no reference claim is supported by any chunk, so none could be utilised")
    return value


def _category_share(v: Strengths, category: ClaimCategory) -> float:
    # Noise is split by chunk relevance; hallucination and self-knowledge do not read it.
    if category in (ClaimCategory.NOISE_RELEVANT, ClaimCategory.NOISE_IRRELEVANT):
        v.require_relevance()
    return formulas.category_share(v.categories, category)


@metric("noise_sensitivity_relevant", "generator", LOWER, _RRC, _CATEGORIES, _R_JOINT)
def _noise_relevant(v: Strengths) -> float:
    """Share of response claims that are incorrect and entailed by a relevant chunk."""
    return _category_share(v, ClaimCategory.NOISE_RELEVANT)


@metric("noise_sensitivity_irrelevant", "generator", LOWER, _RRC, _CATEGORIES, _R_JOINT)
def _noise_irrelevant(v: Strengths) -> float:
    """Share of response claims that are incorrect and entailed only by irrelevant chunks."""
    return _category_share(v, ClaimCategory.NOISE_IRRELEVANT)


@metric("hallucination", "generator", LOWER, _RRC, _CATEGORIES, _R_JOINT)
def _hallucination(v: Strengths) -> float:
    """Share of response claims that are incorrect and entailed by no chunk."""
    return _category_share(v, ClaimCategory.HALLUCINATION)


# Right but ungrounded: neither plainly good nor bad for a RAG answer, so no default label.
@metric("self_knowledge", "generator", HIGHER, _RRC, _CATEGORIES, _R_JOINT, labelled=False)
def _self_knowledge(v: Strengths) -> float:
    """Share of response claims that are correct but entailed by no chunk."""
    return _category_share(v, ClaimCategory.CORRECT_SELF_KNOWLEDGE)


@metric(
    "faithfulness", "generator", HIGHER, _missing("response", "retrieved_contexts"),
    frozenset({P.RESPONSE_CLAIMS, P.RESPONSE_VS_CHUNKS}), _R_JOINT,
)
def _faithfulness(v: Strengths) -> float:
    """Share of response claims entailed by the retrieved contexts."""
    return formulas.faithfulness(v.grounded_response)


@metric("context_precision", "ragas", HIGHER, _context_precision_requires, _context_precision_needs)
def _context_precision(v: Strengths) -> float:
    """Average precision of the ranked chunks, a chunk being useful when it entails a reference claim (or a
    response claim without reference)."""
    # A chunk is useful when it entails some claim: the same max-over-claims as chunk relevance.
    if _precision_strategy(v.sample, v.options) is ContextPrecisionStrategy.REFERENCE:
        return formulas.average_precision(v.usefulness("reference"))
    return formulas.average_precision(v.usefulness("response"))


@metric(
    "context_recall", "ragas", HIGHER, _missing("reference", "retrieved_contexts"), _RELEVANCE,
    frozenset({P.REFERENCE_VS_CONTEXTS}),
)
def _context_recall(v: Strengths) -> float:
    """Share of reference claims attributable to the retrieved contexts."""
    return formulas.claim_recall(v.grounded_reference)


@metric(
    "context_entity_recall", "ragas", HIGHER, _missing("reference", "retrieved_contexts"),
    frozenset({P.REFERENCE_ENTITIES, P.ENTITIES_IN_CONTEXTS}),
)
def _entity_recall(v: Strengths) -> float:
    """Share of reference entities also found in the contexts."""
    e = v.evidence
    if not e.reference_entities:
        raise Undetermined("no entities were found in the reference")
    assert e.entities_in_contexts is not None
    return formulas.entity_recall(e.entities_in_contexts)


@metric(
    "response_relevancy", "ragas", HIGHER, _missing("user_input", "response"),
    frozenset({P.GENERATED_QUESTIONS, P.QUESTION_SIMILARITIES}),
)
def _response_relevancy(v: Strengths) -> float:
    """Mean similarity of the question to questions generated from the response; 0 if noncommittal."""
    e = v.evidence
    if not e.generated_questions:
        raise Undetermined("no questions could be generated from the response")
    noncommittal = any(question.noncommittal for question in e.generated_questions)
    assert e.question_similarities is not None
    return formulas.response_relevancy(e.question_similarities, noncommittal)
