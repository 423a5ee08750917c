"""The unit of evaluation: one question, its retrieved contexts, the response and an optional reference."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragmetrics_core.text import clean_text


class Context(BaseModel):
    """One retrieved chunk, in retrieval order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    id: str | None = None
    score: float | None = Field(
        default=None, allow_inf_nan=False, description="The retriever's rank score, when it gave one (finite)."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value


class RagSample(BaseModel):
    """What a RAG application saw and said for one user turn.

    Empty strings and empty lists are valid: the metrics that need them come out *undetermined*.
    Wrong types (a number as a response, a dict as a context) raise a pydantic ``ValidationError``
    naming the field.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_input: str = ""
    retrieved_contexts: list[Context] = Field(default_factory=list)
    response: str = ""
    reference: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None

    @field_validator("user_input", "response", "reference", mode="before")
    @classmethod
    def _clean_text(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value

    @field_validator("retrieved_contexts", mode="before")
    @classmethod
    def _wrap_plain_strings(cls, value: object) -> object:
        if value is None:
            return []
        if isinstance(value, str | bytes | dict):
            raise ValueError("retrieved_contexts must be a list of strings or Context objects, not a single value")
        if isinstance(value, list | tuple):
            return [Context(text=item) if isinstance(item, str) else item for item in value]
        return value

    @property
    def context_texts(self) -> list[str]:
        return [context.text for context in self.retrieved_contexts]

    @property
    def has_reference(self) -> bool:
        return bool(self.reference and self.reference.strip())
