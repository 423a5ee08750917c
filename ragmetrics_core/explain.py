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
        explanations.append(_explanation(
            "response", i, claim.text, _at(evidence.response_vs_reference, i), _row(evidence.response_vs_chunks, i),
            _at(evidence.response_vs_contexts, i), relevance,
        ))
    for g, claim in enumerate(evidence.reference_claims or []):
        explanations.append(_explanation(
            "reference", g, claim.text, _at(evidence.reference_vs_response, g), _row(evidence.reference_vs_chunks, g),
            _at(evidence.reference_vs_contexts, g), None,
        ))
    return explanations


def _explanation(
    source: str, index: int, text: str, against: Check | None, row: list[Check] | None, joint: Check | None,
    relevance: list[float] | None,
) -> ClaimExplanation:
    """``relevance`` (the chunks' relevance at the judge's verdicts) is given for response claims, whose category
    it decides together with the verdicts against the reference and the chunks."""
    # Chunks are numbered from 1 in text, as the judges' own rationales number them.
    premise = "reference" if source == "response" else "response"
    rationales = [f"{premise}: {against.rationale}"] if against is not None and against.rationale else []
    # One pass over the row (this runs for every claim of every scored sample): what the chunks say, and the
    # verdict and graded strengths the category and the grounding are read from.
    supporting: list[int] = []
    contradicting: list[int] = []
    chunk_rationales: list[str] = []
    verdicts: list[float] = []
    graded: list[float] = []
    for j, check in enumerate(row or ()):
        graded.append(_GRADED(check))
        verdicts.append(_VERDICT(check))
        verdict = check.verdict
        if verdict is Verdict.NEUTRAL:
            continue
        (supporting if verdict is Verdict.ENTAILED else contradicting).append(j)
        if check.rationale:
            chunk_rationales.append(f"chunk {j + 1}: {check.rationale}")
    if joint is not None and joint.rationale and not supporting:
        rationales.append(f"all chunks: {joint.rationale}")
    rationales.extend(chunk_rationales)
    category = None
    if relevance is not None and against is not None and row is not None:
        category = categorize(
            _VERDICT(against), verdicts, None if joint is None else _VERDICT(joint), relevance
        ).value
    return _new_explanation({
        "source": source,
        "index": index,
        "text": text,
        "against_reference": None if against is None else against.verdict,
        "supporting_chunks": supporting,
        "contradicting_chunks": contradicting,
        "supported_by_contexts_jointly": None if joint is None else joint.entailed,
        "grounding": None if row is None else grounding(graded, None if joint is None else _GRADED(joint)),
        "category": category,
        "rationale": " | ".join(rationales) or None,
    })


def _at(values: list[Check] | None, index: int) -> Check | None:
    return values[index] if values is not None and index < len(values) else None


def _row(matrix: list[list[Check]] | None, index: int) -> list[Check] | None:
    return matrix[index] if matrix is not None and index < len(matrix) else None
