"""One provider's quota shared by every request to it: a rate limit (requests/s, tokens/min) and a spending cap.

An LLM endpoint consults a :class:`RequestGate` around every attempt it makes, retries included: before sending
(wait for the rate limit; refused once the budget is spent), after the answer (what it really cost) and on a 429
(pause everyone for the provider's ``Retry-After``). :class:`ProviderQuota` is the arithmetic, kept free of any
runtime: :class:`LocalGate` runs it for the requests of one process, and the Ray backend runs the same object in
one actor for all its workers (``ragmetrics_core.scale.ray_quota``), so one limit and one budget hold across a
cluster.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from ragmetrics_core.judges.base import JudgeError

RequestKind = Literal["chat", "embeddings"]
BUDGET_EXHAUSTED = "budget exhausted"
"""The words every refusal and every row it leaves undetermined carry, so a summary can count them."""


class BudgetExhausted(JudgeError):
    """The run's spending cap is reached: no further request is sent."""


class RequestGate(Protocol):
    """What an endpoint calls around each attempt. Implementations must be safe to share between samples."""

    async def before_attempt(self, kind: RequestKind, estimated_tokens: int) -> None:
        """Return when the attempt may be sent; raise :class:`BudgetExhausted` when the budget is spent."""

    async def after_attempt(
        self, kind: RequestKind, estimated_tokens: int, prompt_tokens: int, completion_tokens: int
    ) -> None:
        """Settle an attempt admitted by :meth:`before_attempt` (tokens 0 when it got no answer)."""

    async def rate_limited(self, retry_after_s: float | None) -> None:
        """The provider answered 429: hold back every request for ``retry_after_s`` (when it said)."""


@dataclass(frozen=True, slots=True)
class ProviderLimits:
    """Limits for one provider, shared by every request of a run (all workers of a Ray run).

    ``requests_per_s`` / ``tokens_per_min``: the provider's rate limits (``None``: none). ``budget_usd`` needs
    ``price`` (US dollars per million prompt and completion tokens; embeddings are not priced, as in the CLI's cost
    estimate); ``max_tokens``: a cap on prompt + completion tokens. A request already admitted may finish past the
    cap: the overshoot is at most the requests in flight.
    """

    requests_per_s: float | None = None
    tokens_per_min: float | None = None
    budget_usd: float | None = None
    max_tokens: int | None = None
    price: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        for name in ("requests_per_s", "tokens_per_min", "budget_usd", "max_tokens"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")
        if self.budget_usd is not None and self.price is None:
            raise ValueError("a budget in US dollars needs the price per million tokens (--price PROMPT,COMPLETION)")

    @property
    def active(self) -> bool:
        return any(getattr(self, name) is not None for name in ("requests_per_s", "tokens_per_min", "budget_usd",
                                                                 "max_tokens"))


@dataclass(slots=True)
class _Bucket:
    """A token bucket that may go into debt: a reservation always succeeds and says how long to wait, so waiting
    requests are served in the order they asked (no polling, no thundering herd)."""

    rate_per_s: float
    capacity: float
    level: float
    updated: float

    def reserve(self, amount: float, now: float) -> float:
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate_per_s)
        self.updated = now
        self.level -= amount
        return 0.0 if self.level >= 0 else -self.level / self.rate_per_s

    def give_back(self, amount: float) -> None:
        self.level = min(self.capacity, self.level + amount)


@dataclass(frozen=True, slots=True)
class QuotaStats:
    """What a quota has let through: requests sent, 429s, tokens, dollars spent, requests refused (budget spent).
    The quota replaces its record at each count, so the one it hands out is a snapshot."""

    requests: int = 0
    rate_limited: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    spent_usd: float = 0.0
    refused: int = 0


@dataclass
class ProviderQuota:
    """The shared state behind a gate. ``now`` is a monotonic clock in seconds (injected in tests)."""

    limits: ProviderLimits
    now: Callable[[], float] = time.monotonic
    _requests: _Bucket | None = field(init=False, default=None)
    _tokens: _Bucket | None = field(init=False, default=None)
    _paused_until: float = field(init=False, default=0.0)
    _counts: QuotaStats = field(init=False, default_factory=QuotaStats)

    def __post_init__(self) -> None:
        start = self.now()
        rps, tpm = self.limits.requests_per_s, self.limits.tokens_per_min
        # Requests are paced evenly (a burst of one): a provider's own limiter, which allows some burst, never sees
        # more than the rate, even when answers and so the next requests come back bunched together.
        if rps is not None:
            self._requests = _Bucket(rps, 1.0, 1.0, start)
        if tpm is not None:
            self._tokens = _Bucket(tpm / 60.0, tpm / 60.0, tpm / 60.0, start)

    def exhausted(self) -> str | None:
        """Why no request may start any more, or ``None``."""
        limits, tally = self.limits, self._counts
        if limits.budget_usd is not None and tally.spent_usd >= limits.budget_usd:
            return f"{BUDGET_EXHAUSTED} (spent ${tally.spent_usd:.4f} of ${limits.budget_usd:g})"
        tokens = tally.prompt_tokens + tally.completion_tokens
        if limits.max_tokens is not None and tokens >= limits.max_tokens:
            return f"{BUDGET_EXHAUSTED} ({tokens} of {limits.max_tokens} tokens)"
        return None

    def reserve(self, estimated_tokens: int) -> float | str:
        """Seconds to wait before sending, or why the request is refused (the budget is spent)."""
        refusal = self.exhausted()
        if refusal is not None:
            self._counts = replace(self._counts, refused=self._counts.refused + 1)
            return refusal
        now = self.now()
        wait = max(0.0, self._paused_until - now)
        if self._requests is not None:
            wait = max(wait, self._requests.reserve(1, now))
        if self._tokens is not None:
            wait = max(wait, self._tokens.reserve(estimated_tokens, now))
        self._counts = replace(self._counts, requests=self._counts.requests + 1)
        return wait

    def settle(self, kind: RequestKind, estimated_tokens: int, prompt_tokens: int, completion_tokens: int) -> None:
        used = prompt_tokens + completion_tokens
        if self._tokens is not None:
            self._tokens.give_back(estimated_tokens - used)  # negative when the estimate was short: others wait
        counts = self._counts
        spent = counts.spent_usd
        if kind == "chat" and self.limits.price is not None:
            prompt_price, completion_price = self.limits.price
            spent += (prompt_tokens * prompt_price + completion_tokens * completion_price) / 1e6
        self._counts = replace(
            counts, prompt_tokens=counts.prompt_tokens + prompt_tokens,
            completion_tokens=counts.completion_tokens + completion_tokens, spent_usd=spent,
        )

    def pause(self, retry_after_s: float | None) -> None:
        """A 429: nobody sends before the provider's ``Retry-After`` (one second when it did not say)."""
        self._counts = replace(self._counts, rate_limited=self._counts.rate_limited + 1)
        self._paused_until = max(self._paused_until, self.now() + (1.0 if retry_after_s is None else retry_after_s))

    def stats(self) -> QuotaStats:
        return self._counts


async def obey(answer: float | str) -> None:
    """Do what :meth:`ProviderQuota.reserve` answered: wait that many seconds, or raise its refusal."""
    if isinstance(answer, str):
        raise BudgetExhausted(answer)
    if answer > 0:
        await asyncio.sleep(answer)


class LocalGate:
    """A :class:`RequestGate` for the requests of one process (any thread, any event loop)."""

    def __init__(self, limits: ProviderLimits, *, now: Callable[[], float] = time.monotonic) -> None:
        self.quota = ProviderQuota(limits, now)
        self._lock = threading.Lock()

    async def before_attempt(self, kind: RequestKind, estimated_tokens: int) -> None:
        with self._lock:
            answer = self.quota.reserve(estimated_tokens)
        await obey(answer)

    async def after_attempt(
        self, kind: RequestKind, estimated_tokens: int, prompt_tokens: int, completion_tokens: int
    ) -> None:
        with self._lock:
            self.quota.settle(kind, estimated_tokens, prompt_tokens, completion_tokens)

    async def rate_limited(self, retry_after_s: float | None) -> None:
        with self._lock:
            self.quota.pause(retry_after_s)


class SpendMeter:
    """What one evaluation has been billed so far, kept by the endpoint attempt by attempt.

    The online worker opens one around each evaluation (:func:`metering`); when the evaluation is cut by its
    timeout, the meter still knows what the calls made until then cost, so the token budget is charged for them.
    An attempt that was sent but got no answer (cancelled, timed out) counts its estimated prompt tokens: the
    provider bills a request it received.
    """

    __slots__ = ("_lock", "calls", "completion_tokens", "prompt_tokens")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def add(self, calls: int, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.calls += calls
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


_meter: ContextVar[SpendMeter | None] = ContextVar("ragmetrics_spend_meter", default=None)


@contextmanager
def metering(meter: SpendMeter) -> Iterator[SpendMeter]:
    """Record what the calls made inside (and in the tasks they start) are billed, on ``meter``."""
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


def current_meter() -> SpendMeter | None:
    return _meter.get()
