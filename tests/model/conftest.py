"""Tiny models for the model judge's tests, built once per session (see :mod:`tests.model.tiny`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragmetrics_core.judges.model import ModelJudge, ModelJudgeConfig
from tests.model import tiny

PARIS = "Paris is the capital of France."
TOWER = "The tower was built in 1889."
FILLER = [
    "Alpha beta gamma delta.",
    "Epsilon zeta eta theta.",
    "Iota kappa lambda omicron.",
    "Sigma tau upsilon omega.",
]
LONG_CHUNK = " ".join([*FILLER, TOWER])
"""The claim about the tower is supported by the last sentence only: beyond the first window at a small length."""
RUSSIAN = "Москва стоит на реке. Город основан давно. Толстой написал роман «Война и мир» в Ясной Поляне."
CHINESE = "北京是首都。长城很长。曹雪芹写了红楼梦。"
CORPUS = [
    PARIS, TOWER, LONG_CHUNK, RUSSIAN, CHINESE,
    "Paris is not the capital of France.", "Berlin is a big city in Germany.", "The tower was built in 1890.",
    "Marie lived in Warsaw. She studied physics there.", "Толстой написал роман «Война и мир».", "曹雪芹写了红楼梦。",
    "What is the capital of France? When was the tower built?", "Who wrote the novel?", "谁写了红楼梦？",
    "Shakespeare wrote Hamlet. Hamlet was written around 1600 in London. Copenhagen is the capital of Denmark.",
    "Hamlet is set in Denmark. Who wrote Hamlet and when?",
]


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``models(labels=..., token_type_ids=..., ...)``: the directory of a tiny model, built once per variant."""
    built: dict[tuple[Any, ...], Path] = {}
    root = tmp_path_factory.mktemp("tiny-models")

    def make(**options: Any) -> Path:
        key = tuple(sorted((name, str(value)) for name, value in options.items()))
        if key not in built:
            built[key] = tiny.build(root / f"model-{len(built)}", CORPUS, **options)
        return built[key]

    return make


@pytest.fixture
def make_judge(models: Callable[..., Path]) -> Callable[..., ModelJudge]:
    """A judge on a tiny model: model options (labels, token_type_ids...) and config fields by keyword."""
    model_fields = {"labels", "token_type_ids", "config_labels", "layout", "max_positions"}

    def make(**options: Any) -> ModelJudge:
        directory = models(**{key: value for key, value in options.items() if key in model_fields})
        settings = {key: value for key, value in options.items() if key not in model_fields}
        return ModelJudge(ModelJudgeConfig(model=str(directory), **settings))

    return make
