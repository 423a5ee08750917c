"""What the tests that start a real server (Phoenix, Prometheus, Ray, uvicorn) or need a refused connection share."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
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
