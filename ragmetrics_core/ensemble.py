"""Several judges on the same sample: each one's scores, an aggregate, and how far they disagree.

Two ways to aggregate:

- ``mean``: every judge evaluates the sample on its own (its own claims and verdicts); a metric's
  aggregate is the mean of the judges that determined it.
- ``majority``: the first judge (or ``extractor``) extracts the claims once; every judge checks those same
  claims, so their verdict matrices line up cell by cell; the consensus evidence takes each cell's
  majority verdict (ties go to ``neutral``: a claim counts as supported only when most judges say so) and
  the metrics are read off it. Generated-question similarities are averaged.

Either way the result carries ``per_judge`` (each judge's scores) and ``spread`` (max - min per metric).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any, Literal

from ragmetrics_core.engine import Evaluator, run_sync
from ragmetrics_core.evidence import CHECK_PARTS, SIMILARITY_PARTS, Check, Evidence, EvidencePart, Verdict
from ragmetrics_core.judges.base import Judge, Usage
from ragmetrics_core.metrics import METRICS, MetricOptions
from ragmetrics_core.results import EvaluationResult, MetricScore
from ragmetrics_core.runner import score_many
from ragmetrics_core.sample import RagSample

Aggregate = Literal["mean", "majority"]

_TIE_ORDER = (Verdict.NEUTRAL, Verdict.CONTRADICTED, Verdict.ENTAILED)
_MATRICES = (EvidencePart.RESPONSE_VS_CHUNKS, EvidencePart.REFERENCE_VS_CHUNKS)
_VECTORS = (
    EvidencePart.RESPONSE_VS_REFERENCE,
    EvidencePart.REFERENCE_VS_RESPONSE,
    EvidencePart.RESPONSE_VS_CONTEXTS,
    EvidencePart.REFERENCE_VS_CONTEXTS,
)


class EnsembleEvaluator:
    """Evaluate with several judges at once, e.g. three models behind one OpenRouter key."""

    def __init__(
        self,
        judges: Sequence[Judge],
        metrics: Sequence[str] | None = None,
        options: MetricOptions | None = None,
        aggregate: Aggregate = "mean",
        extractor: Judge | None = None,
    ) -> None:
        if len(judges) < 1:
            raise ValueError("an ensemble needs at least one judge")
        if aggregate not in ("mean", "majority"):
            raise ValueError(f"aggregate must be 'mean' or 'majority', got {aggregate!r}")
        self.evaluators = [Evaluator(judge=judge, metrics=metrics, options=options) for judge in judges]
        self.names = _unique_names([judge.name for judge in judges])
        self.aggregate: Aggregate = aggregate
        self.extractor = Evaluator(judge=extractor, metrics=metrics, options=options) if extractor else None
        self.metrics = self.evaluators[0].metrics
        self.options = self.evaluators[0].options
        self.name = f"ensemble[{self.aggregate}]({', '.join(self.names)})"

    def evaluate(self, sample: RagSample) -> EvaluationResult:
        return run_sync(self.aevaluate(sample))

    def evaluate_many(self, samples: Iterable[RagSample], concurrency: int = 4) -> list[EvaluationResult]:
        return run_sync(self.aevaluate_many(samples, concurrency))

    async def aevaluate_many(self, samples: Iterable[RagSample], concurrency: int = 4) -> list[EvaluationResult]:
        items = list(samples)
        results: list[EvaluationResult | None] = [None] * len(items)

        def keep(index: int, _sample: RagSample, result: EvaluationResult) -> None:
            results[index] = result

        await score_many(items, self.aevaluate, keep, concurrency=concurrency, total=len(items), progress=False)
        return [result for result in results if result is not None]

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        if self.aggregate == "mean":
            members = list(await asyncio.gather(*(e.aevaluate(sample) for e in self.evaluators)))
            scores = {metric: self._mean_score(metric, members) for metric in self.metrics}
            evidence, explanations, extra_usage = Evidence(), [], Usage()
        else:
            members, extra_usage = await self._check_shared_claims(sample)
            evidence = _consensus([member.evidence for member in members])
            consensus = self.evaluators[0].score(sample, evidence)
            scores, explanations = consensus.scores, consensus.explanations
        usage = sum((member.usage for member in members), extra_usage)
        per_judge = {name: member.values() for name, member in zip(self.names, members, strict=True)}
        return EvaluationResult(
            sample_id=sample.id,
            judge=self.name,
            scores=scores,
            explanations=explanations,
            evidence=evidence,
            usage=usage,
            per_judge=per_judge,
            spread=_spread(per_judge, self.metrics),
            metadata={
                "aggregate": self.aggregate,
                "judges": self.names,
                "member_errors": {
                    name: {m: s.reason for m, s in member.scores.items() if s.score is None}
                    for name, member in zip(self.names, members, strict=True)
                    if any(s.score is None for s in member.scores.values())
                },
            },
        )

    async def _check_shared_claims(self, sample: RagSample) -> tuple[list[EvaluationResult], Usage]:
        """The lead judge extracts (and judges); every other judge checks the lead's claims."""
        lead = self.extractor or self.evaluators[0]
        lead_result = await lead.aevaluate(sample)
        claims_only = _without(lead_result.evidence, CHECK_PARTS | SIMILARITY_PARTS)
        rest = self.evaluators if self.extractor is not None else self.evaluators[1:]
        others = await asyncio.gather(*(e.aevaluate(sample, evidence=claims_only) for e in rest))
        if self.extractor is not None:
            return list(others), lead_result.usage
        return [lead_result, *others], Usage()

    def _mean_score(self, metric: str, members: Sequence[EvaluationResult]) -> MetricScore:
        spec = METRICS[metric]
        values = [score for m in members if (score := m.scores[metric].score) is not None]
        score = fmean(values) if values else None
        label, threshold = spec.label(score, self.options.thresholds)
        if score is None:
            reasons = sorted({m.scores[metric].reason for m in members})
            return MetricScore(
                metric=metric,
                score=None,
                direction=spec.direction,
                reason="no judge determined it: " + "; ".join(reasons),
                threshold=threshold,
            )
        return MetricScore(
            metric=metric,
            score=score,
            direction=spec.direction,
            reason=f"mean of {len(values)} of {len(members)} judges",
            label=label,
            threshold=threshold,
        )


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: Counter[str] = Counter()
    unique = []
    for name in names:
        seen[name] += 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return unique


def _spread(per_judge: dict[str, dict[str, float | None]], metrics: Sequence[str]) -> dict[str, float]:
    spread: dict[str, float] = {}
    for metric in metrics:
        values = [value for scores in per_judge.values() if (value := scores.get(metric)) is not None]
        if values:
            spread[metric] = max(values) - min(values)
    return spread


def _without(evidence: Evidence, parts: frozenset[EvidencePart]) -> Evidence:
    update: dict[str, Any] = {part.value: None for part in parts}
    errors = {key: value for key, value in evidence.errors.items() if key not in {p.value for p in parts}}
    return evidence.model_copy(update={**update, "errors": errors})


def _vote(checks: Sequence[Check]) -> Check:
    """The majority verdict; ties go to the least favourable verdict; confidence = share that agrees."""
    counts = Counter(check.verdict for check in checks)
    top = max(counts.values())
    verdict = next(v for v in _TIE_ORDER if counts.get(v) == top)
    rationale = next((c.rationale for c in checks if c.verdict is verdict and c.rationale), None)
    return Check(verdict=verdict, confidence=counts[verdict] / len(checks), rationale=rationale)


def _consensus(evidences: Sequence[Evidence]) -> Evidence:
    """Cell-wise majority over judges that checked the same claims; judges lacking a part don't vote on it."""
    lead = evidences[0]
    update: dict[str, Any] = {}
    errors = dict(lead.errors)
    for part in (*_VECTORS, *_MATRICES, EvidencePart.ENTITIES_IN_CONTEXTS, EvidencePart.QUESTION_SIMILARITIES):
        voters = [getattr(e, part.value) for e in evidences if e.has(part)]
        if not voters:
            update[part.value] = None
            reasons = sorted({e.errors[part.value] for e in evidences if part.value in e.errors})
            if reasons:
                errors[part.value] = "; ".join(reasons)
            continue
        errors.pop(part.value, None)
        if part in _VECTORS:
            update[part.value] = [_vote(cells) for cells in zip(*voters, strict=True)]
        elif part in _MATRICES:
            update[part.value] = [
                [_vote(cells) for cells in zip(*rows, strict=True)] for rows in zip(*voters, strict=True)
            ]
        elif part is EvidencePart.ENTITIES_IN_CONTEXTS:
            update[part.value] = [sum(found) * 2 > len(found) for found in zip(*voters, strict=True)]
        else:
            update[part.value] = [fmean(values) for values in zip(*voters, strict=True)]
    return lead.model_copy(update={**update, "errors": errors})
