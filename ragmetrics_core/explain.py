"""Per-claim explanations: which claim, which chunk, which verdict, and the category it landed in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Check, Evidence, EvidencePart, Premise, Verdict, checks_of
from ragmetrics_core.metrics.claims import (
    ClaimCategory,
    categorize,
    category_measures,
    chunk_relevance,
    grounding,
    strength_reader,
    strengths_of,
)
from ragmetrics_core.metrics.options import Scoring
from ragmetrics_core.metrics.strengths import Strengths, Undetermined
from ragmetrics_core.results import ClaimExplanation, EvaluationResult
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

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


def explain(evidence: Evidence, sample: RagSample, strengths: Strengths | None = None) -> list[ClaimExplanation]:
    """One explanation per response claim and per reference claim, from whatever evidence exists.

    ``strengths``: what the metrics of this sample derived from the same evidence (the engine passes its own);
    with graded scoring, the chunks' graded relevance and the response claims' category measures are taken from
    it instead of being derived a second time."""
    n_chunks = len(sample.retrieved_contexts)
    relevance = graded_relevance = None
    relevance_matrix: list[list[Check]] | None = getattr(evidence, _RELEVANCE)
    shared = _graded_measures(strengths) if relevance_matrix is not None else None
    if relevance_matrix is not None:
        relevance = chunk_relevance([strengths_of(row, _VERDICT) for row in relevance_matrix], n_chunks)
        if shared is not None:
            graded_relevance = shared[0]
        else:
            graded_relevance = chunk_relevance([strengths_of(row, _GRADED) for row in relevance_matrix], n_chunks)
    measures = None if shared is None else shared[1]
    explanations: list[ClaimExplanation] = []
    for source, (claims_name, against_name, chunks_name, joint_name) in _SOURCES:
        against, joint = getattr(evidence, against_name), getattr(evidence, joint_name)
        chunks = getattr(evidence, chunks_name)
        # Relevance decides the category of a response claim only (with its verdicts against the reference).
        response = source == "response"
        relevant = (relevance, graded_relevance) if response else (None, None)
        for i, claim in enumerate(getattr(evidence, claims_name) or []):
            explanations.append(_explanation(
                source, i, claim.text, _at(against, i), _row(chunks, i), _at(joint, i), *relevant,
                measures[i] if response and measures is not None and i < len(measures) else None,
            ))
    explanations.extend(_set_aside(evidence, explanations))
    return explanations


def _graded_measures(strengths: Strengths | None) -> tuple[list[float], list[dict[ClaimCategory, float]]] | None:
    """The chunks' graded relevance and the response claims' graded category measures as the metrics derived
    them, when they read the judge's grades (``None`` otherwise, or when the evidence leaves them underivable:
    the explanations then derive what they can claim by claim)."""
    if strengths is None or strengths.options.scoring is not Scoring.GRADED:
        return None
    evidence = strengths.evidence
    if evidence.response_vs_reference is None or evidence.response_vs_chunks is None:
        return None  # no response claim gets a category; the relevance alone is cheap
    try:
        return strengths.relevance, strengths.categories
    except (Undetermined, IndexError):
        return None


class _RowReading(NamedTuple):
    """What one claim's row of chunk checks says: the chunks that entail or contradict it (their rationales,
    numbered from 1 as the judges number them), and the verdict and graded strengths the category is read from."""

    supporting: list[int]
    contradicting: list[int]
    rationales: list[str]
    verdicts: list[float]
    graded: list[float]


def _read_row(row: list[Check] | None) -> _RowReading:
    # One pass over the row: this runs for every check of every scored sample, so the two strength readers
    # (_VERDICT, _GRADED: Check.strength) are inlined.
    reading = _RowReading([], [], [], [], [])
    for j, check in enumerate(row or ()):
        verdict = check.verdict
        decided = 1.0 if verdict is Verdict.ENTAILED else 0.0
        support = check.support
        reading.graded.append(decided if support is None else support)
        reading.verdicts.append(decided)
        if verdict is Verdict.NEUTRAL:
            continue
        (reading.supporting if verdict is Verdict.ENTAILED else reading.contradicting).append(j)
        if check.rationale:
            reading.rationales.append(f"chunk {j + 1}: {check.rationale}")
    return reading


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
    measures: dict[ClaimCategory, float] | None = None,
) -> ClaimExplanation:
    """``relevance`` (the chunks' relevance at the judge's verdicts) is given for response claims, whose category
    it decides together with the verdicts against the reference and the chunks."""
    premise = "reference" if source == "response" else "response"
    rationales = [f"{premise}: {against.rationale}"] if against is not None and against.rationale else []
    chunks = _read_row(row)
    if joint is not None and joint.rationale and not chunks.supporting:
        rationales.append(f"all chunks: {joint.rationale}")
    rationales.extend(chunks.rationales)
    category = shares = None
    if relevance is not None and graded_relevance is not None and against is not None and row is not None:
        category, shares = _categorised(against, chunks, joint, relevance, graded_relevance, measures)
    return _new_explanation({
        "source": source,
        "index": index,
        "text": text,
        "against_reference": None if against is None else against.verdict,
        "supporting_chunks": chunks.supporting,
        "contradicting_chunks": chunks.contradicting,
        "supported_by_contexts_jointly": None if joint is None else joint.entailed,
        "grounding": None if row is None else grounding(chunks.graded, None if joint is None else _GRADED(joint)),
        "category": category,
        "category_shares": shares,
        "rationale": " | ".join(rationales) or None,
    })


def _categorised(
    against: Check, chunks: _RowReading, joint: Check | None, relevance: list[float], graded_relevance: list[float],
    measures: dict[ClaimCategory, float] | None,
) -> tuple[str, dict[str, float]]:
    """A response claim's category at the judge's verdicts, and its graded shares of every category it touches
    (``measures``, when the metrics already derived them)."""
    category = categorize(_VERDICT(against), chunks.verdicts, None if joint is None else _VERDICT(joint), relevance)
    if measures is None:
        measures = category_measures(
            _GRADED(against), chunks.graded, None if joint is None else _GRADED(joint), graded_relevance
        )
    return category.value, {name.value: round(share, 4) for name, share in measures.items() if share > 0}


def _at(values: list[Check] | None, index: int) -> Check | None:
    return values[index] if values is not None and index < len(values) else None


def _row(matrix: list[list[Check]] | None, index: int) -> list[Check] | None:
    return matrix[index] if matrix is not None and index < len(matrix) else None


# ---------------------------------------------------------------- one short explanation per metric

_QUOTE_CHARS = 70
_QUOTED = 2


def _verbatim(text: str) -> str | None:
    return text


Quote = Callable[[str], str | None]
"""How a user text (a claim, an entity) appears in an explanation line: ``None`` leaves it out. Telemetry passes
its redactor's, so lines are read from the real evidence and only what they quote is redacted."""


@dataclass(frozen=True, slots=True)
class _Reading:
    """What every metric's line is read from: the result's claims by source, the result, and the quoting rule."""

    response: list[ClaimExplanation]
    reference: list[ClaimExplanation]
    result: EvaluationResult
    quote: Quote


def metric_explanations(result: EvaluationResult, *, quote: Quote = _verbatim) -> dict[str, str]:
    """Per metric, one short line a person can read beside the score: which claims or chunks count against
    it and why (undetermined metrics: the reason). What telemetry and Phoenix annotations carry.

    ``quote`` is applied to every user text the line quotes (``None`` drops the quote, never the counts), so the
    line must be read from the result *before* its texts and evidence are redacted."""
    claims = [claim for claim in result.explanations if claim.set_aside is None]
    reading = _Reading(
        response=[claim for claim in claims if claim.source == "response"],
        reference=[claim for claim in claims if claim.source == "reference"],
        result=result,
        quote=quote,
    )
    lines: dict[str, str] = {}
    for metric, entry in result.scores.items():
        if entry.score is None:
            lines[metric] = entry.reason
            continue
        reader = _EXPLAINERS.get(metric)
        lines[metric] = reader(reading) if reader is not None else ""
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


def _quoted_texts(claims: list[ClaimExplanation], quote: Quote) -> list[tuple[ClaimExplanation, str]]:
    """The claims whose text may be quoted, with that text (telemetry may leave texts out)."""
    shown = ((claim, quote(claim.text) if claim.text else None) for claim in claims)
    return [(claim, text) for claim, text in shown if text]


def _quote(claims: list[ClaimExplanation], quote: Quote, about: str | None = None) -> str:
    """The first claims quoted, each with the part of its rationale about ``about`` (``reference``, ``response``,
    ``chunk``) when there is one."""
    quotable = _quoted_texts(claims, quote)
    if not quotable:
        return ""
    shown = []
    for claim, text in quotable[:_QUOTED]:
        parts = (claim.rationale or "").split(" | ")
        reason = next((part for part in parts if about is not None and part.startswith(about)), None)
        reason = None if reason is None else quote(reason)
        shown.append(f"'{_cut(text)}'" + (f" ({reason})" if reason else ""))
    more = f" and {len(quotable) - _QUOTED} more" if len(quotable) > _QUOTED else ""
    return "; ".join(shown) + more


def _share(
    failing: list[ClaimExplanation], total: int, what: str, none: str, quote: Quote, about: str | None = None
) -> str:
    if not failing:
        return none
    quoted = _quote(failing, quote, about)
    return f"{len(failing)} of {total} {what}" + (f": {quoted}" if quoted else "")


def _category(*names: str) -> Callable[[_Reading], str]:
    label = " or ".join(name.replace("_", " ") for name in names)

    def read(reading: _Reading) -> str:
        counted = [(claim, _share_in(claim, names)) for claim in reading.response]
        hits = [(claim, share) for claim, share in counted if share > 0]
        if not hits:
            return f"no response claim is {label}"
        # A claim counts in the graded score by its share: it is "{label}" when most of it counts there, and a
        # smaller share is said to count partly, so the line never calls a claim that counts 0.04 "{label}".
        mostly = [(claim, share) for claim, share in hits if share >= _MOSTLY]
        partly = [(claim, share) for claim, share in hits if share < _MOSTLY]
        total = len(reading.response)
        if mostly:
            line = f"{len(mostly)} of {total} response claims {label}" + _shown(mostly, reading.quote)
            return line + (f"; {len(partly)} more count partly" if partly else "")
        return f"no response claim is mostly {label}; partly: {len(partly)} of {total}" + _shown(partly, reading.quote)

    return read


_MOSTLY = 0.5


def _shown(hits: list[tuple[ClaimExplanation, float]], quote: Quote) -> str:
    share_of = {id(claim): share for claim, share in hits}
    shown = "; ".join(
        f"'{_cut(text)}'" + ("" if share_of[id(claim)] >= 1 else f" (counts {share_of[id(claim)]:.2f})")
        for claim, text in _quoted_texts([claim for claim, _ in hits], quote)[:_QUOTED]
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


def _faithfulness(reading: _Reading) -> str:
    response = reading.response
    return _share(_ungrounded(response), len(response), "response claims not supported by the contexts",
                  f"all {len(response)} response claims supported by the contexts", reading.quote, "chunk")


def _precision(reading: _Reading) -> str:
    response = reading.response
    failing = [claim for claim in response if claim.against_reference is not Verdict.ENTAILED]
    return _share(failing, len(response), "response claims not in the reference",
                  f"all {len(response)} response claims in the reference", reading.quote, "reference")


def _recall(reading: _Reading) -> str:
    reference = reading.reference
    failing = [claim for claim in reference if claim.against_reference is not Verdict.ENTAILED]
    return _share(failing, len(reference), "reference claims missing from the response",
                  f"all {len(reference)} reference claims in the response", reading.quote, "response")


def _f1(reading: _Reading) -> str:
    precision, recall = reading.result.score("overall_precision"), reading.result.score("overall_recall")
    if precision is None or recall is None:
        return "harmonic mean of overall precision and recall"
    return f"harmonic mean of precision {precision:.2f} and recall {recall:.2f}"


def _utilization(reading: _Reading) -> str:
    found = [claim for claim in reading.reference if claim.supporting_chunks]
    used = [claim for claim in found if claim.against_reference is Verdict.ENTAILED]
    unused = [claim for claim in found if claim.against_reference is not Verdict.ENTAILED]
    line = f"{len(used)} of the {len(found)} reference claims a chunk supports are in the response"
    quoted = _quote(unused, reading.quote)
    return line + (f"; not used: {quoted}" if quoted else "")


def _entities(reading: _Reading) -> str:
    evidence = reading.result.evidence
    entities = evidence.reference_entities or []
    found = evidence.entities_in_contexts or []
    missing = [entity for entity, hit in zip(entities, found, strict=False) if not hit]
    if not missing:
        return f"all {len(entities)} reference entities found in the contexts"
    line = f"{len(missing)} of {len(entities)} reference entities not in the contexts"
    named = [text for text in map(reading.quote, missing[:5]) if text]
    return line + (f": {', '.join(named)}" if named else "")


def _relevancy(reading: _Reading) -> str:
    questions = reading.result.evidence.generated_questions or []
    if any(question.noncommittal for question in questions):
        return "the response is noncommittal (it declines to answer)"
    similarities = reading.result.evidence.question_similarities or []
    if not similarities:
        return f"mean similarity of the question to {len(questions)} questions the response answers"
    mean = sum(similarities) / len(similarities)
    closeness = "close to" if mean >= _MOSTLY else "far from"
    return (f"the questions the response answers are {closeness} the one asked (mean similarity {mean:.2f} over "
            f"{len(similarities)} generated questions)")


def _ranking(_reading: _Reading) -> str:
    return "average precision of the ranked chunks, a chunk being useful when it supports a claim"


def _claim_recall(reading: _Reading) -> str:
    reference = reading.reference
    failing = [claim for claim in reference if not claim.supporting_chunks]
    return _share(failing, len(reference), "reference claims no chunk supports",
                  "every reference claim is supported by a chunk", reading.quote, "chunk")


def _context_recall(reading: _Reading) -> str:
    reference = reading.reference
    return _share(_ungrounded(reference), len(reference), "reference claims the contexts do not support",
                  f"all {len(reference)} reference claims supported by the contexts", reading.quote, "chunk")


def _chunks(reading: _Reading) -> str:
    relevant = sorted({chunk for claim in reading.reference for chunk in claim.supporting_chunks})
    matrix = reading.result.evidence.reference_vs_chunks
    total = matrix[0] if matrix else []
    named = ", ".join(str(chunk + 1) for chunk in relevant) or "none"
    return f"chunks supporting a reference claim: {named} (of {len(total)})"


_EXPLAINERS: dict[str, Callable[[_Reading], str]] = {
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
