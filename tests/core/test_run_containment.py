"""A judge that raises what is not an ``Exception`` costs its sample, never the run's results (issue #28.3).

``SystemExit``, ``GeneratorExit``, a ``CancelledError`` nobody asked for and a custom ``BaseException`` from a judge
fail the sample they were raised for; every other sample is scored. ``KeyboardInterrupt`` stops the run, and what
was computed stays reachable on the exception (``.batch_run`` from ``evaluate()``, ``.results`` from
``evaluate_many``), with the rows written to ``out`` whole.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ragmetrics_core import evaluate
from ragmetrics_core.batch import BatchRun, evaluate_file
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, SimilarityResult
from ragmetrics_core.sample import RagSample
from tests import substring_judge


class Unwind(BaseException):
    """A custom BaseException, as some libraries raise to unwind."""


@dataclass
class TrapJudge:
    """The substring judge, raising ``make()`` when extracting for the sample whose response says ``boom``."""

    make: Callable[[], BaseException]
    name: str = "trap"
    extracted: list[str] = field(default_factory=list)

    async def extract(self, request: ExtractionRequest) -> Extraction:
        await asyncio.sleep(0)
        if "boom" in request.response:
            raise self.make()
        self.extracted.append(request.response)
        return substring_judge.extract(request)

    async def check(self, request: CheckRequest) -> CheckResult:
        return substring_judge.check(request)

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        return SimilarityResult(similarities=[1.0 for _ in candidates])


def samples(n: int, boom_at: int) -> list[RagSample]:
    return [
        RagSample(
            id=f"s{i}", user_input="Where is Paris?", retrieved_contexts=["Paris is in France."],
            response="boom. Paris is in France." if i == boom_at else "Paris is in France.",
            reference="Paris is in France.",
        )
        for i in range(n)
    ]


CONTAINED = [lambda: SystemExit(2), lambda: GeneratorExit(), lambda: asyncio.CancelledError(), lambda: Unwind("x")]
CONTAINED_IDS = ["SystemExit", "GeneratorExit", "CancelledError", "custom"]


@pytest.mark.parametrize("make", CONTAINED, ids=CONTAINED_IDS)
def test_evaluate_keeps_every_result_when_a_judge_raises_a_base_exception(
    make: Callable[[], BaseException], tmp_path: Path
) -> None:
    judge = TrapJudge(make)
    run = evaluate(samples(10, boom_at=3), judge=judge, metrics=["faithfulness"], concurrency=2, progress=False)
    assert len(run.results) == 10
    failed = run.results[3]
    assert failed.score("faithfulness") is None
    assert failed.error is not None and type(make()).__name__ in failed.error
    assert all(result.score("faithfulness") == 1.0 for i, result in enumerate(run.results) if i != 3)


@pytest.mark.parametrize("make", CONTAINED, ids=CONTAINED_IDS)
def test_evaluate_many_keeps_every_result_too(make: Callable[[], BaseException]) -> None:
    results = Evaluator(judge=TrapJudge(make), metrics=["faithfulness"]).evaluate_many(
        samples(6, boom_at=0), concurrency=3, progress=False
    )
    assert [result.score("faithfulness") for result in results] == [None, 1.0, 1.0, 1.0, 1.0, 1.0]


def test_a_keyboard_interrupt_stops_evaluate_with_the_computed_results_on_the_exception(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    judge = TrapJudge(KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt) as raised:
        evaluate_file(samples(10, boom_at=4), out=out, judge=judge, metrics=["faithfulness"], concurrency=1,
                      progress=False)
    run = getattr(raised.value, "batch_run", None)
    assert isinstance(run, BatchRun) and run.interrupted
    assert [result.sample_id for result in run.results] == ["s0", "s1", "s2", "s3"]
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [row["sample_id"] for row in rows] == ["s0", "s1", "s2", "s3"]  # whole rows, nothing torn
    assert any("batch_run" in note for note in getattr(raised.value, "__notes__", []))


def test_a_keyboard_interrupt_from_evaluate_api_keeps_the_run() -> None:
    with pytest.raises(KeyboardInterrupt) as raised:
        evaluate(samples(6, boom_at=2), judge=TrapJudge(KeyboardInterrupt), metrics=["faithfulness"],
                 concurrency=1, progress=False)
    run = raised.value.batch_run  # type: ignore[attr-defined]
    assert len(run.results) == 2


def test_a_keyboard_interrupt_stops_evaluate_many_with_the_results_on_the_exception() -> None:
    with pytest.raises(KeyboardInterrupt) as raised:
        Evaluator(judge=TrapJudge(KeyboardInterrupt), metrics=["faithfulness"]).evaluate_many(
            samples(8, boom_at=5), concurrency=1, progress=False
        )
    results = raised.value.results  # type: ignore[attr-defined]
    assert [result.sample_id for result in results] == ["s0", "s1", "s2", "s3", "s4"]


def test_the_other_workers_finish_their_samples_before_the_interrupt_is_raised() -> None:
    judge = TrapJudge(KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt) as raised:
        Evaluator(judge=judge, metrics=["faithfulness"]).evaluate_many(
            samples(12, boom_at=0), concurrency=4, progress=False
        )
    results = raised.value.results  # type: ignore[attr-defined]
    # The three samples in flight beside the interrupted one are finished and kept; no new one is started.
    assert [result.sample_id for result in results] == ["s1", "s2", "s3"]
    assert len(judge.extracted) == 3
