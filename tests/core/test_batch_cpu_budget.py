"""Batch runs get a per-sample CPU budget by default (issue #28.4): an adversarial sample is stopped, says why, and
the run goes on. Also nested budgets (the online worker's around an evaluator's own) and the sample clock."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragmetrics_core import evaluate
from ragmetrics_core.budget import EvaluationBudgetExceeded, checkpoint, cpu_budget, metered, sample_started
from ragmetrics_core.engine import DEFAULT_CPU_BUDGET_S, Evaluator, default_cpu_budget
from ragmetrics_core.sample import RagSample

CAPITALS = "Paris London Berlin Madrid Rome Vienna Prague Oslo "


def adversarial(size: int) -> RagSample:
    return RagSample(
        id="capitals", user_input="Which capitals?", retrieved_contexts=["Paris is the capital of France."],
        response=(CAPITALS * (size // len(CAPITALS) + 1))[:size], reference="Paris is the capital of France.",
    )


ORDINARY = RagSample(
    id="ordinary", user_input="Where is Paris?", retrieved_contexts=["Paris is in France."],
    response="Paris is in France.", reference="Paris is in France.",
)


def test_an_evaluator_has_the_default_budget_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGMETRICS_CPU_BUDGET_S", raising=False)
    assert Evaluator().cpu_budget_s == DEFAULT_CPU_BUDGET_S == 30.0
    assert Evaluator(cpu_budget_s=None).cpu_budget_s is None
    assert Evaluator(cpu_budget_s=2.5).cpu_budget_s == 2.5
    monkeypatch.setenv("RAGMETRICS_CPU_BUDGET_S", "none")
    assert Evaluator().cpu_budget_s is None
    monkeypatch.setenv("RAGMETRICS_CPU_BUDGET_S", "0")
    assert Evaluator().cpu_budget_s is None
    monkeypatch.setenv("RAGMETRICS_CPU_BUDGET_S", "4")
    assert Evaluator().cpu_budget_s == 4.0


@pytest.mark.parametrize("raw", ["soon", "-1", "inf", "nan"])
def test_a_bad_budget_variable_is_refused_with_its_name(raw: str) -> None:
    with pytest.raises(ValueError, match="RAGMETRICS_CPU_BUDGET_S"):
        default_cpu_budget({"RAGMETRICS_CPU_BUDGET_S": raw})


def test_a_batch_run_stops_an_adversarial_sample_at_its_budget_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The budget evaluate() uses when none is given, made small so the test is quick: 200 kB of capitals in a
    # row cost the embedded judge far more than 10 ms of CPU, however linear its steps.
    monkeypatch.setenv("RAGMETRICS_CPU_BUDGET_S", "0.01")
    run = evaluate([adversarial(200_000), ORDINARY], progress=False)
    stopped, ordinary = run.results
    assert all(score.score is None for score in stopped.scores.values())
    assert stopped.error is not None and "evaluation budget exceeded" in stopped.error
    assert "limit 0.01 s" in stopped.error
    assert ordinary.error is None and ordinary.score("faithfulness") == 1.0  # the run went on


def test_an_inner_budget_does_not_hide_the_outer_ones_cancel_or_limit() -> None:
    with cpu_budget(None) as outer, cpu_budget(10.0):
        outer.cancel()
        with pytest.raises(EvaluationBudgetExceeded, match="cancelled"):
            checkpoint()
    with cpu_budget(0.05), cpu_budget(10.0), metered():
        end = time.thread_time() + 0.08
        while time.thread_time() < end:
            pass
        with pytest.raises(EvaluationBudgetExceeded, match=r"limit 0\.05 s"):
            checkpoint()


def test_the_sample_clock_is_the_outermost_budgets_start() -> None:
    assert sample_started() is None
    with cpu_budget(None) as outer:
        time.sleep(0.01)
        with cpu_budget(1.0):
            assert sample_started() == outer.started
