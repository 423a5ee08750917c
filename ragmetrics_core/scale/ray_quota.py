"""One :class:`~ragmetrics_core.judges.quota.ProviderQuota` for every worker of a Ray run: it lives in one actor, and
each worker's endpoints reach it through a :class:`RayGate` before and after every attempt.

The actor only does arithmetic (microseconds a call) and answers how long to wait; the waiting happens in the
workers, so one slow request never blocks the others' reservations. It takes no CPU slot (``num_cpus=0``).
"""

from __future__ import annotations

from typing import Any

import ray

from ragmetrics_core.judges.quota import ProviderLimits, ProviderQuota, QuotaStats, RequestKind, obey

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class _QuotaActor:
    def __init__(self, limits: ProviderLimits) -> None:
        self.quota = ProviderQuota(limits)

    def reserve(self, estimated_tokens: int) -> float | str:
        return self.quota.reserve(estimated_tokens)

    def settle(self, kind: RequestKind, estimated_tokens: int, prompt_tokens: int, completion_tokens: int) -> None:
        self.quota.settle(kind, estimated_tokens, prompt_tokens, completion_tokens)

    def pause(self, retry_after_s: float | None) -> None:
        self.quota.pause(retry_after_s)

    def stats(self) -> QuotaStats:
        return self.quota.stats()


class RayGate:
    """A :class:`~ragmetrics_core.judges.quota.RequestGate` backed by the quota actor; picklable (it holds only the
    actor's handle), so it travels to the workers inside their :class:`~ragmetrics_core.scale.rows.RowScorer`."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    @classmethod
    def start(cls, limits: ProviderLimits) -> RayGate:
        actor = ray.remote(num_cpus=0, max_restarts=0)(_QuotaActor).remote(limits)
        return cls(actor)

    async def before_attempt(self, kind: RequestKind, estimated_tokens: int) -> None:
        await obey(await self.actor.reserve.remote(estimated_tokens))

    async def after_attempt(
        self, kind: RequestKind, estimated_tokens: int, prompt_tokens: int, completion_tokens: int
    ) -> None:
        await self.actor.settle.remote(kind, estimated_tokens, prompt_tokens, completion_tokens)

    async def rate_limited(self, retry_after_s: float | None) -> None:
        await self.actor.pause.remote(retry_after_s)

    def stats(self) -> QuotaStats:
        stats: QuotaStats = ray.get(self.actor.stats.remote())
        return stats

    def stop(self) -> None:
        ray.kill(self.actor)
