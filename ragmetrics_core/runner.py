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

    async def work(bar: tqdm[Any]) -> None:
        for index, item in pending:
            if flag.stopping:
                return
            result = await score(item)
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
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            raise outcome
