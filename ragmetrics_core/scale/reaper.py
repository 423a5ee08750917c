"""Stops the processes of a local Ray instance whose driver died without shutting it down.

When the driver that started a local Ray (``ray.init()`` without an address) is killed, Ray's GCS server and raylet
notice and exit, but the raylet's DashboardAgent and RuntimeEnvAgent do not: with Ray 2.60 both stay behind,
orphaned to init, after ``kill -9`` of ``ragmetrics evaluate --backend ray``. A SIGKILL runs no cleanup in the
driver, so the cleanup has to live elsewhere: :func:`start_reaper` spawns this module as a small process of its own
session that watches the driver, remembers every Ray process it has seen below it, and stops those still running
once the driver is gone. A driver that shuts Ray down itself stops the reaper first (:meth:`Reaper.stop`), so a
normal exit kills nothing.

Run as ``python -m ragmetrics_core.scale.reaper DRIVER_PID``. Needs ``psutil`` (in the ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable

import psutil

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

POLL_S = 0.5
GRACE_S = 5.0


def is_ray_process(process: psutil.Process) -> bool:
    """Ray's own processes: ``ray::…`` titles, the raylet and GCS binaries, and Python scripts under ``ray/``."""
    try:
        if process.name().startswith("ray::"):
            return True
        command = process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    head = " ".join(command[:2])
    return head.startswith("ray::") or f"{os.sep}ray{os.sep}" in head


def ray_descendants(pid: int) -> list[psutil.Process]:
    """The Ray processes below ``pid`` (any depth), this process excluded."""
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [child for child in children if child.pid != os.getpid() and is_ray_process(child)]


def stop_processes(processes: Iterable[psutil.Process], grace_s: float = GRACE_S) -> int:
    """SIGTERM each process still running (``is_running`` also checks it is the same process, not a reused pid),
    SIGKILL those alive after ``grace_s``; returns how many had to be stopped."""
    running = [process for process in processes if _running(process)]
    for process in running:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.terminate()
    _, alive = psutil.wait_procs(running, timeout=grace_s)
    for process in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(alive, timeout=grace_s)
    return len(running)


def watch(driver_pid: int, poll_s: float = POLL_S) -> int:
    """Wait for the driver to die, then stop every Ray process seen below it; returns how many were stopped."""
    try:
        driver = psutil.Process(driver_pid)
    except psutil.NoSuchProcess:
        return 0
    seen: dict[int, psutil.Process] = {}
    while _running(driver):
        for process in ray_descendants(driver_pid):
            seen.setdefault(process.pid, process)
        time.sleep(poll_s)
    return stop_processes(seen.values())


def _running(process: psutil.Process) -> bool:
    try:
        return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


class Reaper:
    """The watching process of :func:`start_reaper`."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def stop(self) -> None:
        """The driver is shutting Ray down itself: the reaper leaves without stopping anything."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=GRACE_S)


def start_reaper(driver_pid: int | None = None) -> Reaper:
    """Watch ``driver_pid`` (this process by default) from a process of its own session, which outlives it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ragmetrics_core.scale.reaper", str(driver_pid or os.getpid())],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    return Reaper(process)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m ragmetrics_core.scale.reaper DRIVER_PID", file=sys.stderr)
        return 2
    # SIGTERM (Reaper.stop) ends the watch at once; nothing is stopped.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    watch(int(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
