"""RAGChecker's JSON format (``checking_inputs.json`` / ``checking_outputs.json``), in and out.

A RAGChecker result holds ``query``, ``gt_answer``, ``response``, ``retrieved_context`` (``doc_id``, ``text``)
and, once checked, ``response_claims`` / ``gt_answer_claims`` (triplets or strings) with four verdict
matrices: ``answer2response[i]`` (does the answer entail response claim i), ``response2answer[g]``,
``retrieved2response[i][j]`` and ``retrieved2answer[g][j]`` (does chunk j entail the claim).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragmetrics_core.aggregate import AggregationMode, aggregate, ragchecker_figure
from ragmetrics_core.evidence import PARTS, Check, Claim, Evidence, EvidencePart, Stage, Verdict
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import Context, RagSample

# RAGChecker metric key → our metric id, grouped as in its dataset report.
RAGCHECKER_GROUPS: dict[str, dict[str, str]] = {
    "overall_metrics": {"precision": "overall_precision", "recall": "overall_recall", "f1": "overall_f1"},
    "retriever_metrics": {"claim_recall": "claim_recall", "context_precision": "chunk_precision"},
    "generator_metrics": {
        "context_utilization": "context_utilization",
        "noise_sensitivity_in_relevant": "noise_sensitivity_relevant",
        "noise_sensitivity_in_irrelevant": "noise_sensitivity_irrelevant",
        "hallucination": "hallucination",
        "self_knowledge": "self_knowledge",
        "faithfulness": "faithfulness",
    },
}
RAGCHECKER_TO_OURS: dict[str, str] = {key: ours for group in RAGCHECKER_GROUPS.values() for key, ours in group.items()}


# The evidence parts a RAGChecker file carries, under its keys (errors name the key the user sees in the file).
_KEYS: dict[EvidencePart, str] = {
    EvidencePart.RESPONSE_CLAIMS: "response_claims",
    EvidencePart.REFERENCE_CLAIMS: "gt_answer_claims",
    EvidencePart.RESPONSE_VS_REFERENCE: "answer2response",
    EvidencePart.REFERENCE_VS_RESPONSE: "response2answer",
    EvidencePart.RESPONSE_VS_CHUNKS: "retrieved2response",
    EvidencePart.REFERENCE_VS_CHUNKS: "retrieved2answer",
}


class RagCheckerFormatError(ValueError):
    """The file is not RAGChecker JSON; the message names the result and field."""


def read_ragchecker(source: str | Path | dict[str, Any]) -> list[tuple[RagSample, Evidence]]:
    """Samples and whatever claims/verdicts the file carries (an empty :class:`Evidence` for inputs)."""
    data = json.loads(Path(source).read_text(encoding="utf-8")) if not isinstance(source, dict) else source
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise RagCheckerFormatError("expected a JSON object with a 'results' list")
    return [_read_result(index, item) for index, item in enumerate(data["results"])]


def _read_result(index: int, item: object) -> tuple[RagSample, Evidence]:
    where = f"results[{index}]"
    if not isinstance(item, dict):
        raise RagCheckerFormatError(f"{where}: expected an object, got {type(item).__name__}")
    try:
        contexts = [
            Context(text=str(chunk["text"]), id=None if chunk.get("doc_id") is None else str(chunk["doc_id"]))
            for chunk in item.get("retrieved_context") or []
        ]
    except (KeyError, TypeError, AttributeError) as exc:
        raise RagCheckerFormatError(f"{where}.retrieved_context: each chunk needs a 'text' ({exc})") from exc
    sample = RagSample(
        id=None if item.get("query_id") is None else str(item["query_id"]),
        user_input=_text(item, "query", where),
        response=_text(item, "response", where),
        reference=item.get("gt_answer"),
        retrieved_contexts=contexts,
    )
    evidence = Evidence(
        **{part.value: _read_part(part, item.get(key), f"{where}.{key}") for part, key in _KEYS.items()}
    )
    problems = evidence.shape_problems(len(contexts))
    if problems:
        message = "; ".join(problems)
        for part, theirs in _KEYS.items():
            message = message.replace(part.value, theirs)
        raise RagCheckerFormatError(f"{where}: {message}")
    return sample, evidence


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RagCheckerFormatError(f"{where}.{key}: expected a string, got {type(value).__name__}")
    return value


def _read_part(part: EvidencePart, value: object, where: str) -> object:
    spec = PARTS[part]
    if spec.stage is Stage.EXTRACTION:
        return _claims(value, where)
    return _matrix(value, where) if spec.per_chunk else _vector(value, where)


def _claims(value: object, where: str) -> list[Claim] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise RagCheckerFormatError(f"{where}: expected a list of claims")
    claims: list[Claim] = []
    for index, claim in enumerate(value):
        if isinstance(claim, str):
            claims.append(Claim(text=claim))
        elif isinstance(claim, list | tuple) and all(isinstance(part, str) for part in claim):
            claims.append(Claim.from_triplet(list(claim)))
        else:
            raise RagCheckerFormatError(f"{where}[{index}]: expected a string or a [subject, predicate, object] list")
    return claims


def _written_part(part: EvidencePart, value: Any) -> list[Any]:
    spec = PARTS[part]
    if spec.stage is Stage.EXTRACTION:
        return [claim.as_triplet() for claim in value]
    if spec.per_chunk:
        return [[check.verdict.ragchecker_label() for check in row] for row in value]
    return [check.verdict.ragchecker_label() for check in value]


def _check(label: object, where: str) -> Check:
    if not isinstance(label, str):
        raise RagCheckerFormatError(f"{where}: expected a verdict label, got {type(label).__name__}")
    try:
        return Check(verdict=Verdict.parse(label))
    except ValueError as exc:
        raise RagCheckerFormatError(f"{where}: {exc}") from exc


def _vector(value: object, where: str) -> list[Check] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise RagCheckerFormatError(f"{where}: expected a list of verdict labels")
    return [_check(label, f"{where}[{i}]") for i, label in enumerate(value)]


def _matrix(value: object, where: str) -> list[list[Check]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        raise RagCheckerFormatError(f"{where}: expected a list of lists of verdict labels")
    return [[_check(label, f"{where}[{i}][{j}]") for j, label in enumerate(row)] for i, row in enumerate(value)]


def ragchecker_dataset_metrics(results: Sequence[EvaluationResult]) -> dict[str, dict[str, float]]:
    """RAGChecker's dataset report: per-sample means × 100, one decimal, undetermined counted as 0."""
    report = aggregate(results, AggregationMode.RAGCHECKER)
    grouped: dict[str, dict[str, float]] = {}
    for group, keys in RAGCHECKER_GROUPS.items():
        for key, ours in keys.items():
            entry = report.metrics.get(ours)
            if entry is not None and entry.mean is not None:
                grouped.setdefault(group, {})[key] = ragchecker_figure(entry.mean)
    return grouped


def to_ragchecker(
    samples: Sequence[RagSample], results: Sequence[EvaluationResult]
) -> dict[str, Any]:
    """A ``checking_outputs.json``-shaped document: each result with claims, matrices and metrics."""
    if len(samples) != len(results):
        raise ValueError(f"{len(samples)} samples but {len(results)} results")
    items = []
    for index, (sample, result) in enumerate(zip(samples, results, strict=True)):
        evidence = result.evidence
        item: dict[str, Any] = {
            "query_id": sample.id if sample.id is not None else str(index),
            "query": sample.user_input,
            "gt_answer": sample.reference or "",
            "response": sample.response,
            "retrieved_context": [
                {"doc_id": context.id if context.id is not None else f"{j:03d}", "text": context.text}
                for j, context in enumerate(sample.retrieved_contexts)
            ],
        }
        for part, key in _KEYS.items():
            value = getattr(evidence, part.value)
            if value is not None:
                item[key] = _written_part(part, value)
        ours_to_theirs = {ours: key for key, ours in RAGCHECKER_TO_OURS.items()}
        item["metrics"] = {
            ours_to_theirs[metric]: score.score
            for metric, score in result.scores.items()
            if metric in ours_to_theirs and score.score is not None
        }
        items.append(item)
    return {"results": items, "metrics": ragchecker_dataset_metrics(results)}
