"""``examples/llamaindex_rag.py`` runs offline and its scores tell the embellished answer apart."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llamaindex_rag.py"


def test_example_prints_scores_and_flags_the_unsupported_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out

    faithfulness = {
        question: float(score)
        for question, score in re.findall(r"'([^']+\?)'\n    answer: .*\n    .*faithfulness=([0-9.]+)", out)
    }
    assert set(faithfulness) == {
        "When was the Eiffel Tower completed?",
        "How many spectators could the Colosseum hold?",
        "When did the Prado Museum open?",
        "Where is the Brandenburg Gate?",
    }
    embellished = faithfulness.pop("When did the Prado Museum open?")
    assert all(embellished < quoted for quoted in faithfulness.values())
    assert "'submitted': 4" in out and "'open': 0" in out
