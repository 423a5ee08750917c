"""The example of docs/ragas.md runs as shown."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "ragas.md"


def test_the_coming_from_ragas_example_runs() -> None:
    text = DOC.read_text("utf-8")
    start = text.index("```python\n") + len("```python\n")
    code = text[start : text.index("```", start)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), {})
    out = printed.getvalue()
    assert "faithfulness" in out and "context_recall" in out
    assert "overall_precision 1.0" in out  # "It was completed in 1889." read with its question
