"""Per-claim explanations: which claim, which chunk, which verdict, and the category it landed in."""

from __future__ import annotations

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Check, Evidence, Verdict
from ragmetrics_core.metrics.claims import categorize, chunk_relevance, grounding, strength_reader, strengths_of
from ragmetrics_core.metrics.options import Scoring
from ragmetrics_core.results import ClaimExplanation
from ragmetrics_core.sample import RagSample

# What the judge established, whatever the scoring: its verdicts (the category) and its grade (the grounding).
_VERDICT = strength_reader(Scoring.BINARY)
_GRADED = strength_reader(Scoring.GRADED)
_new_explanation = builder(ClaimExplanation)  # one per claim of every scored sample


def explain(evidence: Evidence, sample: RagSample) -> list[ClaimExplanation]:
    """One explanation per response claim and per reference claim, from whatever evidence exists."""
    n_chunks = len(sample.retrieved_contexts)
    relevance = (
        chunk_relevance([strengths_of(row, _VERDICT) for row in evidence.reference_vs_chunks], n_chunks)
        if evidence.reference_vs_chunks is not None else None
    )
    explanations: list[ClaimExplanation] = []
    for i, claim in enumerate(evidence.response_claims or []):
        row = _row(evidence.response_vs_chunks, i)
        joint = _at(evidence.response_vs_contexts, i)
        against = _at(evidence.response_vs_reference, i)
        category = None
        if against is not None and row is not None and relevance is not None:
            category = categorize(
                _VERDICT(against), strengths_of(row, _VERDICT), None if joint is None else _VERDICT(joint), relevance
            ).value
        explanations.append(_explanation("response", i, claim.text, against, row, joint, category))
    for g, claim in enumerate(evidence.reference_claims or []):
        row = _row(evidence.reference_vs_chunks, g)
        joint = _at(evidence.reference_vs_contexts, g)
        against = _at(evidence.reference_vs_response, g)
        explanations.append(_explanation("reference", g, claim.text, against, row, joint, None))
    return explanations


def _explanation(
    source: str, index: int, text: str, against: Check | None, row: list[Check] | None, joint: Check | None,
    category: str | None,
) -> ClaimExplanation:
    # Chunks are numbered from 1 in text, as the judges' own rationales number them.
    premise = "reference" if source == "response" else "response"
    rationales = [f"{premise}: {against.rationale}"] if against is not None and against.rationale else []
    # One pass over the row (this runs for every claim of every scored sample).
    supporting: list[int] = []
    contradicting: list[int] = []
    chunk_rationales: list[str] = []
    for j, check in enumerate(row or []):
        verdict = check.verdict
        if verdict is Verdict.NEUTRAL:
            continue
        (supporting if verdict is Verdict.ENTAILED else contradicting).append(j)
        if check.rationale:
            chunk_rationales.append(f"chunk {j + 1}: {check.rationale}")
    if joint is not None and joint.rationale and not supporting:
        rationales.append(f"all chunks: {joint.rationale}")
    rationales.extend(chunk_rationales)
    return _new_explanation({
        "source": source,
        "index": index,
        "text": text,
        "against_reference": None if against is None else against.verdict,
        "supporting_chunks": supporting,
        "contradicting_chunks": contradicting,
        "supported_by_contexts_jointly": None if joint is None else joint.entailed,
        "grounding": None if row is None else grounding(
            strengths_of(row, _GRADED), None if joint is None else _GRADED(joint)
        ),
        "category": category,
        "rationale": " | ".join(rationales) or None,
    })


def _at(values: list[Check] | None, index: int) -> Check | None:
    return values[index] if values is not None and index < len(values) else None


def _row(matrix: list[list[Check]] | None, index: int) -> list[Check] | None:
    return matrix[index] if matrix is not None and index < len(matrix) else None
