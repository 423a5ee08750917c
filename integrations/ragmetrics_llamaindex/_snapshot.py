"""Cheap, bounded copies of what LlamaIndex hands us, taken on the user's hot path.

Only references and slices are taken here: no serialisation beyond a pydantic response's JSON, no scoring.
Streaming responses are never read here (reading one would consume the user's stream).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.chat_engine.types import AgentChatResponse, StreamingAgentChatResponse
from llama_index.core.schema import MetadataMode, QueryBundle

from ragmetrics_core.online.types import ContextDraft

STREAMING_TYPES = (StreamingResponse, AsyncStreamingResponse, StreamingAgentChatResponse)
_SCALARS = (str, int, float, bool)
_MAX_METADATA_KEYS = 32
_MAX_METADATA_VALUE_CHARS = 512


def clip(text: str, max_chars: int) -> str:
    """``text`` cut to ``max_chars`` characters (no copy when it already fits)."""
    return text if len(text) <= max_chars else text[:max_chars]


def query_text(query: object, max_chars: int) -> str | None:
    """The question of a ``QueryType`` (a string or a ``QueryBundle``), or None when it has none."""
    if isinstance(query, str):
        return clip(query, max_chars)
    if isinstance(query, QueryBundle):
        return clip(query.query_str, max_chars)
    return None


def plain_metadata(metadata: object) -> dict[str, Any]:
    """The scalar entries of a node's metadata, bounded, so a sample stays small and serialisable."""
    if not isinstance(metadata, Mapping):
        return {}
    kept: dict[str, Any] = {}
    for key, value in metadata.items():
        if len(kept) >= _MAX_METADATA_KEYS:
            break
        if not isinstance(key, str) or not (value is None or isinstance(value, _SCALARS)):
            continue
        kept[key] = clip(value, _MAX_METADATA_VALUE_CHARS) if isinstance(value, str) else value
    return kept


def _score(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def context_of(node_with_score: object, max_chars: int) -> ContextDraft | None:
    """One retrieved node as a :class:`ContextDraft` (None when it carries no text)."""
    node = getattr(node_with_score, "node", node_with_score)
    get_content = getattr(node, "get_content", None)
    text = get_content(metadata_mode=MetadataMode.NONE) if callable(get_content) else None
    if not isinstance(text, str):
        return None
    node_id = getattr(node, "node_id", None)
    return ContextDraft(
        text=clip(text, max_chars),
        id=node_id if isinstance(node_id, str) else None,
        score=_score(getattr(node_with_score, "score", None)),
        metadata=plain_metadata(getattr(node, "metadata", None)),
    )


def contexts_of(nodes: Iterable[object] | None, max_chars: int, max_contexts: int) -> list[ContextDraft]:
    """Up to ``max_contexts`` nodes as drafts, in the order the framework ranked them."""
    drafts: list[ContextDraft] = []
    for node in nodes or ():
        if len(drafts) >= max_contexts:
            break
        draft = context_of(node, max_chars)
        if draft is not None:
            drafts.append(draft)
    return drafts


def merge_contexts(existing: list[ContextDraft], extra: list[ContextDraft], max_contexts: int) -> list[ContextDraft]:
    """``existing`` followed by the drafts of ``extra`` not already in it (by node id, else by text)."""
    seen = {c.id or c.text for c in existing}
    merged = list(existing)
    for draft in extra:
        key = draft.id or draft.text
        if key not in seen and len(merged) < max_contexts:
            seen.add(key)
            merged.append(draft)
    return merged


def response_text(response: object, max_chars: int) -> str | None:
    """The answer text of a finished (non-streaming) response object, or None when it has none.

    Streaming responses return None: their text only exists once the user has read the stream.
    """
    if isinstance(response, STREAMING_TYPES):
        return None
    text: object = None
    if isinstance(response, Response | AgentChatResponse):
        text = response.response
    elif isinstance(response, PydanticResponse):
        text = response.response.model_dump_json() if response.response is not None else None
    elif isinstance(response, str):
        text = response
    return clip(text, max_chars) if isinstance(text, str) else None


def source_nodes_of(response: object) -> list[Any] | None:
    """The nodes the LLM was given for this response (``source_nodes``), when the response has them."""
    nodes = getattr(response, "source_nodes", None)
    return list(nodes) if isinstance(nodes, list) else None
