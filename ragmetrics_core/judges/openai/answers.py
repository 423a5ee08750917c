"""Reading the judge's answers: extraction lists, and verdicts aligned to the ids that were asked about."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.openai.client import ChatAnswer
from ragmetrics_core.judges.openai.parsing import (
    Alignment,
    AnswerFormatError,
    align_by_id,
    parse_json_answer,
    read_model,
)
from ragmetrics_core.judges.openai.schemas import (
    ChunkVerdict,
    ClaimRow,
    EntityFound,
    ExtractionAnswer,
    TextVerdict,
)


@dataclass(frozen=True)
class Row:
    """One claim's verdicts from a chunk check: per chunk id, all chunks together, and why."""

    chunks: dict[str, Verdict]
    together: Verdict
    rationale: str


@dataclass(frozen=True)
class TextCheck:
    verdict: Verdict
    rationale: str


def read_extraction(reply: ChatAnswer, tasks: Sequence[str]) -> ExtractionAnswer:
    parsed = parse_json_answer(reply.content)
    if parsed.repaired or reply.finish_reason == "length":
        # A cut-off claim list would silently drop claims: never accept one.
        raise AnswerFormatError("the answer was cut off before it ended (max_tokens too small?)")
    if not isinstance(parsed.value, dict):
        raise AnswerFormatError("the answer is not a JSON object")
    absent = [task for task in tasks if task not in parsed.value]
    if absent:
        raise AnswerFormatError(f"the answer lacks {', '.join(absent)}")
    answer = read_model({key: parsed.value.get(key, []) for key in ExtractionAnswer.model_fields}, ExtractionAnswer)
    if "questions" in tasks and not any(item.question.strip() for item in answer.questions):
        raise AnswerFormatError("the answer has no generated questions")
    return answer


def _items(value: object, key: str) -> list[object]:
    if not isinstance(value, dict):
        raise AnswerFormatError("the answer is not a JSON object")
    items = value.get(key, [])
    if not isinstance(items, list):
        raise AnswerFormatError(f"{key!r} is not a list")
    return items


def read_text_check(
    reply: ChatAnswer, claim_ids: Sequence[str], _: Sequence[str]
) -> tuple[Alignment[TextCheck], Alignment[bool]]:
    parsed = parse_json_answer(reply.content)
    verdicts = align_by_id(
        _items(parsed.value, "verdicts"),
        claim_ids,
        lambda raw: read_model(raw, TextVerdict),
        lambda item: item.id,
    )
    return (
        Alignment(
            items={i: TextCheck(Verdict(item.verdict), item.rationale.strip()) for i, item in verdicts.items.items()},
            missing=verdicts.missing,
            notes=verdicts.notes,
        ),
        Alignment(items={}, missing=[], notes=[]),
    )


def read_chunk_check(
    reply: ChatAnswer, claim_ids: Sequence[str], entity_ids: Sequence[str], chunk_ids: Sequence[str]
) -> tuple[Alignment[Row], Alignment[bool]]:
    parsed = parse_json_answer(reply.content)

    def read_row(raw: object) -> tuple[str | None, Row]:
        row = read_model(raw, ClaimRow)
        cells = align_by_id(row.chunks, chunk_ids, lambda cell: read_model(cell, ChunkVerdict), lambda c: c.id)
        if cells.missing:
            raise AnswerFormatError(f"claim {row.id} lacks verdicts for {', '.join(cells.missing)}")
        verdicts = {chunk_id: Verdict(cell.verdict) for chunk_id, cell in cells.items.items()}
        return row.id, Row(chunks=verdicts, together=Verdict(row.all_chunks), rationale=row.rationale.strip())

    rows = align_by_id(_items(parsed.value, "claims"), claim_ids, read_row, lambda item: item[0])
    entities = align_by_id(
        _items(parsed.value, "entities") if entity_ids else [],
        entity_ids,
        lambda raw: read_model(raw, EntityFound),
        lambda item: item.id,
    )
    return (
        Alignment(items={i: row for i, (_, row) in rows.items.items()}, missing=rows.missing, notes=rows.notes),
        Alignment(
            items={i: item.found for i, item in entities.items.items()},
            missing=entities.missing,
            notes=entities.notes,
        ),
    )


def combine_rows(rows: Sequence[Row]) -> Row:
    """Per-chunk mode: a claim is supported by the contexts when some chunk entails it.

    This misses claims that need two chunks at once; the joint mode asks the model about those.
    """
    cells: dict[str, Verdict] = {}
    for row in rows:
        cells.update(row.chunks)
    verdicts = list(cells.values())
    if Verdict.ENTAILED in verdicts:
        together = Verdict.ENTAILED
    elif Verdict.CONTRADICTED in verdicts:
        together = Verdict.CONTRADICTED
    else:
        together = Verdict.NEUTRAL
    rationale = next((row.rationale for row in rows if together in row.chunks.values()), rows[0].rationale)
    return Row(chunks=cells, together=together, rationale=rationale)
