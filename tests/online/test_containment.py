"""No exception from user code ends a thread of the online pipeline (issue #28.3).

User code runs on our threads in four places: the evaluator (its ``aevaluate``, even a synchronous one, and its
``metrics`` attribute), the redaction hook and an emitter (a ``CallbackEmitter``'s callback). Whatever it raises
(``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit``, ``CancelledError``, a custom ``BaseException``) must
cost one sample or one record, be counted, and leave the worker and the emitter threads running: every later
sample is scored and emitted, ``in_flight`` returns to 0, ``flush()`` and ``shutdown()`` say ``True``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import CallbackEmitter, OnlinePipeline, PrivacyOptions
from ragmetrics_core.online.types import EvaluationRecord
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample
from tests.online.conftest import METRICS, paris_draft
from tests.online.judges import ScriptedJudge


class Custom(BaseException):
    """What a library might raise to unwind its own stack."""


RAISED: list[Callable[[], BaseException]] = [
    lambda: SystemExit(3),
    lambda: KeyboardInterrupt(),
    lambda: GeneratorExit(),
    lambda: asyncio.CancelledError(),
    lambda: Custom("custom unwinding"),
]
IDS = ["SystemExit", "KeyboardInterrupt", "GeneratorExit", "CancelledError", "Custom"]
LATER = 20


class Scripted:
    """Raises ``exception`` on the first ``times`` calls of the hook under test, then behaves."""

    def __init__(self, make: Callable[[], BaseException], times: int = 3) -> None:
        self.make = make
        self.left = times
        self.lock = threading.Lock()

    def fire(self) -> None:
        with self.lock:
            if self.left <= 0:
                return
            self.left -= 1
        raise self.make()


def settle(online: OnlinePipeline, submitted: int) -> None:
    assert online.flush(timeout_s=20), online.stats()
    stats = online.stats()
    assert stats.in_flight == 0 and stats.queued == 0
    assert stats.submitted == submitted and stats.balanced
    assert online.shutdown(timeout_s=10)


@pytest.mark.parametrize("make", RAISED, ids=IDS)
def test_a_synchronous_aevaluate_raising_anything_fails_its_sample_only(make: Callable[[], BaseException]) -> None:
    inner = Evaluator(judge=ScriptedJudge(), metrics=list(METRICS))
    trap = Scripted(make)

    class SyncRaising:
        metrics = inner.metrics

        def aevaluate(self, sample: RagSample) -> Awaitable[EvaluationResult]:
            trap.fire()  # before any awaitable exists
            return inner.aevaluate(sample)

    online = OnlinePipeline(SyncRaising())
    for _ in range(3 + LATER):
        online.submit(paris_draft())
    settle(online, 3 + LATER)
    stats = online.stats()
    assert stats.failed == 3 and stats.failure_reasons == {"judge_error": 3}
    assert stats.completed == LATER


@pytest.mark.parametrize("make", RAISED, ids=IDS)
def test_an_awaited_aevaluate_raising_anything_fails_its_sample_only(make: Callable[[], BaseException]) -> None:
    inner = Evaluator(judge=ScriptedJudge(), metrics=list(METRICS))
    trap = Scripted(make)

    class AsyncRaising:
        async def aevaluate(self, sample: RagSample) -> EvaluationResult:
            await asyncio.sleep(0)
            trap.fire()
            return await inner.aevaluate(sample)

    online = OnlinePipeline(AsyncRaising())
    for _ in range(3 + LATER):
        online.submit(paris_draft())
    settle(online, 3 + LATER)
    assert online.stats().completed == LATER


@pytest.mark.parametrize("make", RAISED, ids=IDS)
def test_a_metrics_attribute_raising_anything_costs_no_sample(make: Callable[[], BaseException]) -> None:
    inner = Evaluator(judge=ScriptedJudge(), metrics=list(METRICS))
    trap = Scripted(make, times=10**6)
    records: list[EvaluationRecord] = []

    class BadMetrics:
        @property
        def metrics(self) -> Any:
            trap.fire()
            return ()

        def aevaluate(self, sample: RagSample) -> Awaitable[EvaluationResult]:
            return inner.aevaluate(sample)

    online = OnlinePipeline(BadMetrics(), emitters=[CallbackEmitter(records.append)])
    for _ in range(LATER):
        online.submit(paris_draft())
    settle(online, LATER)
    assert online.stats().completed == LATER
    assert len(records) == LATER  # the records went out, without the metric list


@pytest.mark.parametrize("make", RAISED, ids=IDS)
def test_a_redaction_hook_raising_anything_withholds_the_text_and_keeps_the_worker(
    make: Callable[[], BaseException],
) -> None:
    trap = Scripted(make, times=5)
    records: list[EvaluationRecord] = []

    def hook(text: str) -> str:
        trap.fire()
        return text.upper()

    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(METRICS)),
        privacy=PrivacyOptions(redact=hook),
        emitters=[CallbackEmitter(records.append)],
    )
    for _ in range(LATER):
        online.submit(paris_draft())
    settle(online, LATER)
    assert online.stats().completed == LATER
    assert len(records) == LATER
    assert records[-1].sample is not None and records[-1].sample.user_input == "WHERE IS PARIS?"


@pytest.mark.parametrize("make", RAISED, ids=IDS)
def test_a_callback_raising_anything_loses_one_record_not_the_emitter(make: Callable[[], BaseException]) -> None:
    trap = Scripted(make)
    records: list[EvaluationRecord] = []

    def callback(record: EvaluationRecord) -> None:
        trap.fire()
        records.append(record)

    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(METRICS)), emitters=[CallbackEmitter(callback, name="cb")]
    )
    for _ in range(3 + LATER):
        online.submit(paris_draft())
    assert online.flush(timeout_s=20)
    stats = online.stats()
    assert stats.emitters["cb"].failed == 3 and stats.emitters["cb"].emitted == LATER
    assert len(records) == LATER
    assert online.shutdown(timeout_s=10)  # true, and truthfully: the thread closed the emitter


def test_an_async_callback_raising_anything_is_contained_too() -> None:
    raised = iter(make() for make in RAISED)
    records: list[EvaluationRecord] = []

    async def callback(record: EvaluationRecord) -> None:
        await asyncio.sleep(0)
        failure = next(raised, None)
        if failure is not None:
            raise failure
        records.append(record)

    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(METRICS)), emitters=[CallbackEmitter(callback, name="cb")]
    )
    for _ in range(len(RAISED) + LATER):
        online.submit(paris_draft())
    assert online.flush(timeout_s=20)
    assert online.stats().emitters["cb"].failed == len(RAISED)
    assert len(records) == LATER
    assert online.shutdown(timeout_s=10)


def test_an_evaluator_factory_raising_systemexit_is_reported_not_fatal() -> None:
    class Broken:
        def aevaluate(self, sample: RagSample) -> Awaitable[EvaluationResult]:
            raise SystemExit("evaluator refuses")

    online = OnlinePipeline(Broken())
    for _ in range(5):
        online.submit(paris_draft())
    settle(online, 5)
    stats = online.stats()
    assert stats.failed == 5 and stats.completed == 0
