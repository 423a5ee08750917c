"""A per-sample CPU budget that CPU-bound judge work checks between its steps.

An event loop cannot preempt synchronous work, so a timeout around ``aevaluate`` cannot stop a sample that is
busy inside an in-process judge. Instead the caller opens a budget around one sample (:func:`cpu_budget`); a
judge wraps each synchronous stretch of its work in :func:`metered` and calls :func:`checkpoint` between steps,
which raises :class:`EvaluationBudgetExceeded` once the CPU time spent in metered stretches passes the limit.
Only metered time counts, so other samples interleaved on the same thread (``evaluate_many``, the online
worker) are never charged to this one. Without a budget, both calls cost one context-variable lookup.

A budget also marks when its sample started (:func:`sample_started`): the LLM judge measures its per-sample
deadline from there. Budgets nest (the online worker's around an ``Evaluator``'s own): a checkpoint stops the work
when any enclosing budget is spent or cancelled, and an inner budget's CPU time is charged to the outer one too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class EvaluationBudgetExceeded(Exception):
    """The sample spent its CPU budget; what it needs from the judge is left undetermined."""


_WALL_GRACE_S = 1.0
"""Metered time a budget charges by the wall clock before it reads the thread's CPU clock. Wall time is an upper
bound of CPU time, read by a cheap clock; the CPU clock is a system call (about 6 us, far more on a busy or
sandboxed machine), and an ordinary sample's few milliseconds never need it. Past the grace (a tenth of the limit
when that is less) the budget meters by the CPU clock, so it over-charges by at most the grace."""


@dataclass(eq=False)  # compared and hashed by identity: the worker keeps the running ones in a set
class Budget:
    """One sample's budget: ``limit_s`` of metered CPU (``inf`` for none); :meth:`cancel` (from any thread) makes
    the next checkpoint stop the work, as a shutdown needs."""

    limit_s: float
    spent_s: float = 0.0
    in_stretch: bool = False
    stretch_started: float | None = None
    """The thread's CPU clock when the open stretch started, or ``None`` while it is metered by the wall clock."""
    stretch_wall_started: float = 0.0
    cancelled: bool = False
    parent: Budget | None = None
    started: float = field(default_factory=time.monotonic)
    """When the sample started (``time.monotonic``)."""
    quiet_until: float = -math.inf
    """``time.perf_counter`` time before which a checkpoint in the open stretch has nothing to do unless a budget of
    the chain is cancelled: set when a wall-metered stretch opens (:meth:`start_stretch`), so that the commonest
    checkpoint reads one clock and compares once."""

    def cancel(self) -> None:
        self.cancelled = True

    @property
    def grace_s(self) -> float:
        """Metered time charged by the wall clock before the CPU clock is read."""
        return min(_WALL_GRACE_S, self.limit_s / 10)

    @property
    def by_cpu_clock(self) -> bool:
        """Whether stretches are metered by the CPU clock (past the wall-clock grace)."""
        return self.spent_s > self.grace_s

    def used(self) -> float:
        if not self.in_stretch:
            return self.spent_s
        if self.stretch_started is None:
            return self.used_at_most()
        return self.spent_s + time.thread_time() - self.stretch_started

    def used_at_most(self) -> float:
        """An upper bound of :meth:`used` from the wall clock: a thread spends no more CPU than the time that
        passes."""
        running = time.perf_counter() - self.stretch_wall_started if self.in_stretch else 0.0
        return self.spent_s + running

    def start_stretch(self) -> None:
        self.in_stretch = True
        self.stretch_wall_started = now = time.perf_counter()
        self.stretch_started = time.thread_time() if self.by_cpu_clock else None
        self.quiet_until = -math.inf if self.stretch_started is not None else now + self._quiet_for()

    def end_stretch(self) -> None:
        self.spent_s = self.used()
        self.in_stretch = False
        self.stretch_started = None
        self.quiet_until = -math.inf

    def _quiet_for(self) -> float:
        """How long the stretch opening now can run before a checkpoint could act: before it passes the grace (the
        CPU clock takes over) or the wall-clock bound of any budget of the chain passes its limit (each bound grows
        by the time the stretch runs). Negative when a checkpoint must look at once."""
        quiet = self.grace_s - self.spent_s
        bound = 0.0
        budget: Budget | None = self
        while budget is not None:
            if budget is not self and budget.in_stretch:
                return -math.inf  # an enclosing stretch open too: its time grows as well; no shortcut
            bound += budget.spent_s
            quiet = min(quiet, budget.limit_s - bound)
            budget = budget.parent
        return quiet

    def cancelled_in_chain(self) -> bool:
        budget: Budget | None = self
        while budget is not None:
            if budget.cancelled:
                return True
            budget = budget.parent
        return False

    def meter_by_cpu_clock(self) -> None:
        """Past the grace inside a long stretch: charge its wall time so far and meter the rest by the CPU clock."""
        if self.in_stretch and self.stretch_started is None and self.used_at_most() > self.grace_s:
            self.spent_s = self.used_at_most()
            self.stretch_wall_started = time.perf_counter()
            self.stretch_started = time.thread_time()


_current: ContextVar[Budget | None] = ContextVar("ragmetrics_cpu_budget", default=None)


@contextmanager
def cpu_budget(seconds: float | None) -> Iterator[Budget]:
    """Give the work inside (one sample's evaluation) ``seconds`` of metered CPU time (``None``: no limit, but
    the yielded :class:`Budget` can still be cancelled)."""
    if seconds is not None and seconds <= 0:
        raise ValueError("a CPU budget must be positive")
    parent = _current.get()
    budget = Budget(limit_s=math.inf if seconds is None else seconds, parent=parent)
    if parent is not None:
        budget.started = parent.started  # the same sample
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
        if parent is not None:
            parent.spent_s += budget.spent_s


def current_budget() -> Budget | None:
    """The innermost budget open on this context, if any."""
    return _current.get()


def sample_started() -> float | None:
    """When the sample being evaluated here started (``time.monotonic``), or ``None`` outside any budget."""
    budget = _current.get()
    return None if budget is None else budget.started


@contextmanager
def metered() -> Iterator[None]:
    """Charge the CPU time of this synchronous stretch to the current budget (if any)."""
    budget = _current.get()
    if budget is None or budget.in_stretch:  # no budget, or already inside a metered stretch
        yield
        return
    budget.start_stretch()
    try:
        yield
    finally:
        budget.end_stretch()


def checkpoint() -> None:
    """Raise :class:`EvaluationBudgetExceeded` when the current budget is spent or cancelled; a no-op without one."""
    budget = _current.get()
    if budget is None or (time.perf_counter() < budget.quiet_until and not budget.cancelled_in_chain()):
        return
    budget.meter_by_cpu_clock()  # a stretch opens on the innermost budget only
    if _surely_within(budget):
        return
    inner_used = 0.0  # CPU of inner budgets not yet added to the enclosing ones (they add it when they close)
    while budget is not None:
        if budget.cancelled:
            raise EvaluationBudgetExceeded("evaluation cancelled (shutting down)")
        used = budget.used() + inner_used
        if used > budget.limit_s:
            raise EvaluationBudgetExceeded(
                f"evaluation budget exceeded ({used:.2f} s of CPU, limit {budget.limit_s:g} s)"
            )
        inner_used = used  # this budget's total, not yet in its parent's
        budget = budget.parent


def _surely_within(budget: Budget | None) -> bool:
    """Whether no budget of the chain is cancelled and even the wall-clock bound of each is within its limit: then
    :func:`checkpoint` has nothing to raise without reading the CPU clock (the commonest case by far)."""
    bound = 0.0
    while budget is not None:
        bound += budget.used_at_most()
        if budget.cancelled or bound > budget.limit_s:
            return False
        budget = budget.parent
    return True
