"""The per-sample CPU budget: only metered stretches count, checkpoints raise once it is spent."""

from __future__ import annotations

import time

import pytest

import ragmetrics_core.budget as budget_module
from ragmetrics_core.budget import EvaluationBudgetExceeded, checkpoint, cpu_budget, metered


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_checkpoint_without_budget_never_raises() -> None:
    with metered():
        _burn(0.02)
        checkpoint()


def test_metered_work_past_the_limit_raises_at_the_next_checkpoint() -> None:
    with cpu_budget(0.05), metered():
        checkpoint()
        _burn(0.08)
        with pytest.raises(EvaluationBudgetExceeded, match="evaluation budget exceeded"):
            checkpoint()


def test_unmetered_work_is_not_charged() -> None:
    with cpu_budget(0.05):
        _burn(0.08)  # e.g. another sample interleaved on the same thread
        with metered():
            checkpoint()


def test_budget_accumulates_over_stretches_and_nested_stretches_count_once() -> None:
    with cpu_budget(0.1):
        for _ in range(3):
            with metered(), metered():
                _burn(0.04)
        with pytest.raises(EvaluationBudgetExceeded):
            checkpoint()


def test_budget_must_be_positive_and_none_is_unlimited() -> None:
    with pytest.raises(ValueError), cpu_budget(0):
        pass
    with cpu_budget(None), metered():
        _burn(0.01)
        checkpoint()


def test_the_wall_clock_bound_is_never_below_the_cpu_used() -> None:
    # checkpoint() skips the CPU clock while this bound is within the limit, so it must never read low.
    with cpu_budget(10.0) as budget, metered():
        for _ in range(5):
            _burn(0.005)
            used = budget.used()
            assert budget.used_at_most() >= used  # read after: the bound is never below what was used
    assert budget.used_at_most() == budget.used()  # no stretch open: both are what was charged


def test_a_cancelled_budget_stops_at_the_next_checkpoint_even_far_below_its_limit() -> None:
    with cpu_budget(None) as outer, cpu_budget(60.0), metered():
        checkpoint()
        outer.cancel()
        with pytest.raises(EvaluationBudgetExceeded, match="cancelled"):
            checkpoint()


def test_an_ordinary_sample_never_reads_the_cpu_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CPU clock is a system call; a sample of a few milliseconds is metered by the wall clock alone.
    reads: list[float] = []
    real = time.thread_time
    monkeypatch.setattr(budget_module.time, "thread_time", lambda: reads.append(0.0) or real())
    with cpu_budget(30.0):
        for _ in range(3):
            with metered():
                checkpoint()
                _burn_wall(0.001)
                checkpoint()
    assert reads == []


def test_past_the_grace_only_cpu_time_is_charged() -> None:
    # A stretch that waits (no CPU) past the grace is charged its wall time up to then, and CPU time after it.
    with cpu_budget(0.25) as budget, metered():
        time.sleep(0.05)  # past the grace (a tenth of the limit): charged by the wall clock
        checkpoint()
        time.sleep(0.3)  # now metered by the CPU clock: waiting costs nothing
        checkpoint()
        assert 0.05 <= budget.used() < 0.1
        _burn(0.25)
        with pytest.raises(EvaluationBudgetExceeded):
            checkpoint()


def _burn_wall(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_an_enclosing_budget_nearly_spent_still_stops_a_fresh_inner_one() -> None:
    # The checkpoint's shortcut (no clock but one, while nothing can be spent) must count every budget of the chain.
    with cpu_budget(0.5) as outer:
        outer.spent_s = 0.4  # as earlier samples' budgets leave it when they close
        with cpu_budget(30.0), metered():
            checkpoint()
            _burn(0.2)
            with pytest.raises(EvaluationBudgetExceeded, match=r"limit 0\.5 s"):
                checkpoint()


def test_a_checkpoint_with_nothing_to_do_takes_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    # Budgets with room left, no cancel: the chain of budgets is not walked (most checkpoints of every sample).
    walks: list[None] = []
    real = budget_module._surely_within
    monkeypatch.setattr(budget_module, "_surely_within", lambda budget: walks.append(None) or real(budget))
    with cpu_budget(None), cpu_budget(30.0), metered():
        for _ in range(20):
            checkpoint()
    assert walks == []
    with cpu_budget(30.0):
        checkpoint()  # outside a metered stretch: the long way, as before
    assert len(walks) == 1
