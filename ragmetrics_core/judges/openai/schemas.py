"""The shapes of the judge's answers: pydantic models that give the endpoint a JSON schema and read the reply.

Reading is lenient where models differ harmlessly (``Entailment`` vs ``entailed``, a claim given as
``{"text": ...}``) and strict where a mistake would misalign verdicts (every item must name its id).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from ragmetrics_core.evidence import Verdict

VerdictLabel = Literal["entailed", "neutral", "contradicted"]

_SYNONYMS = {
    "supported": Verdict.ENTAILED,
    "supports": Verdict.ENTAILED,
    "yes": Verdict.ENTAILED,
    "true": Verdict.ENTAILED,
    "refuted": Verdict.CONTRADICTED,
    "false": Verdict.CONTRADICTED,
    "no": Verdict.NEUTRAL,
    "unknown": Verdict.NEUTRAL,
    "not enough info": Verdict.NEUTRAL,
    "not mentioned": Verdict.NEUTRAL,
    "unsupported": Verdict.NEUTRAL,
}


def normalize_verdict(value: object) -> object:
    """Map the labels models actually produce onto ours; anything unreadable fails validation."""
    if isinstance(value, bool):
        return Verdict.ENTAILED.value if value else Verdict.NEUTRAL.value
    if not isinstance(value, str):
        return value
    key = value.strip().lower().strip(".")
    if key in _SYNONYMS:
        return _SYNONYMS[key].value
    try:
        return Verdict.parse(key).value
    except ValueError:
        return value


def _text_of(value: object) -> object:
    if isinstance(value, dict):
        for name in ("text", "claim", "statement", "entity", "name"):
            if isinstance(value.get(name), str):
                return value[name]
    return value


def _clean_id(value: object) -> object:
    if isinstance(value, int):
        return str(value)
    return value.strip() if isinstance(value, str) else value


ReadVerdict = Annotated[VerdictLabel, BeforeValidator(normalize_verdict)]
ReadText = Annotated[str, BeforeValidator(_text_of)]
ReadId = Annotated[str, BeforeValidator(_clean_id)]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GeneratedQuestionAnswer(_Answer):
    question: ReadText
    noncommittal: bool


class ExtractionAnswer(_Answer):
    response_claims: list[ReadText]
    reference_claims: list[ReadText]
    reference_entities: list[ReadText]
    questions: list[GeneratedQuestionAnswer]


# Reading: one item at a time, ids optional so that a list without ids can still be placed by position.


class TextVerdict(_Answer):
    id: ReadId | None = None
    verdict: ReadVerdict
    rationale: str = ""


class ChunkVerdict(_Answer):
    id: ReadId | None = None
    verdict: ReadVerdict


class ClaimRow(_Answer):
    id: ReadId | None = None
    chunks: list[dict[str, Any]]
    all_chunks: ReadVerdict
    rationale: str = ""


class EntityFound(_Answer):
    id: ReadId | None = None
    found: bool


# Asking: the shapes sent to the endpoint as JSON schema, every field required.


class TextVerdictSchema(_Answer):
    id: str
    verdict: VerdictLabel
    rationale: str


class TextCheckSchema(_Answer):
    verdicts: list[TextVerdictSchema]


class ChunkVerdictSchema(_Answer):
    id: str
    verdict: VerdictLabel


class ClaimRowSchema(_Answer):
    id: str
    chunks: list[ChunkVerdictSchema]
    all_chunks: VerdictLabel
    rationale: str


class EntityFoundSchema(_Answer):
    id: str
    found: bool


class ChunkCheckSchema(_Answer):
    claims: list[ClaimRowSchema]
    entities: list[EntityFoundSchema]


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form strict structured output accepts: closed objects, all required."""
    schema = model.model_json_schema(mode="validation")
    _close_objects(schema)
    return schema


def _close_objects(node: object) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        node.pop("default", None)
        if node.get("type") == "object" and isinstance(node.get("properties"), dict):
            node["additionalProperties"] = False
            node["required"] = list(node["properties"])
        for value in node.values():
            _close_objects(value)
    elif isinstance(node, list):
        for value in node:
            _close_objects(value)


# The schemas sent to the endpoint; items are re-validated one by one when read so one bad item costs
# only that item (and a follow-up for it), not the whole answer.
EXTRACTION_SCHEMA = strict_json_schema(ExtractionAnswer)
TEXT_CHECK_SCHEMA = strict_json_schema(TextCheckSchema)
CHUNK_CHECK_SCHEMA = strict_json_schema(ChunkCheckSchema)
