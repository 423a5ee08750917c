"""The example of docs/ragas.md runs as shown."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "ragas.md"


def test_the_coming_from_ragas_example_runs() -> None:
    text = DOC.read_text("utf-8")
    start = text.index("```python\n") + len("```python\n")
    code = text[start : text.index("```", start)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the docs show the current API only
        exec(compile(code, str(DOC), "exec"), {})
    out = printed.getvalue()
    assert "faithfulness" in out and "context_recall" in out and "When was the Eiffel Tower completed?" in out
    # "It was completed in 1889." read with its question: the table's line, then the mean printed alone
    assert re.search(r"^overall_precision +1\.000 +1 +0 ", out, re.MULTILINE)
    assert out.rstrip().endswith("1.0")
