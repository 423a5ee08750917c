"""Turn LangChain run inputs, outputs and documents into plain texts.

Everything here is duck-typed (``page_content``, ``content``, ``type``) so that it works on any
langchain-core version and never imports LangChain on its own; nothing here raises on odd values, it
returns ``None`` ("no text found") and the caller records why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragmetrics_core.online.types import ContextDraft

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

# Keys LangChain templates, LangGraph states and common RAG recipes use, most specific first.
INPUT_KEYS: tuple[str, ...] = ("question", "input", "query", "user_input", "messages")
ANSWER_KEYS: tuple[str, ...] = ("answer", "output", "result", "response", "generation", "text", "messages")
SCORE_METADATA_KEYS: tuple[str, ...] = ("score", "relevance_score", "similarity_score")
METADATA_STRING_LIMIT = 1_000

_HUMAN_TYPES = frozenset({"human", "user"})
_AI_TYPES = frozenset({"ai", "assistant", "AIMessageChunk"})


def message_text(message: Any) -> str | None:
    """The text of a message object (``content`` as a string or a list of content blocks)."""
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)
    return None


def _is_message(value: Any) -> bool:
    return isinstance(getattr(value, "type", None), str) and hasattr(value, "content")


def _last_message_text(messages: Sequence[Any], roles: frozenset[str]) -> str | None:
    for message in reversed(messages):
        if _is_message(message) and message.type in roles:
            return message_text(message)
        if isinstance(message, tuple) and len(message) == 2 and message[0] in roles:
            # ("human", "text") tuples and {"role": ..., "content": ...} dicts, both accepted by chat
            # prompts and LangGraph message states.
            return message[1] if isinstance(message[1], str) else None
        if isinstance(message, Mapping) and message.get("role") in roles:
            content = message.get("content")
            return content if isinstance(content, str) else None
    return None


def _text(value: Any, keys: Sequence[str], roles: frozenset[str], depth: int) -> str | None:
    if isinstance(value, str):
        return value
    if depth > 3 or value is None:
        return None
    if _is_message(value):
        return message_text(value)
    to_messages = getattr(value, "to_messages", None)
    if callable(to_messages):  # a PromptValue: the user's turn is its last human message
        return _last_message_text(to_messages(), _HUMAN_TYPES)
    if isinstance(value, Mapping):
        for key in keys:
            if key in value:
                found = _text(value[key], keys, roles, depth + 1)
                if found is not None:
                    return found
        if len(value) == 1:
            return _text(next(iter(value.values())), keys, roles, depth + 1)
        return None
    if isinstance(value, list | tuple) and value:
        return _last_message_text(value, roles)
    return None


def input_text(inputs: Any, input_key: str | None) -> str | None:
    """The user's question in a run's inputs: a string, a dict (``input_key`` or a usual key), messages."""
    keys = (input_key,) if input_key is not None else INPUT_KEYS
    return _text(inputs, keys, _HUMAN_TYPES, 0)


def output_text(outputs: Any, answer_key: str | None) -> str | None:
    """The final answer in a run's outputs: a string, a message, or a dict keyed by ``answer_key``."""
    keys = (answer_key,) if answer_key is not None else ANSWER_KEYS
    return _text(outputs, keys, _AI_TYPES, 0)


def describe(value: Any) -> str:
    """A short description of a value for a capture note (type and, for dicts, keys; never the content)."""
    if isinstance(value, Mapping):
        keys = ", ".join(sorted(str(key) for key in list(value)[:10]))
        return f"dict with keys [{keys}]"
    return type(value).__name__


_SCALARS = (bool, int, float, type(None))


def _plain_metadata(metadata: Any) -> dict[str, Any]:
    """Scalar metadata only: bounded in size and safe to serialise (no embeddings or client objects)."""
    if not isinstance(metadata, dict) or not metadata:
        return {}
    plain: dict[str, Any] = {}
    for key, value in metadata.items():
        if isinstance(value, str):
            plain[str(key)] = value if len(value) <= METADATA_STRING_LIMIT else value[:METADATA_STRING_LIMIT]
        elif isinstance(value, _SCALARS):
            plain[str(key)] = value
    return plain


def _score(metadata: dict[str, Any]) -> float | None:
    if not metadata:
        return None
    for key in SCORE_METADATA_KEYS:
        value = metadata.get(key)
        if value is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def contexts_from_documents(
    batches: Sequence[Sequence[Any] | None], max_text_chars: int, notes: list[str]
) -> list[ContextDraft]:
    """Documents of every retrieval, in retrieval order, deduplicated by id (or by text when unnamed)."""
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    contexts: list[ContextDraft] = []
    skipped = 0
    for batch in batches:
        if not batch:
            continue
        for document in batch:
            text = getattr(document, "page_content", None)
            if type(text) is not str and not isinstance(text, str):
                skipped += 1
                continue
            raw_id = getattr(document, "id", None)
            if raw_id is None:
                if text in seen_texts:
                    continue
                seen_texts.add(text)
                doc_id = None
            else:
                doc_id = raw_id if type(raw_id) is str else str(raw_id)
                if doc_id in seen_ids:
                    continue
                seen_ids.add(doc_id)
            metadata = _plain_metadata(getattr(document, "metadata", None))
            if len(text) > max_text_chars:
                notes.append(f"context {len(contexts)} truncated to {max_text_chars} characters")
                text = text[:max_text_chars]
            contexts.append(ContextDraft(text, doc_id, _score(metadata), metadata))
    if skipped:
        notes.append(f"{skipped} retrieved item(s) without a text page_content were left out")
    return contexts


def plain_run_metadata(metadata: Any, drop_key: str) -> dict[str, Any]:
    """The run's metadata as scalars, without the reference answer (that goes to the sample itself)."""
    plain = _plain_metadata(metadata)
    plain.pop(drop_key, None)
    return plain
