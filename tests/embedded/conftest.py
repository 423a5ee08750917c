"""Fixtures for the embedded judge tests: one judge and one evaluator built on it."""

from __future__ import annotations

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.embedded import EmbeddedJudge


@pytest.fixture(scope="session")
def judge() -> EmbeddedJudge:
    return EmbeddedJudge()


@pytest.fixture(scope="session")
def evaluator(judge: EmbeddedJudge) -> Evaluator:
    return Evaluator(judge=judge)
