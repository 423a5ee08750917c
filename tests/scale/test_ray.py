"""The Ray backend on a real head node (``ray start --head``, joined by address): the same scores as
``Evaluator.evaluate_many``, the same files, summary and errors as the single-process CLI, and no row lost or
written twice when a worker dies."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.formats.results_io import result_record
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import cli_command, read_jsonl, write_jsonl
from tests.scale.conftest import ray_env, records_by_id
from tests.scale.samples import varied_rows

pytest.importorskip("ray")
pytestmark = pytest.mark.slow


def _expected(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    samples = [RagSample.model_validate(row) for row in rows]
    results = Evaluator().evaluate_many(samples, concurrency=4)
    return records_by_id([result_record(result, sample, None) for result, sample in zip(results, samples, strict=True)])


def test_scores_equal_evaluate_many_exactly(ray_cluster: str) -> None:
    from ragmetrics_core.scale.ray_backend import evaluate_on_ray

    rows = varied_rows(300)
    dataset = evaluate_on_ray(rows, workers=2, batch_size=32)
    out = [json.loads(row["record"]) for row in dataset.iter_rows()]
    got = records_by_id(out)
    assert len(out) == len(got) == 300
    assert got == _expected(rows)  # rows in memory have no input line, as in one process
    assert any(record["scores"]["context_recall"]["score"] is None for record in got.values())  # undetermined kept


def test_a_dataset_and_parquet_in_and_out(ray_cluster: str, tmp_path: Path) -> None:
    import pyarrow
    import pyarrow.parquet
    import ray.data

    from ragmetrics_core.scale.ray_backend import evaluate_on_ray

    rows = varied_rows(30)
    want = _expected(rows)
    from_dataset = evaluate_on_ray(ray.data.from_items(rows), workers=2, batch_size=8)
    got = records_by_id([json.loads(row["record"]) for row in from_dataset.iter_rows()])
    assert {key: record["scores"] for key, record in got.items()} == {
        key: record["scores"] for key, record in want.items()
    }
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows), tmp_path / "rows.parquet")
    evaluate_on_ray(tmp_path / "rows.parquet", workers=2, batch_size=8).write_parquet(str(tmp_path / "results"))
    table = pyarrow.parquet.read_table(tmp_path / "results")
    assert sorted(table.column("sample_id").to_pylist()) == sorted(want)
    ids, scores = table.column("sample_id").to_pylist(), table.column("faithfulness").to_pylist()
    faithfulness = dict(zip(ids, scores, strict=True))
    assert faithfulness == {key: record["scores"]["faithfulness"]["score"] for key, record in want.items()}


def test_a_worker_crash_loses_no_finished_row(ray_cluster: str, tmp_path: Path) -> None:
    from ragmetrics_core.scale.ray_backend import RayBackend
    from tests.scale.crashing import CrashOnceScorer

    rows = varied_rows(60)
    fatal = rows[42]["response"]
    source = write_jsonl(tmp_path / "rows.jsonl", rows)
    marker = tmp_path / "died"
    backend = RayBackend(CrashOnceScorer(fatal, marker), workers=2, batch_size=6)
    run = evaluate_file(source, out=tmp_path / "out.jsonl", backend=backend, progress=False)
    assert marker.exists(), "the worker was meant to die once"
    written = read_jsonl(tmp_path / "out.jsonl")
    assert sorted(record["sample_id"] for record in written) == sorted(row["id"] for row in rows)  # each once
    assert run.failed == 0 and run.evaluated == 60
    local = evaluate_file(source, out=tmp_path / "local.jsonl", progress=False)
    assert local.failed == 0
    assert records_by_id(written) == records_by_id(read_jsonl(tmp_path / "local.jsonl"))


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), cwd=tmp_path, env=ray_env(), capture_output=True, text=True,
                          timeout=300)


def _without_timing(stdout: str) -> list[str]:
    """Stdout lines without the wall time and the results file's name, which differ between two runs."""
    return [line.split("; results in")[0] for line in stdout.splitlines()
            if "s judging" not in line and not line.startswith("report: ")]


def test_cli_outputs_summary_and_report_match_the_single_process(ray_head: str, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", varied_rows(60))
    local = _cli(tmp_path, "evaluate", "rows.jsonl", "--out", "local.jsonl", "--report", "local.html")
    on_ray = _cli(tmp_path, "evaluate", "rows.jsonl", "--out", "ray.jsonl", "--report", "ray.html",
                  "--backend", "ray", "--workers", "2", "--address", ray_head, "--batch-size", "8")
    assert local.returncode == on_ray.returncode == 0, on_ray.stderr
    assert _without_timing(on_ray.stdout) == _without_timing(local.stdout)
    assert records_by_id(read_jsonl(tmp_path / "ray.jsonl")) == records_by_id(read_jsonl(tmp_path / "local.jsonl"))
    assert "report: ray.html" in on_ray.stdout and (tmp_path / "ray.html").stat().st_size > 1000


def test_bad_input_gets_the_single_process_file_line_errors(ray_head: str, tmp_path: Path) -> None:
    rows = [json.dumps(row) for row in varied_rows(4)]
    write_jsonl(tmp_path / "torn.jsonl", [rows[0], rows[1], '{"user_input": "q", "response": ', rows[2]])
    (tmp_path / "nocol.csv").write_text("user_input,reply\nq,a\n", encoding="utf-8")
    ray_args = ("--backend", "ray", "--workers", "1", "--address", ray_head)
    for name in ("torn.jsonl", "nocol.csv"):
        local = _cli(tmp_path, "evaluate", name, "--out", f"{name}.local.jsonl")
        on_ray = _cli(tmp_path, "evaluate", name, "--out", f"{name}.ray.jsonl", *ray_args)
        assert on_ray.returncode == local.returncode != 0
        errors = [line for line in local.stderr.splitlines() if line.startswith("ragmetrics:")]
        assert errors and errors == [line for line in on_ray.stderr.splitlines() if line.startswith("ragmetrics:")]
        assert f"{name}:" in errors[0] and (":3:" in errors[0] or ":1:" in errors[0])
