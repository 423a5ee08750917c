"""How claims are classified from verdicts, shared by every metric that reads response claims.

R = response claims, G = reference claims, K = retrieved chunks. Only ``entailed`` counts as support.
A chunk is *relevant* iff it entails at least one reference claim (RAGChecker's r-chunk).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from ragmetrics_core.evidence import Check, Verdict


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


def relevant_chunks(reference_vs_chunks: Sequence[Sequence[Check]], n_chunks: int) -> list[bool]:
    """relevant_j = ∃ g: chunk_j ⊨ g."""
    relevant: list[bool] = []
    for j in range(n_chunks):
        for row in reference_vs_chunks:
            if row[j].verdict is Verdict.ENTAILED:
                relevant.append(True)
                break
        else:
            relevant.append(False)
    return relevant


def supported_by_contexts(chunk_row: Sequence[Check], joint: Check | None) -> bool:
    """A claim is grounded when some chunk entails it, or all chunks taken together do."""
    return any(check.entailed for check in chunk_row) or (joint is not None and joint.entailed)


def categorize(
    correct: bool,
    chunk_row: Sequence[Check],
    joint: Check | None,
    relevant: Sequence[bool],
) -> ClaimCategory:
    """Classify one response claim.

    An incorrect claim entailed by a relevant chunk is relevant noise; one entailed only by irrelevant
    chunks is irrelevant noise; one entailed by no chunk is a hallucination. A claim entailed only by the
    chunks *jointly* is attributed to the relevant chunks when there are any (they took part in the
    entailment), else to the irrelevant ones, so the partition stays exact.
    """
    by_relevant = by_irrelevant = False
    for j, check in enumerate(chunk_row):  # one pass: this runs for every claim of every scored sample
        if check.verdict is Verdict.ENTAILED:
            if relevant[j]:
                by_relevant = True
            else:
                by_irrelevant = True
    grounded = by_relevant or by_irrelevant or (joint is not None and joint.entailed)
    if correct:
        return ClaimCategory.CORRECT_GROUNDED if grounded else ClaimCategory.CORRECT_SELF_KNOWLEDGE
    if by_relevant:
        return ClaimCategory.NOISE_RELEVANT
    if by_irrelevant:
        return ClaimCategory.NOISE_IRRELEVANT
    if grounded:
        return ClaimCategory.NOISE_RELEVANT if any(relevant) else ClaimCategory.NOISE_IRRELEVANT
    return ClaimCategory.HALLUCINATION
