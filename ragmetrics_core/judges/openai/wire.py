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

from typing import Annotated, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# Some compatible servers send ``null`` for a count they do not keep: read as 0, as a missing count is.
Count = Annotated[int, BeforeValidator(lambda value: 0 if value is None else value)]


class TokenCounts(_Lenient):
    prompt_tokens: Count = 0
    completion_tokens: Count = 0


class Message(_Lenient):
    content: str | None = None


class Choice(_Lenient):
    message: Message | None = None
    finish_reason: str | None = None


class Completion(_Lenient):
    """A chat completion: ``choices[0].message.content`` is the answer."""

    choices: list[Choice] = []
    usage: TokenCounts | None = None


class EmbeddingItem(_Lenient):
    index: int
    embedding: list[float]


class Embeddings(_Lenient):
    data: list[EmbeddingItem]
    usage: TokenCounts | None = None


M = TypeVar("M", bound=_Lenient)


class NotThisShape(ValueError):
    """The body is not JSON of the expected shape; the message quotes its start."""


def read_completion(body: bytes) -> Completion:
    return _read(Completion, body, "a chat completion")


def read_embeddings(body: bytes) -> Embeddings:
    return _read(Embeddings, body, "an embeddings response")


def _read(model: type[M], body: bytes, what: str) -> M:
    try:
        return model.model_validate_json(body)
    except ValidationError:
        start = body[:80].decode("utf-8", "replace")
        raise NotThisShape(f"HTTP 200 with a body that is not {what}: {start!r}") from None
