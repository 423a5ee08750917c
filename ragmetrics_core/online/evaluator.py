"""OnlinePipeline: take samples from the app's hot path, score them in the background, emit telemetry.

``submit`` does a sampling decision and a bounded ``deque.append`` under one short lock and returns; no
I/O, no validation, no allocation beyond the queued tuple. A worker thread with its own asyncio loop does
the rest (see ``ragmetrics_core.online.worker``). The pipeline starts lazily on the first accepted
submission, and again in a forked child (``os.register_at_fork``), whose counters start from zero.
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ragmetrics_core.calibration.model import Calibration, as_calibration
from ragmetrics_core.engine import AsyncEvaluator
from ragmetrics_core.judges.base import Usage
from ragmetrics_core.online.emitters.base import Emitter, EmitterThread, SubjectSpanFactory
from ragmetrics_core.online.privacy import PrivacyOptions, Redactor
from ragmetrics_core.online.sampler import Sampler
from ragmetrics_core.online.stats import OnlineStats
from ragmetrics_core.online.types import Origin, SampleDraft, SamplingDecision
from ragmetrics_core.online.worker import Submission, Worker, WorkerConfig
from ragmetrics_core.ratelog import RateLimitedLog
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics.online")
_NO_ORIGIN = Origin()


def _default_evaluator() -> AsyncEvaluator:
    from ragmetrics_core.engine import Evaluator  # imported on the worker: the engine loads its judge lazily

    evaluator: AsyncEvaluator = Evaluator()
    return evaluator


@dataclass(slots=True, eq=False)
class _State:
    """What an :class:`OnlinePipeline` changes as it runs, in one object so that a forked child replaces it
    whole (its inherited locks may be held by threads that do not exist in the child, its counts are the
    parent's). ``lock`` guards the counters, the queue and ``idle``; ``start_lock`` guards ``worker`` and
    ``emitter_threads``; ``cond`` (on ``lock``) is notified when the queue is empty and nothing is in flight."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    cond: threading.Condition = field(init=False)
    start_lock: threading.Lock = field(default_factory=threading.Lock)
    queue: deque[Submission] = field(default_factory=deque)
    idle: bool = False
    finalized: bool = False
    worker: Worker | None = None
    emitter_threads: tuple[EmitterThread, ...] = ()
    submitted: int = 0
    accepted: int = 0
    completed: int = 0
    failed: int = 0
    not_sampled: int = 0
    throttled: int = 0
    over_budget: int = 0
    queue_full: int = 0
    rejected: int = 0
    abandoned: int = 0
    in_flight: int = 0
    failure_reasons: dict[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self.cond = threading.Condition(self.lock)


_COUNTERS = tuple(
    f.name for f in dataclasses.fields(OnlineStats) if f.type == "int" and f.name in _State.__dataclass_fields__
)
"""The counts :class:`_State` keeps and :class:`OnlineStats` reports as they are, named once (by OnlineStats)."""


class OnlinePipeline:
    """Scores sampled production traffic off the hot path: sampling, a bounded queue, a worker running the
    evaluator, and the emitters. (Called ``OnlineEvaluator`` before; that name is a deprecated alias.)

    Args:
        evaluator: anything with ``async aevaluate(sample) -> EvaluationResult``; by default the engine's
            ``Evaluator()`` with the embedded judge, created on the worker thread.
        sampler: which submissions to score (default: all, no throttle, no budget).
        emitters: where records go; each runs on its own thread behind a queue of ``emitter_queue`` records.
        privacy: what user text may leave the process (default: captured, secrets masked, capped).
        max_queue: submissions waiting for the worker; beyond it the newest is dropped and counted.
        concurrency: evaluations running at once on the worker loop.
        evaluation_timeout_s: per evaluation; a judge that hangs is cut off and counted as failed.
        register_atexit: shut down (within ``atexit_timeout_s``) when the interpreter exits.
        calibration: a :class:`~ragmetrics_core.calibration.Calibration` or its file: each calibrated score then
            carries its ``probability`` to every emitter.
    """

    def __init__(
        self,
        evaluator: AsyncEvaluator | None = None,
        *,
        sampler: Sampler | None = None,
        emitters: Sequence[Emitter] = (),
        privacy: PrivacyOptions | None = None,
        max_queue: int = 1000,
        concurrency: int = 4,
        evaluation_timeout_s: float | None = 120.0,
        emitter_queue: int = 1000,
        register_atexit: bool = False,
        atexit_timeout_s: float = 5.0,
        calibration: Calibration | str | os.PathLike[str] | None = None,
    ) -> None:
        _positive_int("max_queue", max_queue)
        _positive_int("concurrency", concurrency)
        _positive_int("emitter_queue", emitter_queue)
        if evaluation_timeout_s is not None and not evaluation_timeout_s > 0:
            raise ValueError(f"evaluation_timeout_s must be positive or None, got {evaluation_timeout_s!r}")
        if evaluator is not None and not callable(getattr(evaluator, "aevaluate", None)):
            raise TypeError("evaluator must have an async aevaluate(sample) method, like ragmetrics' Evaluator")
        for emitter in emitters:
            if not isinstance(emitter, Emitter):
                raise TypeError(f"{type(emitter).__name__} is not an Emitter (name, emit, force_flush, shutdown)")
        self._evaluator = evaluator
        self._calibration = None if calibration is None else as_calibration(calibration)
        if self._calibration is not None and evaluator is None and not self._calibration.applies_to("embedded"):
            raise ValueError(
                f"the calibration was fitted on judge {self._calibration.judge!r}; pass an evaluator with that judge "
                "(the default one is the embedded judge)"
            )
        self.sampler = sampler if sampler is not None else Sampler()
        self._emitters = tuple(emitters)
        self._redactor = Redactor(privacy if privacy is not None else PrivacyOptions())
        self._max_queue = max_queue
        self._concurrency = concurrency
        self._evaluation_timeout_s = evaluation_timeout_s
        self._emitter_queue = emitter_queue
        self._warn = RateLimitedLog(_log)
        self._state = _State()
        self._closed = False
        self._shutdown_result: bool | None = None
        self._atexit_timeout_s = atexit_timeout_s
        self._register_atexit = register_atexit
        self._atexit_registered = False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_callback(weakref.ref(self)))

    # ------------------------------------------------------------------ hot path

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> SamplingDecision:
        """Offer one sample for scoring; returns at once with what was decided. Never raises."""
        state = self._state
        try:
            if origin is None:
                origin = _NO_ORIGIN
            elif not isinstance(origin, Origin):
                return self._reject()
            route = self.sampler.select(origin)
        except Exception:
            return self._reject()
        with state.lock:
            state.submitted += 1
            try:
                if self._closed:
                    state.rejected += 1
                    return SamplingDecision.REJECTED
                if route is None:
                    state.not_sampled += 1
                    return SamplingDecision.NOT_SAMPLED
                decision = self.sampler.admit(len(state.queue))
                if decision is not SamplingDecision.EVALUATED:
                    if decision is SamplingDecision.THROTTLED:
                        state.throttled += 1
                    else:
                        state.over_budget += 1
                    return decision
                if len(state.queue) >= self._max_queue:
                    state.queue_full += 1
                    return SamplingDecision.QUEUE_FULL
                state.queue.append(Submission(sample, origin, route, time.time_ns()))
                state.accepted += 1
                wake = state.idle
                state.idle = False
            except Exception:
                state.rejected += 1
                return SamplingDecision.REJECTED
        worker = state.worker
        if worker is None:
            self._start()
        elif wake:
            worker.wake()
        return SamplingDecision.EVALUATED

    # ------------------------------------------------------------------ control

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until everything accepted so far is scored and emitted; ``False`` on timeout."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        if not self._drain(deadline):
            return False
        # Every emitter flushes in parallel on its own thread, so a stuck one cannot starve the others.
        markers = [(thread, thread.begin_flush(deadline - time.monotonic())) for thread in self._state.emitter_threads]
        results = [thread.wait_flushed(marker, deadline - time.monotonic()) for thread, marker in markers]
        return all(results)

    def shutdown(self, timeout_s: float = 5.0) -> bool:
        """Stop taking submissions, finish what fits in ``timeout_s``, then stop; ``True`` if nothing was lost.

        Whatever is still queued when time runs out is counted as ``abandoned`` and whatever is still
        running as failed (``shutdown_timeout``), so the counters stay exact. Returns within the timeout
        (plus scheduling noise) even when a judge hangs or an exporter's collector is unreachable.
        """
        state = self._state
        deadline = time.monotonic() + max(0.0, timeout_s)
        with state.lock:
            already = self._closed
            self._closed = True
        if already:
            return self._shutdown_result is not False
        if self._atexit_registered:
            atexit.unregister(self._at_exit)
            self._atexit_registered = False
        drained = self._drain(deadline - 0.1 * max(0.0, timeout_s))
        with state.start_lock:
            worker, emitter_threads = state.worker, state.emitter_threads
        stopped = worker.stop(deadline - time.monotonic()) if worker is not None else True
        lost = self._finalize()
        asked = [thread.begin_close(deadline - time.monotonic()) for thread in emitter_threads]
        closed = [thread.wait_closed(deadline - time.monotonic()) for thread in emitter_threads]
        self._shutdown_result = drained and stopped and not lost and all(asked) and all(closed)
        return self._shutdown_result

    async def aflush(self, timeout_s: float = 10.0) -> bool:
        """:meth:`flush` without blocking the caller's event loop."""
        return await asyncio.to_thread(self.flush, timeout_s)

    async def ashutdown(self, timeout_s: float = 5.0) -> bool:
        """:meth:`shutdown` without blocking the caller's event loop."""
        return await asyncio.to_thread(self.shutdown, timeout_s)

    def stats(self) -> OnlineStats:
        state = self._state
        with state.lock:
            snapshot = OnlineStats(
                **{name: getattr(state, name) for name in _COUNTERS},
                queued=len(state.queue),
                failure_reasons=dict(state.failure_reasons),
                usage=state.usage,
                budget_remaining=self.sampler.budget_remaining(),
            )
            emitter_threads = state.emitter_threads
        return dataclasses.replace(snapshot, emitters={thread.name: thread.stats() for thread in emitter_threads})

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> OnlinePipeline:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()

    # ------------------------------------------------------------------ ledger (worker side)

    def _take(self) -> Submission | None:
        state = self._state
        with state.lock:
            while state.queue:
                submission = state.queue.popleft()
                # The budget is checked again as the sample starts: the burst queued before costs were known
                # must not all run. A refusal here counts as over_budget, like one at submit.
                if self.sampler.start():
                    state.in_flight += 1
                    return submission
                state.over_budget += 1
            state.cond.notify_all()
            return None

    def _go_idle(self) -> bool:
        state = self._state
        with state.lock:
            if state.queue:
                return False
            state.idle = True
            return True

    def _settle(self, failure_reason: str | None, usage: Usage) -> None:
        state = self._state
        with state.cond:
            if state.finalized:
                return
            state.in_flight -= 1
            if failure_reason is None:
                state.completed += 1
            else:
                state.failed += 1
                state.failure_reasons[failure_reason] = state.failure_reasons.get(failure_reason, 0) + 1
            if usage.calls or usage.embedding_calls or usage.total_tokens:
                state.usage = state.usage + usage
            self.sampler.charge(usage.total_tokens)  # every started evaluation, to release its reservation
            if not state.queue and state.in_flight == 0:
                state.cond.notify_all()

    # ------------------------------------------------------------------ internals

    def _after_fork_in_child(self) -> None:
        self._state = _State()  # the parent's locks, threads and counts mean nothing here
        self._warn.reset()

    def _reject(self) -> SamplingDecision:
        state = self._state
        try:
            with state.lock:
                state.submitted += 1
                state.rejected += 1
        except Exception:  # nothing we do may raise into the caller
            pass
        return SamplingDecision.REJECTED

    def _start(self) -> None:
        state = self._state
        with state.start_lock:
            if state.worker is not None or self._closed:
                return
            self._register_exit_hook()
            try:
                state.emitter_threads = self._start_emitter_threads()
                worker = Worker(_Ledger(self), self._worker_config())
                worker.start()
            except Exception as exc:  # e.g. no more threads: submissions wait and shutdown settles them
                self._warn.warning("start", "ragmetrics could not start its worker: %s", type(exc).__name__)
                return
            state.worker = worker
        _started.add(self)

    def _register_exit_hook(self) -> None:
        """With ``register_atexit``, the exit hook, registered at the first submission rather than when the pipeline
        is built: atexit runs the last registered hook first, and an OpenTelemetry SDK provider registers its own
        shutdown when it is created, usually after the pipeline (built at import time) and before its first
        submission. So our hook runs first and still has a provider to emit into."""
        if self._register_atexit and not self._atexit_registered:
            atexit.register(self._at_exit)
            self._atexit_registered = True

    def _start_emitter_threads(self) -> tuple[EmitterThread, ...]:
        emitter_threads = []
        seen: dict[str, int] = {}
        for emitter in self._emitters:
            name = _emitter_name(emitter)
            seen[name] = seen.get(name, 0) + 1
            unique = name if seen[name] == 1 else f"{name}#{seen[name]}"
            emitter_threads.append(EmitterThread(emitter, unique, self._emitter_queue, self._on_emitter_failure))
        return tuple(emitter_threads)

    def _worker_config(self) -> WorkerConfig:
        evaluator = self._evaluator
        factory: Callable[[], AsyncEvaluator] = (lambda: evaluator) if evaluator is not None else _default_evaluator
        if self._calibration is not None:
            factory = _calibrated(factory, self._calibration)
        subject_factory = next((e for e in self._emitters if isinstance(e, SubjectSpanFactory)), None)
        return WorkerConfig(
            concurrency=self._concurrency,
            evaluation_timeout_s=self._evaluation_timeout_s,
            redactor=self._redactor,
            emitter_threads=self._state.emitter_threads,
            subject_factory=subject_factory,
            evaluator_factory=factory,
            warn=self._warn,
        )

    def _on_emitter_failure(self, name: str, operation: str, exc: BaseException) -> None:
        message = self._redactor.error(f"{type(exc).__name__}: {exc}")
        self._warn.warning(
            f"emitter:{name}:{operation}", "ragmetrics emitter %s %s failed: %s", name, operation, message
        )

    def _drain(self, deadline: float) -> bool:
        state = self._state
        with state.cond:
            return state.cond.wait_for(
                lambda: not state.queue and state.in_flight == 0, max(0.0, deadline - time.monotonic())
            )

    def _finalize(self) -> bool:
        """Settle what the worker could not, so the counters stay exact; ``True`` if anything was lost."""
        state = self._state
        with state.cond:
            if state.finalized:
                return False
            state.finalized = True
            abandoned = len(state.queue)
            state.abandoned += abandoned
            state.queue.clear()
            unfinished = state.in_flight
            if unfinished:
                state.failed += unfinished
                reasons = state.failure_reasons
                reasons["shutdown_timeout"] = reasons.get("shutdown_timeout", 0) + unfinished
                state.in_flight = 0
            state.cond.notify_all()
            return bool(abandoned or unfinished or state.failure_reasons.get("cancelled"))

    def _at_exit(self) -> None:
        if not self.shutdown(self._atexit_timeout_s):
            stats = self.stats()
            reasons = ", ".join(f"{reason}: {count}" for reason, count in sorted(stats.failure_reasons.items()))
            _log.warning(
                "ragmetrics: the online pipeline did not finish within atexit_timeout_s=%g s at interpreter exit: "
                "%d sample(s) abandoned in the queue, %d failed (%s); raise atexit_timeout_s, or call shutdown() "
                "before the process exits",
                self._atexit_timeout_s, stats.abandoned, stats.failed, reasons or "none",
            )

    def _report_unfinished_at_exit(self) -> None:
        """Without the exit hook, say what the interpreter's exit is about to lose, and stop the threads."""
        if self._closed:
            return
        stats = self.stats()
        with self._state.start_lock:
            emitter_threads = self._state.emitter_threads
        waiting = sum(thread.backlog() for thread in emitter_threads)
        lost = stats.queued + stats.in_flight + waiting
        if lost:
            _log.warning(
                "ragmetrics: %d sample(s) submitted to ragmetrics were not scored and emitted when the interpreter "
                "exited (%d queued, %d being scored, %d waiting for an emitter) and are lost; call flush() on the "
                "pipeline before exiting, or create it with OnlinePipeline(register_atexit=True)",
                lost, stats.queued, stats.in_flight, waiting,
            )
            # Stop the worker (cancelling what it runs) rather than leave it running Python code while the
            # interpreter finalises: a daemon thread busy at that moment made the exit crash (SIGSEGV) now and then.
            self.shutdown(_STOP_AT_EXIT_S)


_STOP_AT_EXIT_S = 0.5
"""How long the exit waits for the threads of a pipeline without an exit hook to stop (work is lost either way)."""


class _Ledger:
    """The worker's view of the owner's accounting (kept off the public API)."""

    def __init__(self, owner: OnlinePipeline) -> None:
        self._owner = owner

    def take(self) -> Submission | None:
        return self._owner._take()

    def go_idle(self) -> bool:
        return self._owner._go_idle()

    def settle(self, failure_reason: str | None, usage: Usage) -> None:
        self._owner._settle(failure_reason, usage)


_started: weakref.WeakSet[OnlinePipeline] = weakref.WeakSet()
"""Pipelines whose worker started: what is still pending in them at exit is reported, not silently lost."""


def _report_unfinished_at_exit() -> None:
    for pipeline in list(_started):
        try:
            pipeline._report_unfinished_at_exit()
        except Exception:  # nothing may fail the interpreter's exit
            continue


# Registered on import, so it runs after every pipeline's own exit hook (atexit runs the last registered first).
atexit.register(_report_unfinished_at_exit)


def _positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


def _emitter_name(emitter: Emitter) -> str:
    try:
        name = emitter.name
    except Exception:
        name = ""
    return name if isinstance(name, str) and name else type(emitter).__name__


def _calibrated(factory: Callable[[], AsyncEvaluator], calibration: Calibration) -> Callable[[], AsyncEvaluator]:
    def make() -> AsyncEvaluator:
        from ragmetrics_core.calibration.apply import CalibratedEvaluator

        return CalibratedEvaluator(factory(), calibration)

    return make


def _after_fork_callback(ref: weakref.ReferenceType[OnlinePipeline]) -> Callable[[], None]:
    def reset() -> None:
        evaluator = ref()
        if evaluator is not None:
            evaluator._after_fork_in_child()

    return reset


def __getattr__(name: str) -> object:
    """``OnlineEvaluator``, the old name of :class:`OnlinePipeline`, for one release."""
    if name == "OnlineEvaluator":
        import warnings

        warnings.warn(
            "OnlineEvaluator is deprecated and will be removed in the next release; use OnlinePipeline",
            DeprecationWarning,
            stacklevel=2,
        )
        return OnlinePipeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
