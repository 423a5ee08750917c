"""Counters of the online pipeline, as one consistent snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ragmetrics_core.judges.base import Usage
from ragmetrics_core.online.emitters.base import EmitterStats

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


@dataclass(frozen=True, slots=True)
class OnlineStats:
    """Where every submission went.

    At any time ``submitted == completed + failed + sampled_out + dropped + queued + in_flight``; after a
    successful ``flush`` or ``shutdown``, ``queued == in_flight == 0`` and so
    ``submitted == completed + failed + sampled_out + dropped`` exactly.

    * ``sampled_out`` = ``not_sampled + throttled + over_budget`` (the sampler said no),
    * ``dropped`` = ``queue_full + rejected + abandoned`` (we could not take it: queue full, submitted after
      shutdown, or still queued when shutdown ran out of time),
    * ``failed`` counts evaluations that ran and did not produce scores, by reason in ``failure_reasons``.
    """

    submitted: int
    accepted: int
    completed: int
    failed: int
    not_sampled: int
    throttled: int
    over_budget: int
    queue_full: int
    rejected: int
    abandoned: int
    queued: int
    in_flight: int
    failure_reasons: Mapping[str, int] = field(default_factory=dict)
    emitters: Mapping[str, EmitterStats] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    budget_remaining: float | None = None

    @property
    def sampled_out(self) -> int:
        return self.not_sampled + self.throttled + self.over_budget

    @property
    def dropped(self) -> int:
        return self.queue_full + self.rejected + self.abandoned

    @property
    def balanced(self) -> bool:
        """Whether every submission is accounted for."""
        settled = self.completed + self.failed + self.sampled_out + self.dropped
        return self.submitted == settled + self.queued + self.in_flight
