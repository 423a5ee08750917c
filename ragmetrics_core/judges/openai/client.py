"""One OpenAI-compatible endpoint: the official client, our own retry policy, a concurrency limit, the cache.

The ``openai`` client's built-in retries are turned off (``max_retries=0``) so the backoff schedule is ours,
testable with an injected ``sleep`` and clock, and honours ``Retry-After`` up to the policy's cap.
One ``AsyncOpenAI`` client (and its connection pool) lives per event loop, closed when that loop shuts down or
on :meth:`OpenAIEndpoint.aclose`, since a sync caller may run each evaluation in a fresh loop and an online
worker in a loop of its own; semaphores are kept per event loop for the same reason. Requests are posted through
that client and their bodies read by :mod:`.wire`.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import operator
import re
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from pydantic import SecretStr

import openai
from openai import AsyncOpenAI
from ragmetrics_core.budget import sample_started
from ragmetrics_core.judges.base import JudgeError, Usage
from ragmetrics_core.judges.cache import JudgeCache, cache_key
from ragmetrics_core.judges.openai.config import RetryPolicy, StructuredOutput, redact_url
from ragmetrics_core.judges.openai.parsing import AnswerFormatError
from ragmetrics_core.judges.openai.wire import (
    Completion,
    Embeddings,
    NotThisShape,
    answer_of,
    read_completion,
    read_embeddings,
    tokens_of,
)
from ragmetrics_core.judges.quota import BudgetExhausted, RequestGate, RequestKind, SpendMeter, current_meter
from ragmetrics_core.scrub import SECRETS, scrub_secrets

logger = logging.getLogger("ragmetrics.judges.openai")

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]
T = TypeVar("T")

CIRCUIT_THRESHOLD = 3
"""Connection failures in a row after which an endpoint is not called for ``CIRCUIT_COOL_DOWN_S``."""
CIRCUIT_COOL_DOWN_S = 30.0
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
_FORMAT_REFUSAL_STATUS = frozenset({400, 422})
_FORMAT_LEVELS: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "off")
_KEY_LIKE = re.compile(r"\b(sk|rk|pk|or|ak)-[A-Za-z0-9_\-]{6,}")

# One semaphore per (loop, endpoint, limit): judges for several models on one endpoint share its limit.
_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_LIMITS_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class ChatAsk:
    """One chat request as the judge makes it: the model, the messages and parameters, and the answer's shape (its
    name and strict JSON schema, sent as ``response_format`` at the endpoint's structured-output level)."""

    model: str
    messages: list[dict[str, str]]
    params: Mapping[str, Any]
    structured_output: StructuredOutput
    schema_name: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class ChatAnswer:
    content: str
    finish_reason: str | None


async def _close_at_loop_shutdown(client: AsyncOpenAI) -> AsyncGenerator[None, None]:
    """Suspended for the loop's life; asyncio finalizes live async generators when the loop shuts down
    (``asyncio.run``, ``Runner.close``), and then the client is closed on its own loop."""
    try:
        yield
    finally:
        await client.close()


class _Circuit:
    """Fail fast on a dead endpoint: after ``threshold`` connection failures in a row (refused, unreachable, no
    answer in time; never a 429 or an HTTP error, which prove the server is there) calls stop for ``cool_down_s``;
    then one call is let through, and its success closes the circuit again."""

    def __init__(self, threshold: int, cool_down_s: float, now: Callable[[], float]) -> None:
        self.threshold = threshold
        self.cool_down_s = cool_down_s
        self._now = now
        self._failures = 0
        self._open_until: float | None = None
        self._lock = threading.Lock()

    def refusal(self) -> str | None:
        """Why no call may be made now, or ``None``; past the cool-down one probe call is let through."""
        if self._open_until is None:  # closed (the usual case): one attribute read, no lock
            return None
        with self._lock:
            if self._open_until is None:
                return None
            now = self._now()
            if now >= self._open_until:
                self._open_until = now + self.cool_down_s  # this call is the probe; the others keep waiting
                return None
            return f"endpoint unreachable ({self._failures} connection failures in a row; not called again for " \
                f"{self._open_until - now:.0f} s)"

    def connection_failed(self) -> None:
        with self._lock:
            self._failures += 1
            if self._failures >= self.threshold:
                self._open_until = self._now() + self.cool_down_s

    def answered(self) -> None:
        if self._failures == 0 and self._open_until is None:  # nothing to reset (the usual case): no lock
            return
        with self._lock:
            self._failures = 0
            self._open_until = None


@dataclass(slots=True)
class _Call:
    """One request's retry state: its attempts so far and what the current attempt got to."""

    what: RequestKind
    deadline: float | None
    meter: SpendMeter | None
    started: float
    estimated_tokens: int = 0
    attempts: int = 0
    admitted: bool = False
    sent: bool = False


@dataclass(frozen=True, slots=True)
class _Failure:
    """A failed attempt as the retry loop reads it."""

    detail: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    connection_failed: bool = False
    refused: bool = False


class _AttemptFailed(Exception):
    def __init__(self, failure: _Failure) -> None:
        super().__init__(failure.detail)
        self.failure = failure


class EndpointError(JudgeError):
    """An endpoint failed for good; names the endpoint and the HTTP status, never the key."""

    def __init__(
        self,
        message: str,
        *,
        endpoint: str,
        status: int | None,
        attempts: int,
        usage: Usage | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message, usage=usage or Usage(calls=attempts))
        self.detail = detail
        self.endpoint = endpoint
        self.status = status
        self.attempts = attempts


class OpenAIEndpoint:
    """Chat and embeddings calls to one base URL, retried, limited and cached."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: SecretStr | None,
        timeout_s: float,
        concurrency: int,
        retry: RetryPolicy,
        cache: JudgeCache | None = None,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, str] | None = None,
        sleep: Sleep | None = None,
        now: Clock | None = None,
        gate: RequestGate | None = None,
        sample_timeout_s: float | None = None,
    ) -> None:
        """``gate``: consulted around every attempt (rate limit and budget shared with other endpoints or
        processes; see :mod:`ragmetrics_core.judges.quota`). ``sample_timeout_s``: wall time all of one sample's
        calls to this endpoint may take, retries and backoff included, from when the sample started (the engine's
        budget scope, :func:`ragmetrics_core.budget.sample_started`; outside one, from the call)."""
        # Every secret this endpoint holds is masked in everything ragmetrics writes (answers, files, telemetry).
        SECRETS.load_environment()
        SECRETS.register(api_key.get_secret_value() if api_key is not None else None)
        SECRETS.register(*_secret_values(default_headers), *_secret_values(default_query))
        self.base_url = base_url
        self.endpoint = redact_url(base_url)
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._concurrency = concurrency
        self._retry = retry
        self._cache = cache
        self._default_headers = dict(default_headers or {})
        self._default_query = dict(default_query or {})
        self._sleep: Sleep = sleep or asyncio.sleep
        self._now: Clock = now or time.time
        self._gate = gate
        self._sample_timeout_s = sample_timeout_s
        self._format_level = 0
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncOpenAI] = weakref.WeakKeyDictionary()
        self._closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = (
            weakref.WeakKeyDictionary()
        )
        self._clients_lock = threading.Lock()
        self._last_limit: tuple[weakref.ref[asyncio.AbstractEventLoop], asyncio.Semaphore] | None = None
        self._circuit = _Circuit(CIRCUIT_THRESHOLD, CIRCUIT_COOL_DOWN_S, time.monotonic)
        # Parameters this endpoint refused (reasoning models take max_completion_tokens, no temperature).
        self._renamed_max_tokens = False
        self._omitted_temperature = False

    def __repr__(self) -> str:
        return f"OpenAIEndpoint({self.endpoint!r})"

    def _new_client(self) -> AsyncOpenAI:
        return AsyncOpenAI(
            # Local servers (vLLM, Ollama) take any key, but the client insists on one.
            api_key=self._api_key.get_secret_value() if self._api_key is not None else "not-needed",
            base_url=self.base_url,
            timeout=self._timeout_s,
            max_retries=0,
            default_headers=self._default_headers or None,
            default_query=self._default_query or None,
        )

    async def _client(self) -> AsyncOpenAI:
        """This endpoint's client on the running loop: built once per loop (an ``AsyncOpenAI`` builds an SSL
        context, ~18 ms of CPU, and owns the connection pool), closed when the loop shuts down or on
        :meth:`aclose`."""
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            client = self._clients.get(loop)
        if client is None or client.is_closed():
            client = self._new_client()
            closer = _close_at_loop_shutdown(client)
            await closer.__anext__()  # started: asyncio's shutdown_asyncgens() will finalize it, closing the client
            with self._clients_lock:
                self._clients[loop] = client
                self._closers[loop] = closer  # held, or collecting it would close the client at once
        return client

    async def aclose(self) -> None:
        """Close this endpoint's client on the running loop (clients of other loops close with their loops)."""
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            client = self._clients.pop(loop, None)
            closer = self._closers.pop(loop, None)
        if closer is not None:
            await closer.aclose()
        elif client is not None:
            await client.close()

    def _limit(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        last = self._last_limit  # the loop seen last and its semaphore: most calls come from one loop
        if last is not None and last[0]() is loop:
            return last[1]
        key = (self.base_url, self._concurrency)
        with _LIMITS_LOCK:
            per_loop = _LIMITS.setdefault(loop, {})
            limit = per_loop.get(key)
            if limit is None:
                limit = per_loop[key] = asyncio.Semaphore(self._concurrency)
        self._last_limit = (weakref.ref(loop), limit)  # weak: a closed loop is not kept alive
        return limit

    # -- chat -------------------------------------------------------------------------------------------

    async def chat_json(self, ask: ChatAsk, read: Callable[[ChatAnswer], T]) -> tuple[T, Usage]:
        """Ask for a JSON answer and read it with ``read``; only answers that read cleanly are cached.

        ``read`` raises :class:`AnswerFormatError` for an unusable answer; that propagates with the call's
        usage attached as ``error.usage`` so the caller can account for it.
        """
        key = ""
        if self._cache is not None:
            # Hashing the messages and the schema costs a JSON dump of the request: only with a cache to look in.
            options = {**ask.params, "structured_output": ask.structured_output, "schema": ask.schema}
            key = cache_key("chat", ask.model, ask.messages, options)
            cached = await self._cache.aget(key)
            if isinstance(cached, dict) and isinstance(cached.get("content"), str):
                try:
                    value = read(ChatAnswer(cached["content"], cached.get("finish_reason")))
                except AnswerFormatError:
                    logger.warning("ignoring an unreadable cached answer from %s", self.endpoint)
                else:
                    return value, Usage(cache_hits=1)
        answer, usage = await self._chat(ask)
        try:
            value = read(answer)
        except AnswerFormatError as error:
            error.usage = usage
            raise
        if self._cache is not None:
            await self._cache.aput(
                key,
                model=ask.model,
                kind="chat",
                value={"content": answer.content, "finish_reason": answer.finish_reason},
            )
        return value, usage

    async def _chat(self, ask: ChatAsk) -> tuple[ChatAnswer, Usage]:
        usage: Usage | None = None  # what refused requests cost before the one that was answered
        while True:
            level = self._level(ask.structured_output)
            request = self._adapted({"model": ask.model, "messages": ask.messages, **ask.params})
            response_format = _response_format(level, ask.schema_name, ask.schema)
            if response_format is not None:
                request["response_format"] = response_format
            try:
                completion, call_usage = await self._with_retries(
                    "chat", partial(self._create_completion, request), request, _chat_tokens
                )
            except EndpointError as error:
                if error.status in _FORMAT_REFUSAL_STATUS and self._adapt_to_refusal(error.detail, request):
                    usage = error.usage if usage is None else usage + error.usage
                    continue
                if ask.structured_output == "auto" and error.status in _FORMAT_REFUSAL_STATUS and level != "off":
                    # The endpoint refuses this response_format: step down once and remember it.
                    logger.warning(
                        "%s refused response_format=%s (HTTP %s); falling back",
                        self.endpoint,
                        level,
                        error.status,
                    )
                    self._format_level = _FORMAT_LEVELS.index(level) + 1
                    usage = error.usage if usage is None else usage + error.usage
                    continue
                if usage is not None:
                    error.usage = usage + error.usage
                raise
            usage = call_usage if usage is None else usage + call_usage  # its tokens as the endpoint reported
            content, finish_reason = answer_of(completion)
            # An endpoint, a proxy or a prompt-injected model may echo a key: it must not reach claims, results or the
            # cache, so the answer is scrubbed before anything reads it.
            return ChatAnswer(scrub_secrets(content or ""), finish_reason), usage

    def _adapted(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._renamed_max_tokens and "max_tokens" in request:
            request["max_completion_tokens"] = request.pop("max_tokens")
        if self._omitted_temperature:
            request.pop("temperature", None)
        return request

    def _adapt_to_refusal(self, detail: str, request: dict[str, Any]) -> bool:
        """Whether a 400/422 named a parameter we can change (and remember for this endpoint)."""
        if "max_tokens" in detail and "max_tokens" in request and not self._renamed_max_tokens:
            self._renamed_max_tokens = True
        elif "temperature" in detail and "temperature" in request and not self._omitted_temperature:
            self._omitted_temperature = True
        else:
            return False
        logger.warning("%s refused a parameter (%s); adapting the request", self.endpoint, detail[:120])
        return True

    async def _create_completion(self, request: dict[str, Any]) -> Completion:
        client = await self._client()
        return read_completion(await client.post("/chat/completions", body=request, cast_to=bytes))

    async def _create_embeddings(self, model: str, texts: list[str]) -> Embeddings:
        client = await self._client()
        return read_embeddings(await client.post("/embeddings", body={"model": model, "input": texts}, cast_to=bytes))

    def _level(self, structured_output: StructuredOutput) -> StructuredOutput:
        if structured_output != "auto":
            return structured_output
        return _FORMAT_LEVELS[min(self._format_level, len(_FORMAT_LEVELS) - 1)]

    # -- embeddings -------------------------------------------------------------------------------------

    async def embed(self, *, model: str, texts: Sequence[str]) -> tuple[list[list[float]], Usage]:
        """Embed all ``texts`` in one request (cached as a whole)."""
        key = ""
        if self._cache is not None:
            key = cache_key("embeddings", model, list(texts), {})  # a JSON dump of the texts: only with a cache
            cached = await self._cache.aget(key)
            if isinstance(cached, list) and len(cached) == len(texts):
                return [[float(x) for x in vector] for vector in cached], Usage(cache_hits=1)
        try:
            response, usage = await self._with_retries(
                "embeddings", partial(self._create_embeddings, model, list(texts)), texts,
                _embedding_tokens,
            )
        except EndpointError as error:
            error.usage = _as_embedding_usage(error.usage)
            raise
        data = sorted(response["data"], key=operator.itemgetter("index"))
        if len(data) != len(texts):
            raise EndpointError(
                f"{self.endpoint} returned {len(data)} embeddings for {len(texts)} inputs",
                endpoint=self.endpoint,
                status=None,
                attempts=1,
            )
        vectors = [item["embedding"] for item in data]  # floats already (read by .wire)
        usage = _as_embedding_usage(usage)  # with the prompt tokens the endpoint reported (_embedding_tokens)
        if self._cache is not None:
            await self._cache.aput(key, model=model, kind="embeddings", value=vectors)
        return vectors, usage

    # -- retries ----------------------------------------------------------------------------------------

    async def _with_retries(
        self,
        what: RequestKind,
        send: Callable[[], Awaitable[T]],
        payload: object = None,
        tokens_of: Callable[[T], tuple[int, int]] | None = None,
    ) -> tuple[T, Usage]:
        """Send with backoff; ``Usage.calls`` counts every attempt, ``latency_s`` the whole wait, the tokens are what
        ``tokens_of`` reads off the answer. With a gate, each attempt waits for it first and reports what it cost or
        the 429 it got; a gate or a spend meter is given the tokens ``payload`` is estimated to cost (only they read
        the estimate)."""
        call = _Call(what, self._deadline(), current_meter(), time.perf_counter())
        if self._gate is not None or call.meter is not None:
            call.estimated_tokens = _estimate_tokens(payload)
        while True:
            refusal = self._circuit.refusal() or self._past(call.deadline)
            if refusal is not None:
                raise self._error(f"{what} request to {self.endpoint}: {refusal}", None, call, refusal)
            try:
                result = await self._attempt(call, send)
            except _AttemptFailed as failed:
                failure = failed.failure
            else:
                prompt_tokens, completion_tokens = await self._answered(call, result, tokens_of)
                return result, Usage(
                    calls=call.attempts, latency_s=time.perf_counter() - call.started, prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                )
            await self._account_failure(call, failure)
            if not failure.retryable or call.attempts >= self._retry.max_attempts:
                outcome = "gave up after" if failure.retryable else "failed on"
                message = f"{what} request to {self.endpoint} {outcome} {_attempts(call.attempts)}: {failure.detail}"
                raise self._error(message, failure.status, call, failure.detail) from None
            delay = self._retry.delay(call.attempts, failure.retry_after)
            if call.deadline is not None and time.monotonic() + delay >= call.deadline:
                message = (f"{what} request to {self.endpoint}: {self._past(call.deadline, force=True)} "
                           f"(last attempt: {failure.detail})")
                raise self._error(message, failure.status, call, failure.detail)
            logger.warning(
                "%s request to %s: %s; retry %d/%d in %.1f s",
                what,
                self.endpoint,
                failure.detail,
                call.attempts,
                self._retry.max_attempts - 1,
                delay,
            )
            await self._sleep(delay)

    async def _attempt(self, call: _Call, send: Callable[[], Awaitable[T]]) -> T:
        """One attempt under the concurrency limit, the gate and the attempt's time bound; a failure the retry loop
        can judge is raised as :class:`_AttemptFailed`."""
        call.admitted = call.sent = False
        attempt_timeout = self._timeout_s
        try:
            async with self._limit():
                if self._gate is not None:
                    await self._gate.before_attempt(call.what, call.estimated_tokens)
                    call.admitted = True
                call.attempts += 1
                if call.deadline is not None:
                    attempt_timeout = min(attempt_timeout, max(0.0, call.deadline - time.monotonic()))
                call.sent = True
                # The client's timeout bounds each read; this bounds the whole attempt, so an endpoint that trickles
                # its answer a byte at a time cannot hold a sample forever.
                async with asyncio.timeout(attempt_timeout):
                    return await send()
        except asyncio.CancelledError:
            if call.sent and call.meter is not None:
                call.meter.add(1, call.estimated_tokens, 0)  # the provider received the request: count it as billed
            raise
        except BudgetExhausted as error:
            raise self._error(f"{call.what} request to {self.endpoint}: {error}", None, call, str(error)) from None
        except (openai.APIStatusError, openai.APITimeoutError, TimeoutError, NotThisShape, openai.APIConnectionError) \
                as error:
            raise _AttemptFailed(self._failure(error, attempt_timeout)) from None

    def _failure(self, error: Exception, attempt_timeout: float) -> _Failure:
        """What a failed attempt says: its status, whether to retry, and a message without secrets."""
        if isinstance(error, openai.APIStatusError):
            self._circuit.answered()  # an HTTP answer, even an error: the endpoint is there
            status = error.status_code
            return _Failure(
                status=status,
                retry_after=parse_retry_after(error.response.headers, self._now()),
                retryable=status in _RETRYABLE_STATUS,
                detail=f"HTTP {status}: {self._scrub(_message_of(error))}",
            )
        if isinstance(error, NotThisShape):
            return _Failure(status=200, retryable=True, detail=self._scrub(str(error)))
        if isinstance(error, openai.APIConnectionError) and not isinstance(error, openai.APITimeoutError):
            # Nothing listens there: backing off for seconds will not make a server appear. Other connection failures
            # (reset, DNS hiccup, TLS) may pass and are retried.
            refused = _refused(error)
            detail = (
                "connection failed: endpoint unreachable, connection refused (nothing listening; check the URL)"
                if refused else f"connection failed: {self._scrub(str(error))}"
            )
            return _Failure(retryable=not refused, connection_failed=True, refused=refused, detail=detail)
        if attempt_timeout < 0.95 * self._timeout_s:  # cut short by the sample's deadline
            detail = f"no complete answer before the sample deadline ({self._sample_timeout_s:g} s)"
        else:
            detail = f"timed out after {self._timeout_s:g} s without a complete answer"
        return _Failure(retryable=True, connection_failed=True, detail=detail)

    async def _answered(
        self, call: _Call, result: T, tokens_of: Callable[[T], tuple[int, int]] | None
    ) -> tuple[int, int]:
        """Report an answer to the circuit, the spend meter and the gate; the tokens it reported (prompt,
        completion)."""
        self._circuit.answered()
        prompt_tokens, completion_tokens = tokens_of(result) if tokens_of is not None else (0, 0)
        if call.meter is not None:
            call.meter.add(1, prompt_tokens, completion_tokens)
        if self._gate is not None:
            await self._gate.after_attempt(call.what, call.estimated_tokens, prompt_tokens, completion_tokens)
        return prompt_tokens, completion_tokens

    async def _account_failure(self, call: _Call, failure: _Failure) -> None:
        """A failed attempt's bill, the circuit's count and the gate's report."""
        if call.meter is not None and call.sent:
            # An attempt that got no answer: a timeout may have been billed (estimated); an HTTP error is not.
            billed = failure.status is None and not failure.refused
            call.meter.add(1, call.estimated_tokens if billed else 0, 0)
        if failure.connection_failed:
            self._circuit.connection_failed()
        if call.admitted and self._gate is not None:
            # No answer to bill (an error's tokens are not reported); a 429 holds back every worker at once.
            await self._gate.after_attempt(call.what, call.estimated_tokens, 0, 0)
            if failure.status == 429:
                await self._gate.rate_limited(failure.retry_after)

    def _error(self, message: str, status: int | None, call: _Call, detail: str) -> EndpointError:
        return EndpointError(
            message, endpoint=self.endpoint, status=status, attempts=call.attempts,
            usage=Usage(calls=call.attempts, latency_s=time.perf_counter() - call.started), detail=detail,
        )

    def _scrub(self, text: str) -> str:
        """Remove the key (and anything key-shaped) from server-provided text before it is shown."""
        return _KEY_LIKE.sub("***", scrub_secrets(text))[:300]

    def _deadline(self) -> float | None:
        """When this sample's calls must be done (``time.monotonic``), or ``None`` without a per-sample bound."""
        if self._sample_timeout_s is None:
            return None
        started = sample_started()
        return (time.monotonic() if started is None else started) + self._sample_timeout_s

    def _past(self, deadline: float | None, *, force: bool = False) -> str | None:
        """Why no (further) attempt may be made for this sample, or ``None`` while there is time."""
        if deadline is None or (not force and time.monotonic() < deadline):
            return None
        return f"sample deadline of {self._sample_timeout_s:g} s reached (timeout_s × max_attempts plus backoff)"


def _refused(error: BaseException) -> bool:
    """Whether a connection error was a refusal (nothing listening), looking through its causes."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ConnectionRefusedError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return "connection refused" in str(error).lower() or "connect call failed" in str(error).lower()


_SECRET_NAME = re.compile(r"key|token|secret|auth|password|sig", re.IGNORECASE)


def _secret_values(items: Mapping[str, str] | None) -> list[str]:
    """Values of headers or query parameters whose names say they are credentials."""
    return [value for name, value in (items or {}).items() if _SECRET_NAME.search(name) and isinstance(value, str)]


def _estimate_tokens(payload: object) -> int:
    """Tokens a request will use, guessed before sending it (about four characters a token, as the providers'
    own rule of thumb); the rate limiter corrects its count with the real figure once the answer is in."""
    return max(1, len(repr(payload)) // 4)


def _chat_tokens(completion: Completion) -> tuple[int, int]:
    return tokens_of(completion.get("usage"))


def _embedding_tokens(response: Embeddings) -> tuple[int, int]:
    return tokens_of(response.get("usage"))[0], 0


def _as_embedding_usage(usage: Usage) -> Usage:
    return usage.model_copy(update={"calls": 0, "embedding_calls": usage.embedding_calls + usage.calls})


def _attempts(count: int) -> str:
    return "1 attempt" if count == 1 else f"{count} attempts"


def _message_of(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return error.message


def parse_retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds from ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``; ``None`` if absent."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            value = float(milliseconds) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - now)
    return value if math.isfinite(value) and value >= 0 else None


def _response_format(level: StructuredOutput, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if level == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
    if level == "json_object":
        return {"type": "json_object"}
    return None
