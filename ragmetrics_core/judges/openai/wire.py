"""The parts of an OpenAI-compatible answer the judge reads, validated from the raw body in one pass.

The judge posts through the official client (its base URL, headers, auth, timeouts and error mapping) but asks
for the body as bytes: the SDK's typed path walks every request parameter and builds every response object in
Python (about 2 ms of CPU per call on the development VM, a third of the process's CPU at a fast endpoint, see
``benchmarks/llm_client.py``), while pydantic-core reads the few fields we use in microseconds. Only what the
judge cannot do without is required (an embeddings response's vectors); unknown fields are ignored, as
compatible servers differ in what else they send. A body that is not JSON of this shape is "not an answer" to
the caller, which retries it as a transport fault.
"""

from __future__ import annotations

from typing import Annotated, NotRequired, TypeVar

from pydantic import BeforeValidator, ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

# Typed dicts, not models: a dict is one object where a model instance is three, and the garbage collector scans
# what the judge allocates in a process that is mostly the HTTP client's. Keys a server may leave out are
# ``NotRequired`` (read with ``.get``).
_LENIENT = ConfigDict(extra="ignore")

# Some compatible servers send ``null`` for a count they do not keep: read as 0, as a missing count is.
Count = Annotated[int, BeforeValidator(lambda value: 0 if value is None else value)]


@with_config(_LENIENT)
class TokenCounts(TypedDict):
    prompt_tokens: NotRequired[Count]
    completion_tokens: NotRequired[Count]


@with_config(_LENIENT)
class Message(TypedDict):
    content: NotRequired[str | None]


@with_config(_LENIENT)
class Choice(TypedDict):
    message: NotRequired[Message | None]
    finish_reason: NotRequired[str | None]


@with_config(_LENIENT)
class Completion(TypedDict):
    """A chat completion: ``choices[0]["message"]["content"]`` is the answer."""

    choices: NotRequired[list[Choice]]
    usage: NotRequired[TokenCounts | None]


@with_config(_LENIENT)
class EmbeddingItem(TypedDict):
    index: int
    embedding: list[float]


@with_config(_LENIENT)
class Embeddings(TypedDict):
    data: list[EmbeddingItem]
    usage: NotRequired[TokenCounts | None]


S = TypeVar("S")


class NotThisShape(ValueError):
    """The body is not JSON of the expected shape; the message quotes its start."""


_COMPLETION: TypeAdapter[Completion] = TypeAdapter(Completion)
_EMBEDDINGS: TypeAdapter[Embeddings] = TypeAdapter(Embeddings)


def read_completion(body: bytes) -> Completion:
    return _read(_COMPLETION, body, "a chat completion")


def read_embeddings(body: bytes) -> Embeddings:
    return _read(_EMBEDDINGS, body, "an embeddings response")


def answer_of(completion: Completion) -> tuple[str | None, str | None]:
    """The first choice's content and finish reason (``None`` for what the body left out)."""
    choices = completion.get("choices")
    if not choices:
        return None, None
    choice = choices[0]
    message = choice.get("message")
    return (message.get("content") if message is not None else None), choice.get("finish_reason")


def tokens_of(counts: TokenCounts | None) -> tuple[int, int]:
    """(prompt, completion) tokens an answer reported; 0 for a count it left out."""
    if counts is None:
        return 0, 0
    return counts.get("prompt_tokens", 0), counts.get("completion_tokens", 0)


def _read(adapter: TypeAdapter[S], body: bytes, what: str) -> S:
    try:
        return adapter.validate_json(body)
    except ValidationError:
        start = body[:80].decode("utf-8", "replace")
        raise NotThisShape(f"HTTP 200 with a body that is not {what}: {start!r}") from None
