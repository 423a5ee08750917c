"""A real Ray head node for the whole package: started once with ``ray start --head --block`` on 127.0.0.1 (3
logical CPUs: two scoring actors and one left free for Ray Data; free ports), joined by
address by this process and by the CLI subprocesses, and stopped at the end with every process it started, and
no other Ray on the machine. Starting Ray costs seconds, so every test shares this one."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import ROOT, cli_env
from tests.servers import free_port

# Set before Ray is imported (it reads them once): drivers send the head node's token, and no usage stats are sent.
# (The head advertises 127.0.0.1 through --node-ip-address; Ray 2.60 still binds its gRPC ports on every interface,
# see docs/scale.md.)
LOCAL_RAY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token", "RAY_USAGE_STATS_ENABLED": "0"}
os.environ.update(LOCAL_RAY)


def ray_env() -> dict[str, str]:
    """The CLI's environment; workers started by the head inherit it, so they import this checkout and tests/."""
    env = cli_env()
    env.update(LOCAL_RAY)
    env.pop("RAY_ADDRESS", None)
    return env


def _ray_cli() -> str:
    found = Path(sys.executable).with_name("ray")
    return str(found) if found.exists() else (shutil.which("ray") or "ray")


# Every port `ray start --head` would otherwise take from a fixed default (6379, 10001, 52365, ...): under load or
# beside another Ray, a taken default made `ray start` fail.
_PORT_OPTIONS = (
    "--port", "--node-manager-port", "--object-manager-port", "--ray-client-server-port",
    "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--metrics-export-port",
    "--runtime-env-agent-port",
)
START_ATTEMPTS = 3
READY_TIMEOUT_S = 180.0


def _start_head(log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``ray start --head --block`` with free ports, ready to take drivers; raises with
    Ray's output when it exits or does not become ready in time (its processes are stopped then)."""
    ports = {option: free_port() for option in _PORT_OPTIONS}
    # Ray's default temp dir: drivers find the head's node address in it (with a dir of our own they would not).
    command = [
        _ray_cli(), "start", "--head", "--block", "--num-cpus", "3", "--node-ip-address", "127.0.0.1",
        "--include-dashboard=false", "--disable-usage-stats", *(f"{option}={port}" for option, port in ports.items()),
    ]
    with log_path.open("wb") as log:
        head = subprocess.Popen(command, env=ray_env(), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    address = f"127.0.0.1:{ports['--port']}"
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if head.poll() is not None:
            break
        status = subprocess.run([_ray_cli(), "status", "--address", address], env=ray_env(), capture_output=True,
                                text=True, timeout=60, check=False)
        # Ready once the head's node is active (the GCS answers, with "No cluster status", before the raylet joins).
        if status.returncode == 0 and re.search(r"^\s*1 node_", status.stdout, re.MULTILINE):
            return head, address
        time.sleep(1.0)
    _stop_head(head)
    cause = "exited with " + str(head.returncode) if head.poll() is not None else "was not ready in time"
    raise RuntimeError(f"`ray start --head` {cause}; its output:\n{log_path.read_text(errors='replace')[-4000:]}")


def _stop_head(head: subprocess.Popen[bytes]) -> None:
    """Stop the head and every Ray process below it, workers included (they take process groups of their own, so
    a signal to the head's group misses them); other Ray instances on the machine are left alone."""
    from ragmetrics_core.scale.reaper import ray_descendants, stop_processes

    below = ray_descendants(head.pid)
    if head.poll() is None:
        head.terminate()  # `ray start --block` stops its processes on SIGTERM
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(timeout=10)
    stop_processes(below)


@pytest.fixture(scope="session")
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ray = pytest.importorskip("ray")
    failures: list[str] = []
    for attempt in range(1, START_ATTEMPTS + 1):  # a free port can be taken between our probe and Ray's bind
        try:
            head, address = _start_head(tmp_path_factory.mktemp("ray") / f"start-{attempt}.log")
            break
        except RuntimeError as error:
            failures.append(str(error))
    else:
        raise RuntimeError("\n\n".join(failures))
    try:
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        _stop_head(head)


@pytest.fixture(scope="session")
def ray_cluster(ray_head: str) -> Iterator[str]:
    """This process joined to the head node (as a driver); yields the address."""
    from ragmetrics_core.scale.ray_backend import connect

    os.environ.pop("RAY_ADDRESS", None)
    started = connect(ray_head)
    assert not started
    yield ray_head


def records_by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """JSONL records keyed by sample id, without what differs between two runs of the same scoring (wall time)."""
    found: dict[str, dict[str, Any]] = {}
    for record in rows:
        record = dict(record)
        record["usage"] = {key: value for key, value in record["usage"].items() if key != "latency_s"}
        record["metadata"] = {key: value for key, value in record.get("metadata", {}).items() if key != "elapsed_s"}
        found[record["sample_id"]] = record
    return found
