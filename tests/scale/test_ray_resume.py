"""Kill the driver of a Ray run (SIGKILL, no chance to clean up) and run the same command again: every row once,
scores equal to an uninterrupted run's, and no Ray process of the killed run left behind. This one starts its own
local Ray (no --address), as a user's laptop would."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.judge_factory import JudgeSettings
from ragmetrics_core.scale.reaper import ray_descendants
from tests.cli.conftest import cli_command, good_row, read_jsonl, write_jsonl
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.scale.conftest import ray_env, records_by_id

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
ROWS = 48


@pytest.fixture
def slow_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency_s=0.15) as server:
        yield server


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_mid_run_then_the_same_command_finishes_each_row_once(
    slow_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    write_jsonl(tmp_path / "rows.jsonl", [{**good_row(index), "id": f"s{index}"} for index in range(ROWS)])
    command = cli_command(
        "evaluate", "rows.jsonl", "--out", "out.jsonl", "--judge", "openai", "--model", "fake-judge",
        "--base-url", slow_server.base_url, "--backend", "ray", "--workers", "2", "--concurrency", "2",
        "--batch-size", "4", "--no-progress",
    )
    out = tmp_path / "out.jsonl"
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        driver = subprocess.Popen(command, cwd=tmp_path, env=ray_env(), stdout=subprocess.DEVNULL, stderr=stderr,
                                  start_new_session=True)
    ray_processes: dict[int, psutil.Process] = {}
    try:
        deadline = time.monotonic() + 180
        while _lines(out) < 8 and driver.poll() is None and time.monotonic() < deadline:
            ray_processes.update((process.pid, process) for process in ray_descendants(driver.pid))
            time.sleep(0.02)
        assert driver.poll() is None, "the run ended before it could be killed"
        ray_processes.update((process.pid, process) for process in ray_descendants(driver.pid))
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    killed_at = _lines(out)
    assert 8 <= killed_at < ROWS
    # Ray's raylet and GCS exit by themselves; its DashboardAgent and RuntimeEnvAgent are stopped by our reaper.
    names = {process.pid: process.name() for process in ray_processes.values() if process.is_running()}
    # The kernel keeps 15 characters of a process name ("ray::DashboardA"); psutil may or may not restore the rest.
    assert any(name.startswith("ray::Dashboard") for name in names.values()), names
    _, alive = psutil.wait_procs(list(ray_processes.values()), timeout=30)
    assert not alive, [names.get(process.pid, process.pid) for process in alive]
    # Nothing of Ray's own chatter broke into the output (the CLI draws the only progress bar).
    noise = (tmp_path / "stderr.txt").read_text("utf-8", errors="replace")
    for line in ("Token authentication is enabled", "Progress bars disabled", "execution finished", "UserWarning"):
        assert line not in noise, noise

    again = subprocess.run(command, cwd=tmp_path, env=ray_env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{ROWS} samples: {ROWS - killed_at} evaluated, {killed_at} resumed, 0 failed" in again.stdout
    written = read_jsonl(out)
    assert sorted(row["sample_id"] for row in written) == sorted(f"s{index}" for index in range(ROWS))

    uninterrupted = tmp_path / "one_process.jsonl"
    settings = JudgeSettings(kind="openai", models=["fake-judge"], base_url=slow_server.base_url)
    evaluate_file(tmp_path / "rows.jsonl", out=uninterrupted, judge=settings, concurrency=8, progress=False)
    assert records_by_id(written) == records_by_id(read_jsonl(uninterrupted))
