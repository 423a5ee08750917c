"""The model judge on a real Ray head node (the scale tests' one, ``tests/scale/conftest.py``): workers build the
model judge from its settings and score exactly as one process does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.formats.results_io import result_record
from ragmetrics_core.judge_factory import JudgeSettings
from ragmetrics_core.judges.model import ModelJudge
from ragmetrics_core.sample import RagSample
from tests.model.test_everywhere import METRICS, samples
from tests.scale.conftest import ray_cluster, ray_head, records_by_id

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
__all__ = ["ray_cluster", "ray_head"]  # the shared head node's fixtures, used here by name


def test_ray_workers_score_with_the_model_as_one_process_does(ray_cluster: str, models: Callable[..., Path]) -> None:
    from ragmetrics_core.scale.ray_backend import evaluate_on_ray

    directory = str(models())
    data = samples()
    rows = [json.loads(sample.model_dump_json()) for sample in data]
    dataset = evaluate_on_ray(rows, judge=JudgeSettings(kind="model", models=[directory]), metrics=METRICS,
                              workers=1, batch_size=3)
    got = records_by_id([json.loads(row["record"]) for row in dataset.iter_rows()])
    local = Evaluator(judge=ModelJudge(directory), metrics=METRICS).evaluate_many(data)
    expected = records_by_id([result_record(result, RagSample.model_validate(row), None)
                              for result, row in zip(local, rows, strict=True)])
    assert got == expected
    assert all(record["judge"].startswith("model:") for record in got.values())
