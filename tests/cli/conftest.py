"""Fixtures for the CLI, batch and report tests.

``SentenceJudge`` is a transparent in-process judge (claims are sentences; a premise entails a claim when
it contains its words in order), so batch mechanics can be tested with hand-checkable scores. The CLI
itself is always run as a subprocess with the real default (embedded) judge.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ragmetrics_core.evidence import GeneratedQuestion
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    JudgeError,
    SimilarityResult,
    Usage,
)
from tests import substring_judge

ROOT = Path(__file__).resolve().parents[2]
RAGCHECKER_DIR = ROOT / "tests" / "data" / "ragchecker"  # RAGChecker's example, shipped (see its NOTICE)


def sentences(text: str | None) -> list[str]:
    """Split after each sentence mark, keeping it (so "3.5 m" stays one sentence)."""
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+", text or "") if part.strip()]


def _echo_question(request: ExtractionRequest) -> list[GeneratedQuestion]:
    return [GeneratedQuestion(text=request.user_input)]


@dataclass
class SentenceJudge:
    name: str = "sentence"
    delay_s: float = 0.0
    fail_marker: str | None = None
    extractions: int = 0
    seen: list[str] = field(default_factory=list)

    async def extract(self, request: ExtractionRequest) -> Extraction:
        self.extractions += 1
        self.seen.append(request.response)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.fail_marker and self.fail_marker in request.response:
            raise JudgeError("scripted failure")
        usage = Usage(calls=1, prompt_tokens=100, completion_tokens=20)
        return substring_judge.extract(request, sentences, _echo_question).model_copy(update={"usage": usage})

    async def check(self, request: CheckRequest) -> CheckResult:
        usage = Usage(calls=1, prompt_tokens=200, completion_tokens=30)
        return substring_judge.check(request).model_copy(update={"usage": usage})

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        return SimilarityResult(similarities=[1.0 if c == question else 0.0 for c in candidates])


@pytest.fixture
def judge() -> SentenceJudge:
    return SentenceJudge()


def good_row(index: int) -> dict[str, Any]:
    return {
        "user_input": f"What is fact {index}?",
        "retrieved_contexts": [f"Fact {index} is true.", "Unrelated text."],
        "response": f"Fact {index} is true. The moon is cheese.",
        "reference": f"Fact {index} is true.",
    }


def write_jsonl(path: Path, rows: Iterable[dict[str, Any] | str]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "results file must end with a complete line"
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "integrations"), env.get("PYTHONPATH", "")])
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    env.pop("RAGMETRICS_JUDGE", None)
    return env


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragmetrics_core.cli", *args]


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli(tmp_path: Path) -> RunCli:
    """Run ``ragmetrics ARGS`` in a subprocess (cwd: the test's tmp dir) and return the completed process."""

    def run(*args: str, input: str | None = None, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            cli_command(*args),
            cwd=tmp_path,
            env=cli_env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def ragchecker_dir() -> Path:
    return RAGCHECKER_DIR
