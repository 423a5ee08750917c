"""Reading the judge's answers: extraction lists, and verdicts aligned to the ids that were asked about."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import ValidationError

from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.openai.client import ChatAnswer
from ragmetrics_core.judges.openai.parsing import (
    Alignment,
    AnswerFormatError,
    align_by_id,
    align_read,
    parse_json_answer,
    read_model,
)
from ragmetrics_core.judges.openai.schemas import (
    ChunkCheckAnswer,
    ClaimRow,
    EntityFound,
    ExtractionAnswer,
    TextCheckAnswer,
    TextVerdict,
    WithId,
    adapter_of,
)

ItemT = TypeVar("ItemT", bound=WithId)
AnswerT = TypeVar("AnswerT")


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
    if reply.finish_reason == "length":
        raise AnswerFormatError(_CUT_OFF)
    answer = _whole(reply, ExtractionAnswer) or _extraction_in_text(reply.content, tasks)
    if "questions" in tasks and not any(item["question"].strip() for item in answer["questions"]):
        raise AnswerFormatError("the answer has no generated questions")
    return answer


_CUT_OFF = "the answer was cut off before it ended (max_tokens too small?)"


def _extraction_in_text(text: str, tasks: Sequence[str]) -> ExtractionAnswer:
    """The extraction found in an answer that is not just its JSON object (prose, fences, a think block)."""
    parsed = parse_json_answer(text)
    if parsed.repaired:
        raise AnswerFormatError(_CUT_OFF)  # a cut-off claim list would silently drop claims: never accept one
    if not isinstance(parsed.value, dict):
        raise AnswerFormatError("the answer is not a JSON object")
    absent = [task for task in tasks if task not in parsed.value]
    if absent:
        raise AnswerFormatError(f"the answer lacks {', '.join(absent)}")
    return read_model({key: parsed.value.get(key, []) for key in _EXTRACTION_KEYS}, ExtractionAnswer)


_EXTRACTION_KEYS = (*ExtractionAnswer.__required_keys__, *ExtractionAnswer.__optional_keys__)


def _items(value: object, key: str) -> list[object]:
    if not isinstance(value, dict):
        raise AnswerFormatError("the answer is not a JSON object")
    items = value.get(key, [])
    if not isinstance(items, list):
        raise AnswerFormatError(f"{key!r} is not a list")
    return items


def _whole(reply: ChatAnswer, shape: type[AnswerT]) -> AnswerT | None:
    """The answer read in one pass when it is one JSON object of the shape and nothing else (what structured output
    gives); ``None`` otherwise, and then it is found in the text and its items are read one by one."""
    if not reply.content.startswith("{"):
        return None
    try:
        return adapter_of(shape).validate_json(reply.content)
    except ValidationError:
        return None


def _aligned(
    items: Sequence[object], read: Sequence[ItemT] | None, model: type[ItemT], ids: Sequence[str]
) -> Alignment[ItemT]:
    """Items placed by id: already read (``read``), or each read on its own so one bad item costs only itself."""
    if read is not None:
        return align_read(read, ids, _id_of)
    return align_by_id(items, ids, lambda raw: read_model(raw, model), _id_of)


def _id_of(item: WithId) -> str | None:
    return item.get("id")


def read_text_check(
    reply: ChatAnswer, claim_ids: Sequence[str], _: Sequence[str]
) -> tuple[Alignment[TextCheck], Alignment[bool]]:
    whole = _whole(reply, TextCheckAnswer)
    if whole is not None:
        verdicts = _aligned([], whole["verdicts"], TextVerdict, claim_ids)
    else:
        verdicts = _aligned(_items(parse_json_answer(reply.content).value, "verdicts"), None, TextVerdict, claim_ids)
    return (
        Alignment(
            items={i: TextCheck(item["verdict"], item.get("rationale", "")) for i, item in verdicts.items.items()},
            missing=verdicts.missing,
            notes=verdicts.notes,
        ),
        Alignment(items={}, missing=[], notes=[]),
    )


def read_chunk_check(
    reply: ChatAnswer, claim_ids: Sequence[str], entity_ids: Sequence[str], chunk_ids: list[str]
) -> tuple[Alignment[Row], Alignment[bool]]:
    whole = _whole(reply, ChunkCheckAnswer)
    if whole is not None:
        claims = _aligned([], whole["claims"], ClaimRow, claim_ids)
        entities = _aligned([], whole.get("entities", []) if entity_ids else [], EntityFound, entity_ids)
    else:
        value = parse_json_answer(reply.content).value
        claims = _aligned(_items(value, "claims"), None, ClaimRow, claim_ids)
        entities = _aligned(_items(value, "entities") if entity_ids else [], None, EntityFound, entity_ids)
    rows: dict[str, Row] = {}
    notes = list(claims.notes)
    for claim_id, claim in claims.items.items():
        row = _row(claim, chunk_ids)
        if isinstance(row, str):
            notes.append(row)
        else:
            rows[claim_id] = row
    return (
        Alignment(items=rows, missing=[i for i in claim_ids if i not in rows], notes=notes),
        Alignment(
            items={i: item["found"] for i, item in entities.items.items()},
            missing=entities.missing,
            notes=entities.notes,
        ),
    )


def _row(claim: ClaimRow, chunk_ids: list[str]) -> Row | str:
    """One claim's verdicts placed by chunk id, or why they cannot be (a chunk without a verdict)."""
    cells = claim["chunks"]
    if [cell.get("id") for cell in cells] == chunk_ids:  # every chunk once, in the order asked (structured output)
        verdicts = {cell_id: cell["verdict"] for cell_id, cell in zip(chunk_ids, cells, strict=True)}
    else:
        placed = align_read(cells, chunk_ids, _id_of)
        if placed.missing:
            return f"claim {claim.get('id')} lacks verdicts for {', '.join(placed.missing)}"
        verdicts = {chunk_id: cell["verdict"] for chunk_id, cell in placed.items.items()}
    return Row(chunks=verdicts, together=claim["all_chunks"], rationale=claim.get("rationale", ""))


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
