"""What the tests that start a real server (Phoenix, Prometheus, Ray, uvicorn) or need a refused connection share."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def free_port() -> int:
    """A loopback port that is free now (bound, then released): for a server to listen on, or, with nothing started
    on it, a port that refuses connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def poll(fetch: Callable[[], T], done: Callable[[T], bool], timeout_s: float, interval_s: float = 0.25) -> T:
    """``fetch()`` again every ``interval_s`` until ``done`` says yes or ``timeout_s`` passes; the last value either
    way, for the caller's assertion to show."""
    deadline = time.monotonic() + timeout_s
    value = fetch()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(interval_s)
        value = fetch()
    return value


def wait_until_ready(name: str, server: subprocess.Popen[bytes], ready_url: str, log: Path, timeout_s: float) -> None:
    """Return once ``ready_url`` answers 200; raise with the end of the server's ``log`` if the server exits first or
    ``timeout_s`` passes."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"{name} exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            # A loaded machine answers slowly; a short read timeout would count a slow answer as "not ready".
            if httpx.get(ready_url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{name} did not become ready:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the server has not exited within 20 seconds."""
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)
