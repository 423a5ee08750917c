"""The shapes of the judge's answers, each written once: a typed dict validated by pydantic reads the reply, and
the JSON schema sent to the endpoint (strict structured output) is derived from the same shape.

Reading is lenient where models differ harmlessly (``Entailment`` vs ``entailed``, a claim given as
``{"text": ...}``, an id given as a number or left out of a list whose length is exact) and strict where a
mistake would misalign verdicts (an item that names no id is placed only by position, never guessed). The schema
asks for the strict form: every field required, every object closed, an id as a string.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypeVar, get_args

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    WrapValidator,
    with_config,
)
from pydantic_core.core_schema import ValidatorFunctionWrapHandler
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

from ragmetrics_core.evidence import Verdict

VerdictLabel = Literal["entailed", "neutral", "contradicted"]
AnswerT = TypeVar("AnswerT")

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


_LABELS = frozenset(verdict.value for verdict in Verdict)


def normalize_verdict(value: object) -> object:
    """Map the labels models actually produce onto ours; anything unreadable fails validation."""
    if isinstance(value, str) and value in _LABELS:  # what structured output gives: nothing to map
        return value
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


# Each lenient type is a union tried left to right: the value as asked for, which pydantic-core checks without
# calling Python (what structured output gives, every time), else the value repaired by a Python function. (In
# pydantic's default "smart" mode every member is tried, so the repairing function ran on every value: half the
# time of reading a chunk check.) The schema asks for the first.
_FIRST_THAT_READS = Field(union_mode="left_to_right")
ReadVerdict = Annotated[
    Verdict | Annotated[Verdict, BeforeValidator(normalize_verdict)],
    _FIRST_THAT_READS,
    WithJsonSchema({"type": "string", "enum": list(get_args(VerdictLabel))}),
]
ReadText = Annotated[
    str | Annotated[str, BeforeValidator(_text_of)], _FIRST_THAT_READS, WithJsonSchema({"type": "string"})
]
ReadId = Annotated[
    str | Annotated[str, BeforeValidator(_clean_id)] | None, _FIRST_THAT_READS, WithJsonSchema({"type": "string"})
]
"""Asked for as a string; read as ``None`` when absent, so that a list without ids can be placed by position."""

SET_ASIDE_REASONS = (
    "greeting",
    "thanks",
    "praise of the question",
    "acknowledgement",
    "remark about the sources",
    "remark about the answer",
    "hedge",
    "wish",
    "offer of help",
    "sign-off",
)
"""Why a piece of an answer is no claim: the reasons the embedded judge gives, named in the prompt and the schema."""


_ANSWER_CONFIG = ConfigDict(extra="ignore", str_strip_whitespace=True)

# Answers are read into typed dicts, not models: a chunk check holds some sixty items, and a dict is one object
# where a model instance is three (itself, its ``__dict__``, its fields-set), which the garbage collector then
# scans in a process that is mostly the HTTP client's; pydantic-core also fills a dict sooner. Optional keys are
# ``NotRequired`` (read with ``.get``), and each shape is validated by one :class:`TypeAdapter` built once
# (:func:`adapter_of`).


@with_config(_ANSWER_CONFIG)
class GeneratedQuestionAnswer(TypedDict):
    question: ReadText
    noncommittal: bool


@with_config(_ANSWER_CONFIG)
class SetAsidePiece(TypedDict):
    """A piece of the response or the reference left out of the claims, and why."""

    source: Literal["response", "reference"]
    text: ReadText
    reason: Annotated[str, WithJsonSchema({"type": "string", "enum": list(SET_ASIDE_REASONS)})]
    """Asked for from :data:`SET_ASIDE_REASONS`; another short reason a model gives is kept as it is."""


def _readable_pieces(value: object, handler: ValidatorFunctionWrapHandler) -> object:
    """Set-aside pieces count in no score: an unreadable one is dropped rather than costing the extraction."""
    try:
        return handler(value)
    except ValidationError:
        if not isinstance(value, list):
            return []
        kept = []
        for item in value:
            try:
                kept.append(adapter_of(SetAsidePiece).validate_python(item))
            except ValidationError:
                continue
        return kept


@with_config(_ANSWER_CONFIG)
class ExtractionAnswer(TypedDict):
    response_claims: list[ReadText]
    reference_claims: list[ReadText]
    reference_entities: list[ReadText]
    questions: list[GeneratedQuestionAnswer]
    set_aside: NotRequired[Annotated[list[SetAsidePiece], WrapValidator(_readable_pieces)]]
    """Not required when read: an endpoint that ignores it loses only the explanation of what was left out."""


@with_config(_ANSWER_CONFIG)
class WithId(TypedDict):
    """An item of a checking answer: it names the id it answers for (absent: placed by position only)."""

    id: NotRequired[ReadId]


@with_config(_ANSWER_CONFIG)
class TextVerdict(WithId):
    verdict: ReadVerdict
    rationale: NotRequired[str]


@with_config(_ANSWER_CONFIG)
class TextCheckAnswer(TypedDict):
    verdicts: list[TextVerdict]


@with_config(_ANSWER_CONFIG)
class ChunkVerdict(WithId):
    verdict: ReadVerdict


@with_config(_ANSWER_CONFIG)
class ClaimRow(WithId):
    chunks: list[ChunkVerdict]
    all_chunks: ReadVerdict
    rationale: NotRequired[str]


@with_config(_ANSWER_CONFIG)
class EntityFound(WithId):
    found: bool


@with_config(_ANSWER_CONFIG)
class ChunkCheckAnswer(TypedDict):
    claims: list[ClaimRow]
    entities: NotRequired[list[EntityFound]]


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def adapter_of(shape: type[AnswerT]) -> TypeAdapter[AnswerT]:
    """The validator of an answer shape, built once per shape (two threads may both build it: either serves)."""
    adapter = _ADAPTERS.get(shape)
    if adapter is None:
        adapter = _ADAPTERS[shape] = TypeAdapter(shape)
    return adapter


def strict_json_schema(shape: type[Any]) -> dict[str, Any]:
    """The shape's JSON schema in the form strict structured output accepts: closed objects, all required."""
    schema = adapter_of(shape).json_schema(mode="validation")
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


# The schemas sent to the endpoint, built once. A reply is read whole with the same model; when that fails, its
# items are read one by one so that one bad item costs only that item (and a follow-up for it).
EXTRACTION_SCHEMA = strict_json_schema(ExtractionAnswer)
TEXT_CHECK_SCHEMA = strict_json_schema(TextCheckAnswer)
CHUNK_CHECK_SCHEMA = strict_json_schema(ChunkCheckAnswer)
