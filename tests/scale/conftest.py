"""A real Ray head node for the whole package: started once with ``ray start --head`` on 127.0.0.1 (3 logical CPUs:
two scoring actors and one left free for Ray Data), joined by address by this process and by the CLI subprocesses,
and stopped with ``ray stop`` at the end. Starting Ray costs seconds, so every test shares this one."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import ROOT, cli_env

# Set before Ray is imported (it reads them once): every Ray process of these tests listens on 127.0.0.1 only (Ray
# otherwise puts even a local node on the machine's outward address), and drivers send the head node's token.
LOCAL_RAY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token", "RAY_USAGE_STATS_ENABLED": "0"}
os.environ.update(LOCAL_RAY)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def ray_env() -> dict[str, str]:
    """The CLI's environment; workers started by the head inherit it, so they import this checkout and tests/."""
    env = cli_env()
    env.update(LOCAL_RAY)
    env.pop("RAY_ADDRESS", None)
    return env


def _ray_cli() -> str:
    found = Path(sys.executable).with_name("ray")
    return str(found) if found.exists() else (shutil.which("ray") or "ray")


@pytest.fixture(scope="session")
def ray_head() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    port = free_port()
    command = [
        _ray_cli(), "start", "--head", "--port", str(port), "--num-cpus", "3", "--node-ip-address", "127.0.0.1",
        "--include-dashboard=false", "--disable-usage-stats",
    ]
    subprocess.run(command, check=True, env=ray_env(), cwd=ROOT, capture_output=True, timeout=180)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        if ray.is_initialized():
            ray.shutdown()
        subprocess.run([_ray_cli(), "stop", "--force"], env=ray_env(), capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def ray_cluster(ray_head: str) -> Iterator[str]:
    """This process joined to the head node (as a driver); yields the address."""
    from ragmetrics_core.scale.ray_engine import connect

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
