"""The metric formulas as short pure functions over claim strengths.

Notation: R = response claims, G = reference claims, K = retrieved chunks (in rank order);
``correct[i]`` = s(reference ⊨ R_i); ``recalled[g]`` = s(response ⊨ G_g); ``grounded[g]`` = s(contexts ⊨ G_g);
``relevance[j]`` = s(chunk j entails some G_g). A strength s ∈ [0, 1] is the share of strictness levels at which
the statement holds (see :mod:`ragmetrics_core.metrics.claims`); with plain verdicts every strength is 1 or 0 and
each formula is its textbook binary form. Shares of claims are means of strengths; a formula that is not a
share (F1, a ratio, average precision) is evaluated at every level and averaged over the levels.
Every function returns a value in [0, 1]; the caller has already checked that the denominator is non-empty.
Sources: RAGChecker (Ru et al., 2024, arXiv:2408.08067, §3.3) for the diagnostic metrics; ragas'
documentation for context precision (average precision), context recall, context entity recall and
response relevancy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ragmetrics_core.metrics.claims import ClaimCategory

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def share(strengths: Sequence[float]) -> float:
    """Σ s(x) / |x|: the share of items that hold, averaged over strictness levels."""
    return sum(strengths) / len(strengths)


def share_at(strengths: Sequence[float], level: float) -> float:
    """|{x : s(x) ≥ τ}| / |x|: the share that holds at strictness τ."""
    return sum(1 for strength in strengths if strength >= level) / len(strengths)


def over_levels(strengths: Iterable[float], at_level: Callable[[float], float | None]) -> float | None:
    """mean over τ ∈ (0, 1] of m(τ), over the levels where m is determined; None where it never is.

    m may change only where τ passes a strength, so it is evaluated once per interval (at its upper end).
    """
    total = determined = lower = 0.0
    for level in sorted({strength for strength in strengths if 0.0 < strength < 1.0} | {1.0}):
        value = at_level(level)
        if value is not None:
            total += value * (level - lower)
            determined += level - lower
        lower = level
    return total / determined if determined else None


def overall_precision(correct: Sequence[float]) -> float:
    """precision = |{r ∈ R : reference ⊨ r}| / |R|."""
    return share(correct)


def overall_recall(recalled: Sequence[float]) -> float:
    """recall = |{g ∈ G : response ⊨ g}| / |G|."""
    return share(recalled)


def f1(precision: float, recall: float) -> float:
    """F1 = 2PR / (P + R), and 0 when P or R is 0 (RAGChecker's per-sample rule)."""
    if precision == 0 or recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def overall_f1(correct: Sequence[float], recalled: Sequence[float]) -> float:
    """F1 of the reported precision and recall: under graded scoring each is averaged over τ first, so the F1
    shown beside them is always their harmonic mean (with plain verdicts this is RAGChecker's per-sample F1)."""
    return f1(overall_precision(correct), overall_recall(recalled))


def claim_recall(grounded: Sequence[float]) -> float:
    """claim recall = |{g ∈ G : ∃ chunk ⊨ g}| / |G|."""
    return share(grounded)


def chunk_precision(relevance: Sequence[float]) -> float:
    """chunk precision = |{chunk_j : ∃ g ∈ G, chunk_j ⊨ g}| / K."""
    return share(relevance)


def context_utilization(grounded: Sequence[float], recalled: Sequence[float]) -> float | None:
    """utilization = |{g : contexts ⊨ g ∧ response ⊨ g}| / |{g : contexts ⊨ g}|, averaged over the levels at
    which some g is grounded; None when none ever is."""

    def at_level(level: float) -> float | None:
        hits = [g for g, strength in enumerate(grounded) if strength >= level]
        return sum(1 for g in hits if recalled[g] >= level) / len(hits) if hits else None

    return over_levels([*grounded, *recalled], at_level)


def category_share(measures: Sequence[Mapping[ClaimCategory, float]], *wanted: ClaimCategory) -> float:
    """|{r ∈ R : category(r) ∈ wanted}| / |R| — noise sensitivity, hallucination, self-knowledge."""
    return share([sum(claim[category] for category in wanted) for claim in measures])


def faithfulness(grounded: Sequence[float]) -> float:
    """faithfulness = |{r ∈ R : contexts ⊨ r}| / |R|."""
    return share(grounded)


def average_precision_at(useful: Sequence[bool]) -> float:
    """AP = Σ_k (precision@k · useful_k) / |{k : useful_k}|, and 0 when no chunk is useful."""
    hits = 0
    total = 0.0
    for rank, flag in enumerate(useful, start=1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def average_precision(usefulness: Sequence[float]) -> float:
    """AP over the ranked chunks, a chunk being useful at τ when its usefulness reaches τ; averaged over τ."""
    value = over_levels(usefulness, lambda level: average_precision_at([u >= level for u in usefulness]))
    assert value is not None  # AP is determined at every level
    return value


def entity_recall(found: Sequence[bool]) -> float:
    """entity recall = |E_reference ∩ E_contexts| / |E_reference|."""
    return share(found)


def response_relevancy(similarities: Sequence[float], noncommittal: bool) -> float:
    """relevancy = mean_q cos(question, q) over generated questions, and 0 when the answer is noncommittal."""
    if noncommittal:
        return 0.0
    return max(0.0, min(1.0, sum(similarities) / len(similarities)))
