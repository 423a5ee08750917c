"""The background side of the online pipeline: one daemon thread running its own asyncio loop.

The loop takes queued submissions while fewer than ``concurrency`` evaluations are running, validates
each (drafts become samples here, never on the caller's thread), runs the engine under a timeout, builds a
redacted record and hands it to the emitter threads. Every taken submission is settled exactly once
(completed or failed) through the owner's ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from pydantic import ValidationError

from ragmetrics_core.budget import Budget, cpu_budget
from ragmetrics_core.engine import AsyncEvaluator
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.judges.quota import SpendMeter, metering
from ragmetrics_core.online.emitters.base import EmitterThread, SubjectSpanFactory
from ragmetrics_core.online.privacy import Redactor, explain_for_telemetry, sanitize_result
from ragmetrics_core.online.sampler import Route
from ragmetrics_core.online.types import EvaluationRecord, Origin, SampleDraft, SampleView, SamplingDecision, SpanRef
from ragmetrics_core.ratelog import RateLimitedLog
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.runner import is_cancellation
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics.online")

_IDLE_POLL_S = 1.0
"""How long an idle loop sleeps before looking at the queue again, should a wake-up ever be missed."""


class Submission(NamedTuple):
    """What ``submit`` queues (a tuple: the cheapest record to build on the caller's thread)."""

    sample: object
    origin: Origin
    route: Route
    submitted_ns: int


class Ledger(Protocol):
    """The owner's accounting, shared with the caller's threads under one lock."""

    def take(self) -> Submission | None:
        """Pop the next queued submission and count it in flight, or ``None`` when the queue is empty."""
        ...

    def go_idle(self) -> bool:
        """Mark the loop idle unless work arrived meanwhile; ``True`` means: sleep until woken."""
        ...

    def settle(self, failure_reason: str | None, usage: Usage) -> None:
        """Count one taken submission as completed (``failure_reason is None``) or failed."""
        ...


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    concurrency: int
    evaluation_timeout_s: float | None
    redactor: Redactor
    emitter_threads: Sequence[EmitterThread]
    subject_factory: SubjectSpanFactory | None
    evaluator_factory: Callable[[], AsyncEvaluator]
    warn: RateLimitedLog


class Worker:
    def __init__(self, ledger: Ledger, config: WorkerConfig) -> None:
        self._ledger = ledger
        self._config = config
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stop_requested = False
        self._budgets: set[Budget] = set()
        self._budgets_lock = threading.Lock()  # stop() reads them from the caller's thread
        self._thread = threading.Thread(target=self._run, name="ragmetrics-online", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Called from any thread when work arrives for an idle loop."""
        loop, event = self._loop, self._wake
        if loop is not None and event is not None:
            # RuntimeError: the loop already closed; shutdown settles whatever is left in the queue.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(event.set)

    def stop(self, timeout_s: float) -> bool:
        """Cancel running evaluations and end the thread; ``False`` if it did not end in time."""
        self._stop_requested = True
        with self._budgets_lock:
            running = list(self._budgets)
        for budget in running:
            budget.cancel()  # a judge busy in synchronous work stops at its next checkpoint
        self.wake()
        self._thread.join(max(0.0, timeout_s))
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # the loop itself failing is a bug of ours; say so, never crash the app
            _log.error("ragmetrics online worker stopped unexpectedly: %s", type(exc).__name__)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        evaluator, unavailable = self._make_evaluator()
        running: set[asyncio.Task[None]] = set()

        def finished(task: asyncio.Task[None]) -> None:
            running.discard(task)
            assert self._wake is not None
            self._wake.set()

        while not self._stop_requested:
            while len(running) < self._config.concurrency:
                submission = self._ledger.take()
                if submission is None:
                    break
                task = asyncio.create_task(self._evaluate(submission, evaluator, unavailable))
                running.add(task)
                task.add_done_callback(finished)
            if len(running) < self._config.concurrency and not self._ledger.go_idle():
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=_IDLE_POLL_S)
            self._wake.clear()
        for task in list(running):
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    def _make_evaluator(self) -> tuple[AsyncEvaluator | None, str | None]:
        try:
            return self._config.evaluator_factory(), None
        except BaseException as exc:  # user code on our thread: even SystemExit only makes the evaluator unavailable
            message = f"evaluator unavailable: {type(exc).__name__}: {exc}"
            self._config.warn.warning("evaluator", "ragmetrics %s", self._config.redactor.error(message))
            return None, message

    async def _evaluate(
        self, submission: Submission, evaluator: AsyncEvaluator | None, unavailable: str | None
    ) -> None:
        started_ns = time.time_ns()
        reason: str | None = None
        error: str | None = None
        result: EvaluationResult | None = None
        sample: RagSample | None = None
        meter = SpendMeter()
        try:
            try:
                sample = _to_sample(submission)
            except (ValidationError, TypeError, ValueError) as exc:
                reason, error = "invalid_sample", f"invalid sample: {_describe_invalid(exc)}"
            if sample is not None:
                if evaluator is None:
                    reason, error = "evaluator_unavailable", unavailable
                else:
                    reason, error, result = await self._score(evaluator, sample, meter)
        except BaseException as exc:
            if is_cancellation(exc):
                self._ledger.settle("cancelled", _spent(None, meter))
                raise
            # Our own bug, or user code (a SampleDraft's validators) raising past every handler: one failed sample.
            reason, error = "internal_error", f"internal error: {type(exc).__name__}"
        usage = _spent(result, meter)
        try:
            self._emit(submission, sample, result, error, reason, _metrics_of(evaluator), started_ns, time.time_ns())
        except BaseException as exc:  # a redaction hook or emitter raising anything: the record is lost, not the thread
            self._config.warn.warning("record", "ragmetrics could not build a record: %s", type(exc).__name__)
        finally:
            self._ledger.settle(reason, usage)

    async def _score(
        self, evaluator: AsyncEvaluator, sample: RagSample, meter: SpendMeter
    ) -> tuple[str | None, str | None, EvaluationResult | None]:
        timeout = self._config.evaluation_timeout_s
        # The timeout doubles as the CPU budget: an in-process judge busy in synchronous work never yields to the
        # loop's timer, but it checks its budget between steps (ragmetrics_core.budget), and stop() cancels it.
        # The meter records what the judge's calls are billed, so a timed-out evaluation is still charged.
        with cpu_budget(timeout) as budget, metering(meter):
            with self._budgets_lock:
                self._budgets.add(budget)
            try:
                result = await asyncio.wait_for(_contained(lambda: evaluator.aevaluate(sample)), timeout)
            except TimeoutError:
                return "timeout", f"evaluation timed out after {timeout:g} s", None
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._config.warn.warning(
                    "judge", "ragmetrics evaluation failed: %s", self._config.redactor.error(_describe(exc))
                )
                return "judge_error", _describe(exc), None
            finally:
                with self._budgets_lock:
                    self._budgets.discard(budget)
        if not isinstance(result, EvaluationResult):
            return "internal_error", f"aevaluate returned {type(result).__name__}, not EvaluationResult", None
        if result.error and not result.evidence.errors:
            return "evaluation_error", result.error, result
        if result.evidence.errors:
            # The engine records judge failures on the evidence and leaves the affected metrics undetermined.
            message = "; ".join(sorted(set(result.evidence.errors.values())))
            self._config.warn.warning("judge", "ragmetrics judge failed: %s", self._config.redactor.error(message))
            if all(entry.score is None for entry in result.scores.values()):
                return "judge_error", message, result
        return None, None, result

    def _emit(
        self,
        submission: Submission,
        sample: RagSample | None,
        result: EvaluationResult | None,
        error: str | None,
        failure: str | None,
        metrics: tuple[str, ...],
        started_ns: int,
        finished_ns: int,
    ) -> None:
        if not self._config.emitter_threads:
            return
        redactor = self._config.redactor
        view = None if sample is None else SampleView.of(sample, redactor)
        origin = labelled_origin(submission.origin, redactor)
        span = origin.span
        subject = span if span is not None and span.valid else self._create_subject(origin, view)
        record = EvaluationRecord(
            record_id=uuid.uuid4().hex,
            origin=origin,
            decision=SamplingDecision.EVALUATED,
            route=submission.route.name or "default",
            rate=submission.route.rate,
            subject=subject,
            sample_id=None if sample is None else redactor.label(sample.id),
            sample=view,
            result=None if result is None else sanitize_result(result, redactor),
            error=None if error is None else redactor.error(error),
            judge=None if result is None else result.judge,
            usage=result.usage if result is not None else Usage(),
            submitted_ns=submission.submitted_ns,
            started_ns=started_ns,
            finished_ns=finished_ns,
            failure=failure if error is not None else None,
            metrics=metrics,
            metric_explanations={} if result is None else explain_for_telemetry(result, redactor),
        )
        for thread in self._config.emitter_threads:
            if not thread.offer(record):
                self._config.warn.warning(
                    f"backlog:{thread.name}", "ragmetrics emitter %s is backlogged; dropping records", thread.name
                )

    def _create_subject(self, origin: Origin, view: SampleView | None) -> SpanRef | None:
        factory = self._config.subject_factory
        if factory is None:
            return None
        try:
            return factory.create_subject_span(origin, view)
        except Exception as exc:
            self._config.warn.warning("subject", "ragmetrics could not create the RAG span: %s", _describe(exc))
            return None


class EvaluatorAborted(Exception):
    """An evaluator raised what would end the worker (``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit``, or a
    ``CancelledError`` nobody asked for): the sample fails with it, the worker goes on."""


async def _contained(evaluate: Callable[[], Awaitable[EvaluationResult]]) -> EvaluationResult:
    """Run one evaluation so that nothing it raises escapes as more than a failed sample.

    ``evaluate`` is called in here, so a synchronous ``aevaluate`` raising before it returns an awaitable is caught
    too. asyncio re-raises ``SystemExit`` and ``KeyboardInterrupt`` out of the task that raised them, through the
    event loop itself: caught here, inside the task, they become an ordinary exception, as does any other
    ``BaseException`` (a signal to the main thread never arrives on this one: whatever is raised here, user code
    raised). A ``CancelledError`` is passed on only when this task is really being cancelled (timeout, shutdown).
    """
    try:
        return await evaluate()
    except Exception:
        raise
    except BaseException as exc:
        if is_cancellation(exc):
            raise
        raise EvaluatorAborted(f"the evaluator raised {_describe(exc)}") from None


def _spent(result: EvaluationResult | None, meter: SpendMeter) -> Usage:
    """What an evaluation is charged: its result's usage, or what its calls were billed when it has none (cut by
    the timeout, cancelled, failed), as the judge's endpoint metered them."""
    if result is not None and (result.usage.calls or result.usage.total_tokens or not meter.calls):
        return result.usage
    return Usage(calls=meter.calls, prompt_tokens=meter.prompt_tokens, completion_tokens=meter.completion_tokens)


def _metrics_of(evaluator: AsyncEvaluator | None) -> tuple[str, ...]:
    """The evaluator's ``metrics`` attribute (a user's evaluator may have none, or a property that raises)."""
    try:
        metrics = getattr(evaluator, "metrics", None) or ()
        return tuple(metric for metric in metrics if isinstance(metric, str))
    except BaseException:
        return ()


def _to_sample(submission: Submission) -> RagSample:
    sample = submission.sample
    if isinstance(sample, RagSample):
        return sample
    if isinstance(sample, SampleDraft):
        return sample.to_sample(sample_id=submission.origin.run_id)
    raise TypeError(f"expected a RagSample or SampleDraft, got {type(sample).__name__}")


def _describe_invalid(exc: Exception) -> str:
    """Field names and messages only: pydantic's default text quotes the input, which may be private."""
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'sample'}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        )
    return str(exc)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def labelled_origin(origin: Origin, redactor: Redactor) -> Origin:
    """The origin as telemetry may show it: its names, ids and tags through :meth:`Redactor.label` (secrets masked,
    capped, encodable)."""
    return dataclasses.replace(
        origin,
        chain_name=redactor.label(origin.chain_name),
        run_id=redactor.label(origin.run_id),
        tags=tuple(redactor.label(tag) or "" for tag in origin.tags),
    )
