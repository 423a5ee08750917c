"""How to reach an OpenAI-compatible endpoint, read from arguments or the environment.

The API key is a ``SecretStr`` so it never shows in ``repr``, logs, exceptions or results.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer, model_validator

from ragmetrics_core.judges.pricing import PriceTable

DEFAULT_BASE_URL = "https://api.openai.com/v1"

StructuredOutput = Literal["auto", "json_schema", "json_object", "off"]
CheckMode = Literal["joint", "per_chunk"]


class RetryPolicy(BaseModel):
    """Exponential backoff for 429s and transient failures (5xx, connection errors, timeouts)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_attempts: int = Field(default=5, ge=1, le=20, description="Attempts in total, the first included.")
    initial_delay_s: float = Field(default=2.0, ge=0.0)
    multiplier: float = Field(default=2.0, ge=1.0)
    max_delay_s: float = Field(default=30.0, ge=0.0)

    def total_backoff_s(self) -> float:
        """The backoff waits of a call retried to its last attempt (without ``Retry-After``)."""
        return sum(self.delay(number) for number in range(1, self.max_attempts))

    def delay(self, retry_number: int, retry_after_s: float | None = None) -> float:
        """Seconds before retry ``retry_number`` (1-based); ``Retry-After`` wins, capped at the max."""
        if retry_after_s is not None and retry_after_s >= 0:
            return min(retry_after_s, self.max_delay_s)
        return min(self.initial_delay_s * self.multiplier ** (retry_number - 1), self.max_delay_s)


class OpenAIJudgeConfig(BaseModel):
    """Everything the LLM judge needs; ``docs/llm_judge.md`` shows OpenAI, Azure, OpenRouter, vLLM, Ollama."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1)
    base_url: str = DEFAULT_BASE_URL
    api_key: SecretStr | None = None
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=4096, ge=16)
    timeout_s: float = Field(default=60.0, gt=0.0)
    sample_timeout_s: float | None = Field(
        default=None,
        gt=0.0,
        description="Wall time all of one sample's calls may take, from the sample's start; default "
        "timeout_s × max_attempts plus the backoff between them.",
    )
    concurrency: int = Field(default=4, ge=1, description="Requests in flight at once to this endpoint.")
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    structured_output: StructuredOutput = Field(
        default="auto",
        description="auto: JSON schema, then JSON mode, then plain text, as far as the endpoint accepts.",
    )
    check_mode: CheckMode = Field(
        default="joint", description="joint: 2 checking calls per sample; per_chunk: one per chunk + 1."
    )
    seed: int | None = None
    default_headers: dict[str, str] = Field(default_factory=dict)
    default_query: dict[str, str] = Field(
        default_factory=dict, description="e.g. {'api-version': '2024-10-21'} for Azure OpenAI."
    )
    embedding_model: str | None = Field(
        default=None,
        description="Without one, response_relevancy uses the embedded judge's lexical similarity.",
    )
    embedding_base_url: str | None = Field(default=None, description="Defaults to base_url.")
    embedding_api_key: SecretStr | None = Field(default=None, description="Defaults to api_key.")
    cache_path: str | None = Field(default=None, description="SQLite file caching judge calls (opt-in).")
    prices: PriceTable | None = None

    @field_serializer("base_url", "embedding_base_url")
    def _serialize_url(self, url: str | None) -> str | None:
        return None if url is None else redact_url(url)

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            yield name, redact_url(value) if name in ("base_url", "embedding_base_url") and value else value

    @model_validator(mode="after")
    def _check_urls(self) -> OpenAIJudgeConfig:
        for url in (self.base_url, self.embedding_base_url):
            if url is not None and urlsplit(url).scheme not in ("http", "https"):
                raise ValueError(f"base URL must start with http:// or https://, got {redact_url(url)!r}")
        return self

    @property
    def endpoint(self) -> str:
        """The base URL without credentials, safe for messages and logs."""
        return redact_url(self.base_url)

    @property
    def embeddings_endpoint(self) -> str:
        return redact_url(self.embedding_base_url or self.base_url)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    @property
    def sample_deadline_s(self) -> float:
        """The per-sample bound in force: ``sample_timeout_s``, or what one call retried to the end may take."""
        if self.sample_timeout_s is not None:
            return self.sample_timeout_s
        return self.timeout_s * self.retry.max_attempts + self.retry.total_backoff_s()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> OpenAIJudgeConfig:
        """Read ``RAGMETRICS_JUDGE_*`` variables (falling back to ``OPENAI_*``); keyword overrides win."""
        env = os.environ if environ is None else environ

        def first(*names: str) -> str | None:
            for name in names:
                value = env.get(name)
                if value is not None and value.strip():
                    return value.strip()
            return None

        values: dict[str, object] = {}
        for field, names in _ENV_NAMES.items():
            found = first(*names)
            if found is not None:
                values[field] = found
        retry_values = {field: found for field, name in _RETRY_ENV_NAMES.items() if (found := first(name)) is not None}
        if retry_values:
            values["retry"] = RetryPolicy.model_validate(retry_values)
        values.update(overrides)
        if "model" not in values:
            raise ValueError("no judge model configured: pass model=... or set RAGMETRICS_JUDGE_MODEL")
        return cls.model_validate(values)


_ENV_NAMES: dict[str, tuple[str, ...]] = {
    "model": ("RAGMETRICS_JUDGE_MODEL",),
    "base_url": ("RAGMETRICS_JUDGE_BASE_URL", "OPENAI_BASE_URL"),
    "api_key": ("RAGMETRICS_JUDGE_API_KEY", "OPENAI_API_KEY"),
    "temperature": ("RAGMETRICS_JUDGE_TEMPERATURE",),
    "max_tokens": ("RAGMETRICS_JUDGE_MAX_TOKENS",),
    "timeout_s": ("RAGMETRICS_JUDGE_TIMEOUT",),
    "sample_timeout_s": ("RAGMETRICS_JUDGE_SAMPLE_TIMEOUT",),
    "concurrency": ("RAGMETRICS_JUDGE_CONCURRENCY",),
    "structured_output": ("RAGMETRICS_JUDGE_STRUCTURED_OUTPUT",),
    "check_mode": ("RAGMETRICS_JUDGE_CHECK_MODE",),
    "embedding_model": ("RAGMETRICS_EMBEDDING_MODEL",),
    "embedding_base_url": ("RAGMETRICS_EMBEDDING_BASE_URL",),
    "embedding_api_key": ("RAGMETRICS_EMBEDDING_API_KEY",),
    "cache_path": ("RAGMETRICS_JUDGE_CACHE",),
}
_RETRY_ENV_NAMES = {
    "max_attempts": "RAGMETRICS_JUDGE_MAX_ATTEMPTS",
    "initial_delay_s": "RAGMETRICS_JUDGE_BACKOFF_INITIAL",
    "multiplier": "RAGMETRICS_JUDGE_BACKOFF_MULTIPLIER",
    "max_delay_s": "RAGMETRICS_JUDGE_BACKOFF_MAX",
}


def redact_url(url: str) -> str:
    """Drop ``user:password@`` and secret-looking query values (``key``, ``token``, ``sig``) from a URL."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port is not None else host
    query = urlencode(
        [
            (name, "***" if _SECRET_QUERY.search(name) else value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_SECRET_QUERY = re.compile(r"key|token|secret|sig|password|auth", re.IGNORECASE)
