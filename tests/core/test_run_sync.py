"""run_sync: one reusable loop per thread, asyncio.run semantics otherwise."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from ragmetrics_core.engine import run_sync


async def _loop_id() -> int:
    return id(asyncio.get_running_loop())


def test_returns_value_and_reuses_the_threads_loop() -> None:
    assert run_sync(_loop_id()) == run_sync(_loop_id())


def test_propagates_exceptions_and_stays_usable() -> None:
    async def boom() -> None:
        raise KeyError("bad")

    with pytest.raises(KeyError, match="bad"):
        run_sync(boom())
    assert run_sync(_loop_id()) > 0


def test_leftover_tasks_are_cancelled_before_returning() -> None:
    events: list[str] = []

    async def background() -> None:
        try:
            await asyncio.sleep(10)
            events.append("ran on")
        except asyncio.CancelledError:
            events.append("cancelled")
            raise

    async def spawn() -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(background())
        await asyncio.sleep(0)
        return task

    task = run_sync(spawn())
    assert task.cancelled()
    assert events == ["cancelled"]
    run_sync(asyncio.sleep(0))
    assert events == ["cancelled"]


async def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_each_thread_gets_its_own_loop() -> None:
    # Hold the loop objects themselves: ids of loops already freed could be reused by later ones.
    seen: dict[str, asyncio.AbstractEventLoop] = {}

    def worker(name: str) -> None:
        seen[name] = run_sync(_loop())

    threads = [threading.Thread(target=worker, args=(f"t{number}",)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4
    loops = [*seen.values(), run_sync(_loop())]
    assert len({id(loop) for loop in loops}) == 5


def test_inside_a_running_loop_runs_elsewhere() -> None:
    async def outer() -> tuple[int, int]:
        return id(asyncio.get_running_loop()), run_sync(_loop_id())

    outer_loop, inner_loop = asyncio.run(outer())
    assert outer_loop != inner_loop



def test_a_finished_threads_loop_is_closed() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def capture() -> None:
        loops.append(asyncio.get_running_loop())

    thread = threading.Thread(target=lambda: run_sync(capture()))
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert len(loops) == 1
    assert loops[0].is_closed()  # no event loop (and its file descriptors) kept per ended thread
