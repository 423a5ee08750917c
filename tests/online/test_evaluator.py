"""OnlinePipeline: hand-off, accounting, back-pressure, flush/shutdown, threads, async callers, fork."""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ragmetrics_core.online import CallbackEmitter, EvaluationRecord, OnlinePipeline, Sampler, SamplingDecision
from ragmetrics_core.online.types import Origin, SampleDraft, SpanRef
from ragmetrics_core.sample import RagSample
from tests.online.conftest import paris_draft
from tests.online.judges import ScriptedJudge

MakeOnline = Callable[..., OnlinePipeline]


def collect() -> tuple[list[EvaluationRecord], CallbackEmitter]:
    records: list[EvaluationRecord] = []
    return records, CallbackEmitter(records.append)


def settled(stats: Any) -> int:
    return stats.completed + stats.failed + stats.sampled_out + stats.dropped


def test_a_draft_is_scored_in_the_background_and_handed_to_emitters(make_online: MakeOnline) -> None:
    records, emitter = collect()
    online = make_online(emitters=[emitter])
    origin = Origin(framework="test", chain_name="qa", run_id="run-1", span=SpanRef(0xABC, 0x12, trace_flags=1))
    assert online.submit(paris_draft(), origin) is SamplingDecision.EVALUATED
    assert online.flush(10)
    (record,) = records
    assert record.ok and record.error is None
    assert record.sample_id == "run-1"
    assert record.judge == "scripted"
    assert record.result is not None
    assert record.result.values() == {
        "faithfulness": 0.5, "overall_precision": 0.5, "context_recall": 1.0, "hallucination": 0.5,
    }
    assert record.subject is not None and (record.subject.trace_id, record.subject.span_id) == (0xABC, 0x12)
    assert record.usage.calls == 2 and record.usage.prompt_tokens == 20
    assert record.submitted_ns <= record.started_ns <= record.finished_ns
    stats = online.stats()
    assert (stats.submitted, stats.accepted, stats.completed, stats.failed) == (1, 1, 1, 0)
    assert stats.usage.calls == 2
    assert stats.emitters["callback"].emitted == 1


def test_a_ragsample_is_accepted_as_is(make_online: MakeOnline) -> None:
    records, emitter = collect()
    online = make_online(emitters=[emitter])
    sample = RagSample(
        user_input="q", response="Paris is in France.", retrieved_contexts=["Paris is in France."], id="s1"
    )
    online.submit(sample)
    assert online.flush(10)
    assert records[0].sample_id == "s1" and records[0].result is not None
    assert records[0].result.score("faithfulness") == 1.0


@pytest.mark.parametrize(
    ("sample", "reason"),
    [
        (SampleDraft(response=42), "response: Input should be a valid string"),
        (SampleDraft(user_input=None), "user_input"),
        (None, "expected a RagSample or SampleDraft, got NoneType"),
        ({"response": "x"}, "got dict"),
        ("just a string", "got str"),
    ],
)
def test_a_bad_sample_counts_as_failed_with_a_reason_and_never_stops_the_worker(
    make_online: MakeOnline, sample: object, reason: str
) -> None:
    records, emitter = collect()
    online = make_online(emitters=[emitter])
    assert online.submit(sample, Origin(run_id="bad")) is SamplingDecision.EVALUATED  # type: ignore[arg-type]
    online.submit(paris_draft())
    assert online.flush(10)
    stats = online.stats()
    assert (stats.completed, stats.failed, stats.failure_reasons) == (1, 1, {"invalid_sample": 1})
    failed = next(r for r in records if not r.ok)
    assert failed.error is not None and reason in failed.error
    assert "42" not in failed.error  # the offending value itself is private


def test_a_failing_judge_costs_a_counter_and_the_app_nothing(
    make_online: MakeOnline, caplog: pytest.LogCaptureFixture
) -> None:
    records, emitter = collect()
    judge = ScriptedJudge(fail=True, fail_message="401 for key sk-live-abcdefghijklmnop1234")
    online = make_online(judge=judge, emitters=[emitter])
    for i in range(5):
        assert online.submit(paris_draft(), Origin(run_id=f"r{i}")) is SamplingDecision.EVALUATED
    assert online.flush(10)
    stats = online.stats()
    assert stats.failed == 5 and stats.failure_reasons == {"judge_error": 5}
    assert all(r.error is not None and "sk-live" not in r.error and "[redacted]" in r.error for r in records)
    warnings = [r for r in caplog.records if r.name == "ragmetrics.online"]
    assert 1 <= len(warnings) <= 2  # rate-limited: one line, not five
    assert all("sk-live" not in r.getMessage() for r in caplog.records)


def test_a_hanging_judge_is_cut_off_by_the_evaluation_timeout(make_online: MakeOnline) -> None:
    online = make_online(judge=ScriptedJudge(hang=True), evaluation_timeout_s=0.2)
    online.submit(paris_draft())
    assert online.flush(5)
    assert online.stats().failure_reasons == {"timeout": 1}


def test_queue_full_drops_the_newest_and_counts_it(make_online: MakeOnline) -> None:
    online = make_online(judge=ScriptedJudge(hang=True), max_queue=3, concurrency=1, evaluation_timeout_s=None)
    decisions = [online.submit(paris_draft()) for _ in range(10)]
    deadline = time.monotonic() + 5
    while online.stats().in_flight != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    decisions += [online.submit(paris_draft()) for _ in range(5)]
    stats = online.stats()
    assert stats.in_flight == 1 and stats.queued == 3
    assert stats.queue_full == decisions.count(SamplingDecision.QUEUE_FULL) == 11
    assert stats.balanced
    started = time.monotonic()
    assert online.shutdown(timeout_s=1.0) is False  # the hung evaluation is lost, and it says so
    assert time.monotonic() - started < 2.0
    after = online.stats()
    assert after.queued == after.in_flight == 0
    assert after.submitted == settled(after) == 15
    assert after.abandoned == 3 and after.failed == 1


def test_accounting_is_exact_under_sampling_throttle_and_concurrent_threads(make_online: MakeOnline) -> None:
    online = make_online(sampler=Sampler(0.5, max_per_minute=300), max_queue=50, concurrency=8)
    per_thread = 400

    def hammer(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(per_thread):
            online.submit(paris_draft(), Origin(span=SpanRef(rng.getrandbits(128) | 1, 1)))

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert online.flush(30)
    stats = online.stats()
    assert stats.submitted == 6 * per_thread
    assert stats.submitted == stats.completed + stats.failed + stats.sampled_out + stats.dropped
    assert stats.not_sampled > 0 and stats.throttled > 0
    assert stats.accepted == stats.completed + stats.failed <= 300


def test_submit_never_raises_even_with_garbage(make_online: MakeOnline) -> None:
    online = make_online()
    assert online.submit(paris_draft(), origin="not an origin") is SamplingDecision.REJECTED  # type: ignore[arg-type]
    assert online.submit(paris_draft(), origin=Origin(tags=None)) in set(SamplingDecision)  # type: ignore[arg-type]
    stats = online.stats()
    assert stats.submitted == 2 and stats.balanced


def test_submissions_after_shutdown_are_rejected_and_counted(make_online: MakeOnline) -> None:
    online = make_online()
    online.submit(paris_draft())
    assert online.shutdown(5)
    assert online.submit(paris_draft()) is SamplingDecision.REJECTED
    stats = online.stats()
    assert (stats.submitted, stats.completed, stats.rejected) == (2, 1, 1)
    assert online.shutdown(1)  # idempotent


def test_flush_returns_false_on_timeout_then_true_when_done(make_online: MakeOnline) -> None:
    online = make_online(judge=ScriptedJudge(delay_s=0.3), concurrency=1)
    online.submit(paris_draft())
    assert online.flush(0.05) is False
    assert online.flush(10) is True


def test_concurrency_bounds_the_evaluations_in_flight(make_online: MakeOnline) -> None:
    online = make_online(judge=ScriptedJudge(delay_s=0.05), concurrency=3)
    peak = 0
    for _ in range(12):
        online.submit(paris_draft())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        stats = online.stats()
        peak = max(peak, stats.in_flight)
        if stats.completed == 12:
            break
        time.sleep(0.005)
    assert online.stats().completed == 12
    assert peak == 3


async def test_works_from_async_code_without_blocking_the_loop(make_online: MakeOnline) -> None:
    records, emitter = collect()
    online = make_online(emitters=[emitter], judge=ScriptedJudge(delay_s=0.02))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    for i in range(5):
        assert online.submit(paris_draft(), Origin(run_id=f"a{i}")) is SamplingDecision.EVALUATED
    assert await online.aflush(10)
    task.cancel()
    assert len(records) == 5 and ticks > 3
    assert await online.ashutdown(5)


def test_an_idle_worker_wakes_up_for_new_work(make_online: MakeOnline) -> None:
    records, emitter = collect()
    online = make_online(emitters=[emitter])
    online.submit(paris_draft())
    assert online.flush(10)
    time.sleep(0.05)  # let the worker go idle
    started = time.monotonic()
    online.submit(paris_draft())
    assert online.flush(10)
    assert time.monotonic() - started < 0.9  # woken, not found by the one-second safety poll
    assert len(records) == 2


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="max_queue"):
        OnlinePipeline(max_queue=0)
    with pytest.raises(ValueError, match="concurrency"):
        OnlinePipeline(concurrency=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="evaluation_timeout_s"):
        OnlinePipeline(evaluation_timeout_s=0)
    with pytest.raises(TypeError, match="aevaluate"):
        OnlinePipeline(evaluator=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not an Emitter"):
        OnlinePipeline(emitters=[print])  # type: ignore[list-item]


def test_atexit_registration_is_opt_in_and_removed_by_shutdown(
    make_online: MakeOnline, monkeypatch: pytest.MonkeyPatch
) -> None:
    import atexit

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", registered.remove)
    make_online().submit(paris_draft())
    assert registered == []
    online = make_online(register_atexit=True)
    assert registered == []  # at the first submission: after any tracer provider the app creates meanwhile
    online.submit(paris_draft())
    online.submit(paris_draft())
    assert len(registered) == 1
    online.shutdown(1)
    assert registered == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_starts_its_own_worker_with_its_own_counters(make_online: MakeOnline, tmp_path: Any) -> None:
    from ragmetrics_core.online import JsonlEmitter

    out = tmp_path / "child.jsonl"
    online = make_online(emitters=[JsonlEmitter(out)], judge=ScriptedJudge(delay_s=0.05))
    online.submit(paris_draft())  # the parent's worker is running and busy when we fork
    pid = os.fork()
    if pid == 0:  # child: exit code tells the parent what happened
        code = 1
        try:
            fresh = online.stats()
            online.submit(paris_draft(), Origin(run_id="child"))
            flushed = online.flush(10)
            stats = online.stats()
            ok = fresh.submitted == 0 and flushed and (stats.submitted, stats.completed) == (1, 1)
            online.shutdown(2)
            code = 0 if ok and '"sample_id": "child"' in out.read_text() else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert online.flush(10)
    stats = online.stats()
    assert (stats.submitted, stats.completed) == (1, 1)


def test_judge_tokens_are_charged_to_the_hourly_budget(make_online: MakeOnline) -> None:
    # Each evaluation costs 20 judge tokens (two calls of 10): a 25-token budget admits two, then refuses.
    online = make_online(judge=ScriptedJudge(tokens_per_call=10), sampler=Sampler(token_budget_per_hour=25))
    decisions = []
    for _ in range(3):
        decisions.append(online.submit(paris_draft()))
        assert online.flush(10)
    assert decisions == [SamplingDecision.EVALUATED, SamplingDecision.EVALUATED, SamplingDecision.OVER_BUDGET]
    stats = online.stats()
    assert stats.over_budget == 1 and stats.usage.total_tokens == 40
    assert stats.budget_remaining is not None and stats.budget_remaining < 0


class BrokenEvaluator:
    """An evaluator (not the engine) that raises, or returns something that is not a result."""

    def __init__(self, outcome: object) -> None:
        self.outcome = outcome

    async def aevaluate(self, sample: RagSample) -> Any:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (RuntimeError("token=abc123 rejected"), "judge_error"),
        (ValueError("precomputed evidence does not fit"), "judge_error"),
        ({"faithfulness": 1.0}, "internal_error"),
    ],
)
def test_an_evaluator_that_raises_or_misbehaves_is_counted_not_propagated(outcome: object, reason: str) -> None:
    records, emitter = collect()
    online = OnlinePipeline(BrokenEvaluator(outcome), emitters=[emitter])
    try:
        assert online.submit(paris_draft()) is SamplingDecision.EVALUATED
        assert online.flush(10)
        assert online.stats().failure_reasons == {reason: 1}
        assert records[0].error is not None and "abc123" not in records[0].error
    finally:
        online.shutdown(2)


def test_a_missing_default_engine_is_reported_per_submission(monkeypatch: pytest.MonkeyPatch) -> None:
    import ragmetrics_core.online.evaluator as module

    def unavailable() -> Any:
        raise ImportError("No module named 'ragmetrics_core.judges.embedded'")

    monkeypatch.setattr(module, "_default_evaluator", unavailable)
    online = OnlinePipeline()
    try:
        online.submit(paris_draft())
        online.submit(paris_draft())
        assert online.flush(10)
        assert online.stats().failure_reasons == {"evaluator_unavailable": 2}
    finally:
        online.shutdown(2)
