"""How claims are classified from verdicts, shared by every metric that reads response claims.

R = response claims, G = reference claims, K = retrieved chunks. Only ``entailed`` counts as support.
A chunk is *relevant* iff it entails at least one reference claim (RAGChecker's r-chunk).

Graded scores. A check's *strength* s ∈ [0, 1] is the share of strictness levels τ ∈ (0, 1] at which it counts
as entailed (τ ≤ s): its graded support, or 1/0 from a plain verdict. Every metric is then the mean, over τ, of
its binary value at τ, all checks of a sample judged at the same τ. For a claim this gives closed forms:
"some chunk entails it" has strength max_j s_j, "it is relevant and entails it" has strength
min(s_j, relevance_j), and the five categories below split (0, 1] into intervals, so they still add up to 1 for
every claim and the identities between the metrics hold for graded scores exactly as for binary ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum

from ragmetrics_core.evidence import Check, Verdict
from ragmetrics_core.metrics.options import Scoring

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

StrengthOf = Callable[[Check], float]


def _verdict_strength(check: Check) -> float:
    return 1.0 if check.verdict is Verdict.ENTAILED else 0.0


def _graded_strength(check: Check) -> float:
    return check.strength


def strength_reader(scoring: Scoring) -> StrengthOf:
    """How a check's strength is read: its graded support, or its verdict alone."""
    return _graded_strength if scoring is Scoring.GRADED else _verdict_strength


class ClaimCategory(StrEnum):
    """Where a response claim stands: correct or not, and what in the retrieval supports it.

    The five categories partition R, which is why faithfulness + hallucination + self_knowledge = 1 and
    noise_relevant + noise_irrelevant + hallucination = 1 − precision hold by construction.
    """

    CORRECT_GROUNDED = "correct_grounded"
    CORRECT_SELF_KNOWLEDGE = "correct_self_knowledge"
    NOISE_RELEVANT = "noise_relevant"
    NOISE_IRRELEVANT = "noise_irrelevant"
    HALLUCINATION = "hallucination"


_CATEGORIES = tuple(ClaimCategory)


def strengths_of(checks: Sequence[Check], strength: StrengthOf) -> list[float]:
    """The strength of every check of a row (or column): a matrix is read once, then every measure uses floats."""
    return [strength(check) for check in checks]


def chunk_relevance(chunk_strengths: Sequence[Sequence[float]], n_chunks: int) -> list[float]:
    """relevance_j = max_g s(chunk_j ⊨ g): the levels at which chunk j entails some reference claim, from the
    strengths ``chunk_strengths[g][j]``."""
    if chunk_strengths and all(len(row) == n_chunks for row in chunk_strengths):
        return [max(column) for column in zip(*chunk_strengths, strict=True)]  # the usual shape: one strength per chunk
    return [max((row[j] for row in chunk_strengths), default=0.0) for j in range(n_chunks)]


def grounding(chunk_strengths: Sequence[float], joint: float | None) -> float:
    """A claim is grounded when some chunk entails it, or all chunks taken together do: max of the strengths."""
    best = max(chunk_strengths, default=0.0)
    return best if joint is None else max(best, joint)


def category_measures(
    correct: float, chunk_strengths: Sequence[float], joint: float | None, relevance: Sequence[float]
) -> dict[ClaimCategory, float]:
    """The share of strictness levels at which a response claim falls in each category (they sum to 1).

    The rule at one level: a correct claim is grounded when some chunk (or all chunks together) entails it,
    else self-knowledge; an incorrect claim entailed by a relevant chunk is relevant noise, one entailed only by
    irrelevant chunks irrelevant noise, one entailed by no chunk a hallucination; a claim entailed only by the
    chunks *jointly* is attributed to the relevant chunks when there are any (they took part in the
    entailment), else to the irrelevant ones, so the partition stays exact.

    Over the levels, with c = s(reference ⊨ r) and g = its grounding: correct and grounded below min(c, g),
    self-knowledge on (g, c], hallucination above max(c, g), noise on (c, g]. Plain verdicts (all strengths
    0 or 1) put the whole measure on one category (:func:`categorize`).
    """
    grounded = max(chunk_strengths, default=0.0)
    if joint is not None:
        grounded = max(grounded, joint)
    measures = dict.fromkeys(_CATEGORIES, 0.0)  # a tuple: iterating the enum class costs more
    measures[ClaimCategory.CORRECT_GROUNDED] = min(correct, grounded)
    measures[ClaimCategory.CORRECT_SELF_KNOWLEDGE] = max(0.0, correct - grounded)
    measures[ClaimCategory.HALLUCINATION] = 1.0 - max(correct, grounded)
    if grounded > correct:
        # Between two consecutive strengths nothing changes: judge each interval at its upper end.
        inside = {x for x in (*chunk_strengths, *relevance) if correct < x < grounded}
        lower = correct
        for level in sorted(inside | {grounded}):
            measures[_noise_at(level, chunk_strengths, relevance)] += level - lower
            lower = level
    return measures


def _noise_at(level: float, chunk_strengths: Sequence[float], relevance: Sequence[float]) -> ClaimCategory:
    """Which noise an incorrect claim is at ``level``, where it is grounded (by a chunk or the joint check)."""
    by_irrelevant = False
    for strength, relevant in zip(chunk_strengths, relevance, strict=True):
        if strength >= level:
            if relevant >= level:
                return ClaimCategory.NOISE_RELEVANT
            by_irrelevant = True
    if by_irrelevant:
        return ClaimCategory.NOISE_IRRELEVANT
    return ClaimCategory.NOISE_RELEVANT if any(r >= level for r in relevance) else ClaimCategory.NOISE_IRRELEVANT


def categorize(
    correct: float, chunk_strengths: Sequence[float], joint: float | None, relevance: Sequence[float]
) -> ClaimCategory:
    """The category of a claim at the judge's own decision: given plain verdicts (strengths 0 or 1), the
    category holding the whole measure."""
    measures = category_measures(correct, chunk_strengths, joint, relevance)
    return max(_CATEGORIES, key=measures.__getitem__)
