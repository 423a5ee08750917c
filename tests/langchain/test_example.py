"""The LangChain example's chain, capture and printing, scored through the pipeline with a transparent judge.

(``python examples/langchain_rag.py`` itself scores with the default embedded judge.)
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import CallbackEmitter, OnlinePipeline
from ragmetrics_langchain import RagMetricsCallbackHandler
from tests.online.judges import ScriptedJudge

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "langchain_rag.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("langchain_rag_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_example_captures_and_prints_every_turn(example: Any, capsys: pytest.CaptureFixture[str]) -> None:
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(example.SHOWN_METRICS)),
        emitters=[CallbackEmitter(example.print_scores)],
    )
    handler = RagMetricsCallbackHandler(online)
    chain = example.build_chain()
    try:
        for question, answer, reference in example.TURNS:
            config: Any = {"callbacks": [handler], "metadata": {"ragmetrics_reference": reference}}
            assert chain.invoke(question, config=config) == answer
        assert online.flush(timeout_s=30)
    finally:
        online.shutdown(timeout_s=5)
    assert online.stats().completed == len(example.TURNS)
    printed = capsys.readouterr().out
    for question, answer, _ in example.TURNS:
        assert f"Q: {question}\nA: {answer}\n   retrieved: " in printed
    assert printed.count("   faithfulness ") == len(example.TURNS)
    assert "not scored" not in printed
    # Retrieval follows word overlap: the Mona Lisa question finds the Mona Lisa document first.
    assert "Q: Who painted the Mona Lisa?\nA: The Mona Lisa was painted by Vincent van Gogh in 1920.\n" in printed
    assert "   retrieved: mona-lisa (" in printed


def test_the_docs_show_what_the_example_prints() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    doc = (EXAMPLE.parents[1] / "docs" / "langchain.md").read_text("utf-8")
    start = doc.index("```\nQ: ") + 4
    shown = doc[start : doc.index("```", start)]
    assert shown.strip() == done.stdout.strip(), "docs/langchain.md shows stale output: paste the example's output"
