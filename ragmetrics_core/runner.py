"""The one way many samples are scored: ``concurrency`` workers pulling from the input, a progress bar, every
sample's result handed over as it finishes, failures recorded per sample.

``Evaluator.evaluate_many``, the ensemble's and the file batch (``ragmetrics evaluate``) all run through
:func:`score_many`; what differs between them is only what happens to each result (kept in order, written to a
file) and whether Ctrl-C should stop taking new samples (:class:`StopFlag`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from tqdm import tqdm

from ragmetrics_core.results import EvaluationResult

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

Item = TypeVar("Item")


@dataclass
class StopFlag:
    """Set it (from a signal handler, say) and the workers take no new sample; the ones in flight finish."""

    stopping: bool = False


async def score_many(
    items: Iterable[Item],
    score: Callable[[Item], Awaitable[EvaluationResult]],
    on_result: Callable[[int, Item, EvaluationResult], None],
    *,
    concurrency: int,
    total: int | None = None,
    progress: bool | None = None,
    description: str = "evaluating",
    stop: StopFlag | None = None,
    workers: list[asyncio.Task[None]] | None = None,
) -> None:
    """Score every item with ``score``, at most ``concurrency`` at a time, and call ``on_result(index, item,
    result)`` for each as it finishes. ``score`` must turn a sample's own failure into a result (the runner
    never drops one); an exception it lets through ends the run. ``progress``: a bar on stderr (by default only
    when stderr is a terminal). The worker tasks are added to ``workers`` when given (to cancel them)."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    show = sys.stderr.isatty() if progress is None else progress
    pending = iter(enumerate(items))
    flag = stop or StopFlag()

    fatal: list[BaseException] = []

    async def work(bar: tqdm[Any]) -> None:
        for index, item in pending:
            if flag.stopping:
                return
            try:
                result = await score(item)
            except BaseException as exc:
                if is_cancellation(exc):
                    raise
                # Ctrl-C, or what a user's evaluator raised past its own handling: the run stops taking samples,
                # the other workers finish theirs (recorded), and it is raised once they have.
                fatal.append(exc)
                flag.stopping = True
                return
            on_result(index, item, result)
            bar.update(1)
            # A CPU-bound judge may never suspend; yielding here lets the loop see Ctrl-C between samples.
            await asyncio.sleep(0)

    bar = tqdm(total=total, disable=not show, unit="sample", file=sys.stderr, dynamic_ncols=True, desc=description)
    with bar:
        tasks = [asyncio.create_task(work(bar)) for _ in range(concurrency)]
        if workers is not None:
            workers.extend(tasks)
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    if fatal:
        raise fatal[0]
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            raise outcome


def is_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is this task being cancelled (a ``CancelledError`` some user code raised on its own is not)."""
    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


def stops_the_run(exc: BaseException) -> bool:
    """What must end a batch run rather than fail one sample: Ctrl-C, or the run's own cancellation. Anything else a
    judge raises (``SystemExit``, ``GeneratorExit``, a custom ``BaseException``) is that sample's failure."""
    return isinstance(exc, KeyboardInterrupt) or is_cancellation(exc)


def keep_partial(exc: BaseException, name: str, value: object, note: str) -> None:
    """Attach what a run had computed to the exception that ended it (as ``exc.<name>``), saying so in a note."""
    if hasattr(exc, name):
        return  # an inner run already attached its own
    try:
        setattr(exc, name, value)
    except (AttributeError, TypeError):  # an exception type with __slots__: the note still says what was done
        exc.add_note(f"ragmetrics: {note} (not attachable to this exception)")
        return
    exc.add_note(f"ragmetrics: {note}; they are on this exception as .{name}")
