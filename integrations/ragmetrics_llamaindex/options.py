"""Settings of the LlamaIndex capture, validated once when the instrumentor is built."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class CaptureOptions(BaseModel):
    """What a query snapshot keeps, and how much state the integration may hold at once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    capture_raw_retrieval: bool = Field(
        default=False,
        description="Also keep the retriever's nodes before node postprocessors, in the sample's metadata.",
    )
    max_text_chars: int = Field(
        default=20_000, gt=0, description="Question, answer and each context are cut to this many characters."
    )
    max_contexts: int = Field(default=64, gt=0, description="At most this many contexts per sample.")
    max_open_queries: int = Field(
        default=1_000,
        gt=0,
        description="Queries (and unfinished streams) tracked at once; further ones are counted and skipped.",
    )
    chain_name: str | None = Field(
        default=None, description="Name reported as the sample's chain; the engine's class name when unset."
    )
    tags: tuple[str, ...] = Field(default=(), description="Tags copied onto every sample's origin.")


class CaptureSettings(TypedDict, total=False):
    """The keyword arguments both entry points (the instrumentor, the legacy handler) take: :class:`CaptureOptions`."""

    capture_raw_retrieval: bool
    max_text_chars: int
    max_contexts: int
    max_open_queries: int
    chain_name: str | None
    tags: Iterable[str]


def capture_options(settings: CaptureSettings) -> CaptureOptions:
    """Validate the keyword settings (a ``ValidationError`` names a bad one)."""
    values = dict(settings)
    if "tags" in values:
        values["tags"] = tuple(settings["tags"])
    return CaptureOptions.model_validate(values)
