"""Does a premise entail a claim? Weighted coverage in the best-aligned window (:mod:`.windows`), plus
contradiction signals (:mod:`.conflicts`) and whom the window speaks of (:mod:`.relations`).

A claim is *entailed* when the covered share reaches the threshold of :class:`.knobs.Knobs` and nothing
contradicts it; *contradicted* when the aligned window disagrees on a number or date of the same kind, on
negation, or has the claim's two names in swapped roles; *neutral* otherwise.
"""

from __future__ import annotations

from math import exp

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import VERDICT_STRICTNESS, Check, Verdict
from ragmetrics_core.judges.embedded.conflicts import contradiction, number_found
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.premise import MAX_POSTINGS, Premise
from ragmetrics_core.judges.embedded.relations import another_role, claim_subject, said_of_a_relative
from ragmetrics_core.judges.embedded.terms import Terms
from ragmetrics_core.judges.embedded.windows import (
    Window,
    best_window,
    content_bound,
    content_coverage,
    coverage_bound,
    needed_coverage,
    numbers_may_clash,
    pieces,
)

__all__ = ["MAX_POSTINGS", "Premise", "check"]


def check(claim: Terms, premise: Premise, label: str = "premise") -> Check:
    """The verdict of ``premise`` on ``claim`` with a one-line rationale."""
    total = claim.total
    if total < KNOBS.min_claim_weight:
        return _verdict(Verdict.NEUTRAL, confidence=0.5, rationale="claim has too little content to check", support=0.0)
    if not premise.units:
        return _verdict(Verdict.NEUTRAL, confidence=1.0, rationale=f"{label} is empty", support=0.0)
    bound = coverage_bound(claim, premise, total)
    if bound < KNOBS.contradiction_alignment and not (
        claim.numbers and numbers_may_clash(claim, premise) and content_bound(claim, premise) >= KNOBS.number_alignment
    ):
        # Even with every near match counted, the premise cannot entail or contradict (a disagreeing number alone
        # contradicts only in a window that holds the rest of the claim): no window search. The commonest verdict,
        # built directly: the bound is in [0, 1/2), so the confidence needs no clamp and the support is 0.
        return _new_check({
            "verdict": Verdict.NEUTRAL, "confidence": round(1.0 - bound, 4), "support": 0.0,
            "rationale": (
                f"at most {bound:.0%} of content found in {label}" if bound else f"no content of the claim in {label}"
            ),
        })
    window = best_window(claim, premise, total)
    if window is None:
        return _verdict(Verdict.NEUTRAL, confidence=1.0, rationale=f"no content of the claim in {label}", support=0.0)
    covered = f"{window.coverage:.0%} of content covered by {_describe(window, premise, label)}"
    subject = claim_subject(claim) if claim.numbers else ()
    return _unsupported(claim, premise, window, covered, subject) or _graded_check(
        claim, premise, window, covered, [number.text for number in claim.numbers
                                          if not number_found(number, claim, premise, window, subject)], label
    )


def _unsupported(
    claim: Terms, premise: Premise, window: Window, covered: str, subject: tuple[str, ...]
) -> Check | None:
    """*Contradicted* when the window disagrees with the claim, *neutral* with support 0 when it is aligned yet
    speaks of someone or something else (:mod:`.relations`); ``None`` otherwise."""
    coverage = window.coverage
    aligned = coverage >= KNOBS.contradiction_alignment
    if not aligned and content_coverage(claim, premise, window) < KNOBS.number_alignment:
        return None
    units = list(map(premise.units.__getitem__, window.positions))
    conflict = contradiction(claim, premise, units, coverage, subject)
    if conflict is not None:
        return _verdict(Verdict.CONTRADICTED, confidence=round(min(0.95, 0.5 + coverage / 2), 4),
                        rationale=f"{conflict}; {covered}", support=0.0)
    other = (said_of_a_relative(claim, units) or another_role(claim, units)) if aligned else None
    if other is not None:
        return _verdict(Verdict.NEUTRAL, confidence=round(min(0.95, 0.5 + coverage / 2), 4),
                        rationale=f"{other}; {covered}", support=0.0)
    return None


def _graded_check(
    claim: Terms, premise: Premise, window: Window, covered: str, absent_numbers: list[str], label: str
) -> Check:
    """*Entailed* or *neutral* by the window's coverage, with its graded support."""
    coverage = window.coverage
    total = claim.total
    threshold = needed_coverage(total)
    # One sentence is one piece: the commonest window, counted without sorting its positions.
    piece_count = 1 if len(window.positions) == 1 else pieces(window.positions, premise.group)
    if coverage >= threshold and not absent_numbers:
        matched = [number.text for number in claim.numbers]
        suffix = f"; number {', '.join(matched)} matches" if matched else ""
        return _verdict(Verdict.ENTAILED, confidence=round(coverage, 4), rationale=covered + suffix,
                        support=_graded(_entailed_support(coverage, threshold, total), total, piece_count))
    reason = covered
    if absent_numbers:
        reason += f"; number {', '.join(absent_numbers)} not in {label}"
    elif window.missing:
        reason += f"; missing {', '.join(window.missing[:4])}"
    support = _partial_support(coverage, threshold)
    if absent_numbers:
        support *= KNOBS.absent_number_support
    return _verdict(Verdict.NEUTRAL, confidence=round(1.0 - coverage, 4), rationale=reason,
                    support=_graded(support, total, piece_count))


def _entailed_support(coverage: float, threshold: float, total: float) -> float:
    """1/2 at the entailment threshold rising linearly to 1 at ``KNOBS.full_support_coverage``; the rise shrinks
    with the claim weight the window leaves uncovered beyond ``KNOBS.uncovered_allowance``."""
    rise = min(1.0, (coverage - threshold) / (KNOBS.full_support_coverage - threshold))
    rise *= exp(-KNOBS.uncovered_decay * max(0.0, (1.0 - coverage) * total - KNOBS.uncovered_allowance))
    return round(VERDICT_STRICTNESS + (1.0 - VERDICT_STRICTNESS) * rise, 4)


def _partial_support(coverage: float, threshold: float) -> float:
    """0 up to the alignment a contradiction needs, rising (``KNOBS.neutral_rise_power``) to under 1/2 at threshold."""
    if coverage <= KNOBS.contradiction_alignment:
        return 0.0
    rise = (coverage - KNOBS.contradiction_alignment) / (threshold - KNOBS.contradiction_alignment)
    return min(KNOBS.max_neutral_support, round(VERDICT_STRICTNESS * float(rise ** KNOBS.neutral_rise_power), 4))


def _graded(support: float, claim_weight: float, pieces: int) -> float:
    """Shrink a support toward the verdict boundary (entailed: toward 1/2; neutral: toward 0) when the evidence
    is thin: a claim of little content can match by accident, and a window pieced together from sentences far
    apart says less than one passage that states the claim."""
    factor = min(1.0, claim_weight / KNOBS.specific_claim_weight) * KNOBS.borrowed_piece_factor ** (pieces - 1)
    if support >= VERDICT_STRICTNESS:
        return round(VERDICT_STRICTNESS + (support - VERDICT_STRICTNESS) * factor, 4)
    return round(support * factor, 4)


def _verdict(verdict: Verdict, confidence: float, rationale: str, support: float) -> Check:
    return _new_check({"verdict": verdict, "confidence": min(1.0, max(0.0, confidence)), "rationale": rationale,
                       "support": support})


_new_check = builder(Check)
"""``Check(**fields)``, validated, without pydantic's Python-level ``__init__`` frame (see :mod:`.construct`):
cheaper than ``model_construct`` too, which builds the instance in Python."""

def _describe(window: Window, premise: Premise, label: str) -> str:
    parts: list[str] = []
    by_chunk: dict[int, list[int]] = {}
    for position in sorted(window.positions):
        by_chunk.setdefault(premise.group[position], []).append(position)
    for chunk, positions in by_chunk.items():
        first = premise.group.index(chunk)
        noun = "sentence" if len(positions) == 1 else "sentences"
        where = f"{noun} {', '.join(str(position - first + 1) for position in positions)}"
        parts.append(f"chunk {chunk + 1} {where}" if label == "contexts" else f"{label} {where}")
    return " + ".join(parts)
