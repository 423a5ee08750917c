"""Which submissions get scored: a deterministic rate per route, a throttle and a judge token budget.

The rate decision reads the trace id exactly like OpenTelemetry's ``TraceIdRatioBased`` sampler (the lower
64 bits of the trace id compared against ``round(rate * 2**64)``), so with the same rate a trace kept by the
tracer is also kept for scoring, and every process scoring the same trace agrees. Without a trace id the
key is the first 8 bytes of BLAKE2b over the run id (run ids are usually UUIDs, whose low bits are not
uniform); without either, a random key.

The throttle and the budget are token buckets that refill continuously, so a burst never starves the next
minute. The budget holds under a burst by reserving: a running evaluation holds an estimate of its cost (the
mean cost of the evaluations charged so far) until it is charged what it really spent; a submission is admitted
only while the budget exceeds what the running and queued evaluations are expected to cost, and a queued one
is checked again when it is about to start. So the overshoot is at most what the evaluations running at once
cost beyond their estimates: ``concurrency`` × the costliest evaluation before any cost is known, much less once
estimates are in (``docs/online.md``).
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragmetrics_core.online.types import Origin
from ragmetrics_core.online.types import SamplingDecision as SamplingDecision  # where it was first declared

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_KEY_MASK = (1 << 64) - 1
_KEY_SPACE = 1 << 64
_ESTIMATE_WINDOW = 20
"""The cost estimate is the mean of the first evaluations, then a moving average over about this many."""


@dataclass(frozen=True, slots=True)
class Route:
    """A sampling rate for the runs that match every given condition (``None``/empty means any).

    ``tags`` must all be present on the origin; ``metadata`` items must all be equal on the origin.
    """

    rate: float
    chain_name: str | None = None
    tags: frozenset[str] = frozenset()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None
    bound: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_rate(self.rate)
        if isinstance(self.tags, str):  # frozenset("vip") would be its letters: a route that never matches
            raise TypeError(f"Route tags must be a collection of strings, e.g. tags={{{self.tags!r}}}, not a string")
        if self.chain_name is not None and not isinstance(self.chain_name, str):
            raise TypeError(f"Route chain_name must be a string or None, got {type(self.chain_name).__name__}")
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"Route metadata must be a mapping, got {type(self.metadata).__name__}")
        object.__setattr__(self, "tags", frozenset(self.tags))
        object.__setattr__(self, "metadata", dict(self.metadata))
        object.__setattr__(self, "bound", round(self.rate * _KEY_SPACE))
        if self.name is None:
            object.__setattr__(self, "name", self._describe())

    def matches(self, origin: Origin) -> bool:
        if self.chain_name is not None and origin.chain_name != self.chain_name:
            return False
        if self.tags and not self.tags.issubset(origin.tags):
            return False
        return all(origin.metadata.get(key, _MISSING) == value for key, value in self.metadata.items())

    def _describe(self) -> str:
        parts = []
        if self.chain_name is not None:
            parts.append(f"chain={self.chain_name}")
        parts.extend(f"tag={tag}" for tag in sorted(self.tags))
        parts.extend(f"{key}={value}" for key, value in sorted(self.metadata.items()))
        return ",".join(parts) or "default"


_MISSING = object()


def _check_rate(rate: float) -> None:
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"a sampling rate must be a number in [0, 1], got {rate!r}")


def sampling_key(origin: Origin) -> int:
    """The 64-bit value the rate is compared against (see the module docstring)."""
    span = origin.span
    if span is not None:
        trace_id = span.trace_id  # read once: this runs on the app's thread for every submission
        if trace_id:
            return trace_id & _KEY_MASK
    if origin.run_id:
        digest = hashlib.blake2b(origin.run_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return int.from_bytes(digest, "big")
    return random.getrandbits(64)


class TokenBucket:
    """``capacity`` tokens, refilled at ``per_second``; may be overdrawn by :meth:`spend`."""

    __slots__ = ("_level", "_stamp", "capacity", "per_second")

    def __init__(self, capacity: float, per_second: float, now: float) -> None:
        self.capacity = capacity
        self.per_second = per_second
        self._level = capacity
        self._stamp = now

    def level(self, now: float) -> float:
        if now > self._stamp:
            self._level = min(self.capacity, self._level + (now - self._stamp) * self.per_second)
            self._stamp = now
        return self._level

    def take_one(self, now: float) -> bool:
        if self.level(now) >= 1.0:
            self._level -= 1.0
            return True
        return False

    def spend(self, amount: float, now: float) -> None:
        self.level(now)
        self._level -= amount


class Sampler:
    """Decides, per submission, whether to score it.

    :meth:`select` is pure and thread-safe. :meth:`admit`, :meth:`start` and :meth:`charge` mutate the throttle
    and budget and must be called under the owner's lock (the :class:`OnlinePipeline` does).
    """

    def __init__(
        self,
        rate: float = 1.0,
        *,
        routes: Sequence[Route] = (),
        max_per_minute: float | None = None,
        token_budget_per_hour: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.default = Route(rate=rate, name="default")
        self.routes = tuple(routes)
        for route in self.routes:
            if not isinstance(route, Route):
                raise TypeError(f"routes must be Route objects, got {type(route).__name__}")
        if max_per_minute is not None and not max_per_minute > 0:
            raise ValueError(f"max_per_minute must be positive, got {max_per_minute!r}")
        if token_budget_per_hour is not None and not token_budget_per_hour > 0:
            raise ValueError(f"token_budget_per_hour must be positive, got {token_budget_per_hour!r}")
        self.max_per_minute = max_per_minute
        self.token_budget_per_hour = token_budget_per_hour
        self._clock = clock
        now = clock()
        self._throttle = (
            TokenBucket(float(max_per_minute), max_per_minute / 60.0, now) if max_per_minute is not None else None
        )
        self._budget = (
            TokenBucket(float(token_budget_per_hour), token_budget_per_hour / 3600.0, now)
            if token_budget_per_hour is not None
            else None
        )
        self._estimate = 0.0
        self._charged = 0
        self._reserved = 0.0
        self._running = 0

    def route_for(self, origin: Origin) -> Route:
        for route in self.routes:
            if route.matches(origin):
                return route
        return self.default

    def select(self, origin: Origin) -> Route | None:
        """The matching route when the rate keeps this origin, else ``None``."""
        route = self.route_for(origin)
        if route.bound == 0:
            return None
        if route.bound >= _KEY_SPACE or sampling_key(origin) < route.bound:
            return route
        return None

    def admit(self, queued: int = 0) -> SamplingDecision:
        """Budget, then throttle; a throttle slot is spent only when the budget allows. ``queued``: submissions
        waiting to start, each expected to cost the current estimate."""
        if self._budget is None and self._throttle is None:
            return SamplingDecision.EVALUATED
        now = self._clock()
        if self._budget is not None and self._available(now) - queued * self._estimate <= 0.0:
            return SamplingDecision.OVER_BUDGET
        if self._throttle is not None and not self._throttle.take_one(now):
            return SamplingDecision.THROTTLED
        return SamplingDecision.EVALUATED

    def start(self) -> bool:
        """Whether a queued evaluation may start now (the budget checked again); if so its estimated cost is
        reserved until :meth:`charge` settles it. Every ``True`` must be followed by one :meth:`charge`."""
        if self._budget is None:
            return True
        if self._available(self._clock()) <= 0.0:
            return False
        self._reserved += self._estimate
        self._running += 1
        return True

    def charge(self, tokens: int) -> None:
        """Settle one started evaluation: release its reservation and spend the judge tokens it was billed."""
        if self._budget is None:
            return
        if self._running > 0:
            self._running -= 1
            self._reserved = max(0.0, self._reserved - self._estimate) if self._running else 0.0
        if tokens > 0:
            self._budget.spend(tokens, self._clock())
            # The estimate follows the mean cost of evaluations that cost something (a fast start, then stable).
            self._charged += 1
            self._estimate += (tokens - self._estimate) / min(self._charged, _ESTIMATE_WINDOW)

    def budget_remaining(self) -> float | None:
        return None if self._budget is None else self._budget.level(self._clock())

    @property
    def estimated_cost(self) -> float:
        """Tokens one evaluation is expected to cost (0 until one has been charged)."""
        return self._estimate

    def _available(self, now: float) -> float:
        assert self._budget is not None
        return self._budget.level(now) - self._reserved
