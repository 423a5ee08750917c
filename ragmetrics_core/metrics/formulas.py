"""The metric formulas as short pure functions over verdict vectors.

Notation: R = response claims, G = reference claims, K = retrieved chunks (in rank order);
``correct[i]`` = reference ⊨ R_i; ``recalled[g]`` = response ⊨ G_g; ``grounded_g[g]`` = contexts ⊨ G_g;
``relevant[j]`` = chunk j entails some G_g. Every function returns a share in [0, 1]; the caller has already
checked that the denominator is non-empty. Sources: RAGChecker (Ru et al., 2024, arXiv:2408.08067, §3.3)
for the diagnostic metrics; ragas' documentation for context precision (average precision), context
recall, context entity recall and response relevancy.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragmetrics_core.metrics.claims import ClaimCategory


def share(flags: Sequence[bool]) -> float:
    """|{x : flag(x)}| / |flags|."""
    return sum(1 for flag in flags if flag) / len(flags)


def overall_precision(correct: Sequence[bool]) -> float:
    """precision = |{r ∈ R : reference ⊨ r}| / |R|."""
    return share(correct)


def overall_recall(recalled: Sequence[bool]) -> float:
    """recall = |{g ∈ G : response ⊨ g}| / |G|."""
    return share(recalled)


def f1(precision: float, recall: float) -> float:
    """F1 = 2PR / (P + R), and 0 when P or R is 0 (RAGChecker's per-sample rule)."""
    if precision == 0 or recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def claim_recall(grounded_reference: Sequence[bool]) -> float:
    """claim recall = |{g ∈ G : ∃ chunk ⊨ g}| / |G|."""
    return share(grounded_reference)


def chunk_precision(relevant: Sequence[bool]) -> float:
    """chunk precision = |{chunk_j : ∃ g ∈ G, chunk_j ⊨ g}| / K."""
    return share(relevant)


def context_utilization(grounded_reference: Sequence[bool], recalled: Sequence[bool]) -> float | None:
    """utilization = |{g : contexts ⊨ g ∧ response ⊨ g}| / |{g : contexts ⊨ g}|; None when no g is grounded."""
    grounded = [g for g, flag in enumerate(grounded_reference) if flag]
    if not grounded:
        return None
    return sum(1 for g in grounded if recalled[g]) / len(grounded)


def category_share(categories: Sequence[ClaimCategory], *wanted: ClaimCategory) -> float:
    """|{r ∈ R : category(r) ∈ wanted}| / |R| — noise sensitivity, hallucination, self-knowledge."""
    return share([category in wanted for category in categories])


def faithfulness(grounded_response: Sequence[bool]) -> float:
    """faithfulness = |{r ∈ R : contexts ⊨ r}| / |R|."""
    return share(grounded_response)


def average_precision(useful: Sequence[bool]) -> float:
    """AP = Σ_k (precision@k · useful_k) / |{k : useful_k}|, and 0 when no chunk is useful."""
    hits = 0
    total = 0.0
    for rank, flag in enumerate(useful, start=1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def entity_recall(found: Sequence[bool]) -> float:
    """entity recall = |E_reference ∩ E_contexts| / |E_reference|."""
    return share(found)


def response_relevancy(similarities: Sequence[float], noncommittal: bool) -> float:
    """relevancy = mean_q cos(question, q) over generated questions, and 0 when the answer is noncommittal."""
    if noncommittal:
        return 0.0
    return max(0.0, min(1.0, sum(similarities) / len(similarities)))
