"""Per-claim explanations: which claim, which chunk, which verdict, and the category it landed in."""

from __future__ import annotations

from collections.abc import Callable

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Check, Evidence, EvidencePart, Premise, Verdict, checks_of
from ragmetrics_core.metrics.claims import (
    categorize,
    category_measures,
    chunk_relevance,
    grounding,
    strength_reader,
    strengths_of,
)
from ragmetrics_core.metrics.options import Scoring
from ragmetrics_core.results import ClaimExplanation, EvaluationResult
from ragmetrics_core.sample import RagSample

# What the judge established, whatever the scoring: its verdicts (the category) and its grade (the grounding).
_VERDICT = strength_reader(Scoring.BINARY)
_GRADED = strength_reader(Scoring.GRADED)
_new_explanation = builder(ClaimExplanation)  # one per claim of every scored sample


def _claim_checks(claims: EvidencePart, other_text: Premise) -> tuple[str, str, str, str]:
    """The claim list and its three checked parts (against the other text, each chunk, all chunks), by name."""
    checks = checks_of(claims)
    return claims.value, checks[other_text].value, checks[Premise.EACH_CHUNK].value, checks[Premise.ALL_CHUNKS].value


# What an explanation is read from, for each source of claims: the parts the evidence table lists about them.
_SOURCES = (
    ("response", _claim_checks(EvidencePart.RESPONSE_CLAIMS, Premise.REFERENCE)),
    ("reference", _claim_checks(EvidencePart.REFERENCE_CLAIMS, Premise.RESPONSE)),
)
_RELEVANCE = checks_of(EvidencePart.REFERENCE_CLAIMS)[Premise.EACH_CHUNK].value
"""A chunk is relevant when it entails a reference claim."""


def explain(evidence: Evidence, sample: RagSample) -> list[ClaimExplanation]:
    """One explanation per response claim and per reference claim, from whatever evidence exists."""
    n_chunks = len(sample.retrieved_contexts)
    relevance = graded_relevance = None
    relevance_matrix: list[list[Check]] | None = getattr(evidence, _RELEVANCE)
    if relevance_matrix is not None:
        relevance = chunk_relevance([strengths_of(row, _VERDICT) for row in relevance_matrix], n_chunks)
        graded_relevance = chunk_relevance([strengths_of(row, _GRADED) for row in relevance_matrix], n_chunks)
    explanations: list[ClaimExplanation] = []
    for source, (claims_name, against_name, chunks_name, joint_name) in _SOURCES:
        against, joint = getattr(evidence, against_name), getattr(evidence, joint_name)
        chunks = getattr(evidence, chunks_name)
        # Relevance decides the category of a response claim only (with its verdicts against the reference).
        relevant = (relevance, graded_relevance) if source == "response" else (None, None)
        for i, claim in enumerate(getattr(evidence, claims_name) or []):
            explanations.append(_explanation(
                source, i, claim.text, _at(against, i), _row(chunks, i), _at(joint, i), *relevant
            ))
    explanations.extend(_set_aside(evidence, explanations))
    return explanations


def _set_aside(evidence: Evidence, claims: list[ClaimExplanation]) -> list[ClaimExplanation]:
    """One entry per piece the judge set aside as no claim, numbered after its source's claims: shown with its
    reason (``set_aside``), without a category, counted in no metric."""
    next_index = {source: sum(1 for claim in claims if claim.source == source) for source in ("response", "reference")}
    entries = []
    for piece in evidence.skipped or []:
        index = next_index.get(piece.source, 0)
        next_index[piece.source] = index + 1
        entries.append(_new_explanation({
            "source": piece.source, "index": index, "text": piece.text, "set_aside": piece.reason,
            "rationale": f"not a claim: {piece.reason}",
        }))
    return entries


def _explanation(
    source: str, index: int, text: str, against: Check | None, row: list[Check] | None, joint: Check | None,
    relevance: list[float] | None, graded_relevance: list[float] | None,
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
    category = shares = None
    if relevance is not None and graded_relevance is not None and against is not None and row is not None:
        category = categorize(
            _VERDICT(against), verdicts, None if joint is None else _VERDICT(joint), relevance
        ).value
        measures = category_measures(
            _GRADED(against), graded, None if joint is None else _GRADED(joint), graded_relevance
        )
        shares = {name.value: round(share, 4) for name, share in measures.items() if share > 0}
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
        "category_shares": shares,
        "rationale": " | ".join(rationales) or None,
    })


def _at(values: list[Check] | None, index: int) -> Check | None:
    return values[index] if values is not None and index < len(values) else None


def _row(matrix: list[list[Check]] | None, index: int) -> list[Check] | None:
    return matrix[index] if matrix is not None and index < len(matrix) else None


# ---------------------------------------------------------------- one short explanation per metric

_QUOTE_CHARS = 70
_QUOTED = 2


def metric_explanations(result: EvaluationResult) -> dict[str, str]:
    """Per metric, one short line a person can read beside the score: which claims or chunks count against
    it and why (undetermined metrics: the reason). What telemetry and Phoenix annotations carry."""
    claims = [claim for claim in result.explanations if claim.set_aside is None]
    response = [claim for claim in claims if claim.source == "response"]
    reference = [claim for claim in claims if claim.source == "reference"]
    lines: dict[str, str] = {}
    for metric, entry in result.scores.items():
        if entry.score is None:
            lines[metric] = entry.reason
            continue
        reader = _EXPLAINERS.get(metric)
        lines[metric] = reader(response, reference, result) if reader is not None else ""
        lines[metric] += _aside_note(result.explanations, _CLAIMS_READ.get(metric))
    return lines


_CLAIMS_READ = {
    **dict.fromkeys(("faithfulness", "overall_precision", "hallucination", "self_knowledge",
                     "noise_sensitivity_relevant", "noise_sensitivity_irrelevant"), "response"),
    **dict.fromkeys(("overall_recall", "claim_recall", "context_recall", "context_utilization"), "reference"),
}
"""Which text's claims a metric counts: its line says what of that text was set aside."""


def _aside_note(explanations: list[ClaimExplanation], source: str | None) -> str:
    """"; set aside as no claim: a greeting, a wish" (reasons only: the texts are the user's)."""
    if source is None:
        return ""
    reasons = dict.fromkeys(
        claim.set_aside for claim in explanations if claim.set_aside is not None and claim.source == source
    )
    return f"; not counted as claims: {', '.join(reasons)}" if reasons else ""


def _quote(claims: list[ClaimExplanation], about: str | None = None) -> str:
    """The first claims quoted, each with the part of its rationale about ``about`` (``reference``, ``response``,
    ``chunk``) when there is one."""
    quotable = [claim for claim in claims if claim.text]  # texts are left out when telemetry must not carry them
    if not quotable:
        return ""
    claims = quotable
    shown = []
    for claim in claims[:_QUOTED]:
        text = _cut(claim.text)
        parts = (claim.rationale or "").split(" | ")
        reason = next((part for part in parts if about is not None and part.startswith(about)), None)
        shown.append(f"'{text}'" + (f" ({reason})" if reason else ""))
    more = f" and {len(claims) - _QUOTED} more" if len(claims) > _QUOTED else ""
    return "; ".join(shown) + more


def _share(failing: list[ClaimExplanation], total: int, what: str, none: str, about: str | None = None) -> str:
    if not failing:
        return none
    quoted = _quote(failing, about)
    return f"{len(failing)} of {total} {what}" + (f": {quoted}" if quoted else "")


def _category(*names: str) -> Callable[[list[ClaimExplanation], list[ClaimExplanation], EvaluationResult], str]:
    def read(response: list[ClaimExplanation], _ref: list[ClaimExplanation], _result: EvaluationResult) -> str:
        label = " or ".join(name.replace("_", " ") for name in names)
        counted = [(claim, _share_in(claim, names)) for claim in response]
        hits = [(claim, share) for claim, share in counted if share > 0]
        if not hits:
            return f"no response claim is {label}"
        # A claim counts in the graded score by its share: it is "{label}" when most of it counts there, and a
        # smaller share is said to count partly, so the line never calls a claim that counts 0.04 "{label}".
        mostly = [(claim, share) for claim, share in hits if share >= _MOSTLY]
        partly = [(claim, share) for claim, share in hits if share < _MOSTLY]
        if mostly:
            line = f"{len(mostly)} of {len(response)} response claims {label}" + _shown(mostly)
            return line + (f"; {len(partly)} more count partly" if partly else "")
        return f"no response claim is mostly {label}; partly: {len(partly)} of {len(response)}" + _shown(partly)

    return read


_MOSTLY = 0.5


def _shown(hits: list[tuple[ClaimExplanation, float]]) -> str:
    shown = "; ".join(
        f"'{_cut(claim.text)}'" + ("" if share >= 1 else f" (counts {share:.2f})")
        for claim, share in hits[:_QUOTED] if claim.text
    )
    more = f" and {len(hits) - _QUOTED} more" if len(hits) > _QUOTED and shown else ""
    return f": {shown}{more}" if shown else ""


def _share_in(claim: ClaimExplanation, names: tuple[str, ...]) -> float:
    """How much of the claim counts in these categories (its graded shares, else its one category)."""
    if claim.category_shares is not None:
        return sum(claim.category_shares.get(name, 0.0) for name in names)
    return 1.0 if claim.category in names else 0.0


def _cut(text: str) -> str:
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…"


def _ungrounded(claims: list[ClaimExplanation]) -> list[ClaimExplanation]:
    return [claim for claim in claims if claim.grounding is not None and claim.grounding < 0.5]


def _faithfulness(response: list[ClaimExplanation], _ref: list[ClaimExplanation], _r: EvaluationResult) -> str:
    return _share(_ungrounded(response), len(response), "response claims not supported by the contexts",
                  f"all {len(response)} response claims supported by the contexts", "chunk")


def _precision(response: list[ClaimExplanation], _ref: list[ClaimExplanation], _r: EvaluationResult) -> str:
    failing = [claim for claim in response if claim.against_reference is not Verdict.ENTAILED]
    return _share(failing, len(response), "response claims not in the reference",
                  f"all {len(response)} response claims in the reference", "reference")


def _recall(_resp: list[ClaimExplanation], reference: list[ClaimExplanation], _r: EvaluationResult) -> str:
    failing = [claim for claim in reference if claim.against_reference is not Verdict.ENTAILED]
    return _share(failing, len(reference), "reference claims missing from the response",
                  f"all {len(reference)} reference claims in the response", "response")


def _f1(_resp: list[ClaimExplanation], _ref: list[ClaimExplanation], result: EvaluationResult) -> str:
    precision, recall = result.score("overall_precision"), result.score("overall_recall")
    if precision is None or recall is None:
        return "harmonic mean of overall precision and recall"
    return f"harmonic mean of precision {precision:.2f} and recall {recall:.2f}"


def _utilization(_resp: list[ClaimExplanation], reference: list[ClaimExplanation], _r: EvaluationResult) -> str:
    found = [claim for claim in reference if claim.supporting_chunks]
    used = [claim for claim in found if claim.against_reference is Verdict.ENTAILED]
    unused = [claim for claim in found if claim.against_reference is not Verdict.ENTAILED]
    line = f"{len(used)} of the {len(found)} reference claims a chunk supports are in the response"
    quoted = _quote(unused)
    return line + (f"; not used: {quoted}" if quoted else "")


def _entities(_resp: list[ClaimExplanation], _ref: list[ClaimExplanation], result: EvaluationResult) -> str:
    entities = result.evidence.reference_entities or []
    found = result.evidence.entities_in_contexts or []
    missing = [entity for entity, hit in zip(entities, found, strict=False) if not hit]
    if not missing:
        return f"all {len(entities)} reference entities found in the contexts"
    return f"{len(missing)} of {len(entities)} reference entities not in the contexts: {', '.join(missing[:5])}"


def _relevancy(_resp: list[ClaimExplanation], _ref: list[ClaimExplanation], result: EvaluationResult) -> str:
    questions = result.evidence.generated_questions or []
    if any(question.noncommittal for question in questions):
        return "the response is noncommittal (it declines to answer)"
    similarities = result.evidence.question_similarities or []
    if not similarities:
        return f"mean similarity of the question to {len(questions)} questions the response answers"
    mean = sum(similarities) / len(similarities)
    closeness = "close to" if mean >= _MOSTLY else "far from"
    return (f"the questions the response answers are {closeness} the one asked (mean similarity {mean:.2f} over "
            f"{len(similarities)} generated questions)")


def _ranking(_resp: list[ClaimExplanation], _ref: list[ClaimExplanation], _result: EvaluationResult) -> str:
    return "average precision of the ranked chunks, a chunk being useful when it supports a claim"


def _claim_recall(_resp: list[ClaimExplanation], reference: list[ClaimExplanation], _r: EvaluationResult) -> str:
    failing = [claim for claim in reference if not claim.supporting_chunks]
    return _share(failing, len(reference), "reference claims no chunk supports",
                  "every reference claim is supported by a chunk", "chunk")


def _context_recall(_resp: list[ClaimExplanation], reference: list[ClaimExplanation], _r: EvaluationResult) -> str:
    return _share(_ungrounded(reference), len(reference), "reference claims the contexts do not support",
                  f"all {len(reference)} reference claims supported by the contexts", "chunk")


def _chunks(_resp: list[ClaimExplanation], reference: list[ClaimExplanation], result: EvaluationResult) -> str:
    relevant = sorted({chunk for claim in reference for chunk in claim.supporting_chunks})
    total = result.evidence.reference_vs_chunks[0] if result.evidence.reference_vs_chunks else []
    named = ", ".join(str(chunk + 1) for chunk in relevant) or "none"
    return f"chunks supporting a reference claim: {named} (of {len(total)})"


_EXPLAINERS: dict[str, Callable[[list[ClaimExplanation], list[ClaimExplanation], EvaluationResult], str]] = {
    "faithfulness": _faithfulness,
    "overall_precision": _precision,
    "overall_recall": _recall,
    "overall_f1": _f1,
    "claim_recall": _claim_recall,
    "context_recall": _context_recall,
    "chunk_precision": _chunks,
    "context_utilization": _utilization,
    "context_entity_recall": _entities,
    "response_relevancy": _relevancy,
    "context_precision": _ranking,
    "hallucination": _category("hallucination"),
    "self_knowledge": _category("correct_self_knowledge"),
    "noise_sensitivity_relevant": _category("noise_relevant"),
    "noise_sensitivity_irrelevant": _category("noise_irrelevant"),
}
