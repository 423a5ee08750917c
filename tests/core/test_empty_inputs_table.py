"""Every metric at G = 0 (no reference claims), R = 0 (no response claims) and K = 0 (no chunks), against the
table in docs/architecture.md ("Undetermined"): D = determined, U = undetermined with a reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.evidence import Check, Claim, Evidence, GeneratedQuestion, Verdict
from ragmetrics_core.metrics import METRICS

ENTAILED = Check(verdict=Verdict.ENTAILED)
DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
CASES = {"G = 0": (2, 0, 2), "R = 0": (0, 2, 2), "K = 0": (2, 2, 0)}


def documented_table() -> dict[str, dict[str, str]]:
    """The table of docs/architecture.md: metric → {case → D/U}."""
    text = DOC.read_text(encoding="utf-8")
    table: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`\w+`", cells[0]) and all(c in {"D", "U"} for c in cells[1:]):
            table[cells[0].strip("`")] = dict(zip(CASES, cells[1:], strict=True))
    return table


def evidence(r: int, g: int, k: int) -> Evidence:
    return Evidence(
        response_claims=[Claim(text=f"response claim {i}") for i in range(r)],
        reference_claims=[Claim(text=f"reference claim {i}") for i in range(g)],
        response_vs_reference=[ENTAILED] * r,
        reference_vs_response=[ENTAILED] * g,
        response_vs_chunks=[[ENTAILED] * k for _ in range(r)] if k else None,
        reference_vs_chunks=[[ENTAILED] * k for _ in range(g)] if k else None,
        response_vs_contexts=[ENTAILED] * r if k else None,
        reference_vs_contexts=[ENTAILED] * g if k else None,
        reference_entities=["Paris"],
        entities_in_contexts=[True] if k else None,
        generated_questions=[GeneratedQuestion(text="What is the capital of France?", noncommittal=False)],
        question_similarities=[1.0],
    )


def test_the_documented_table_names_every_metric() -> None:
    assert set(documented_table()) == set(METRICS)


@pytest.mark.parametrize("case", list(CASES))
def test_each_metric_is_determined_or_undetermined_as_documented(case: str) -> None:
    r, g, k = CASES[case]
    sample = RagSample(user_input="q", response="a response", reference="a reference", retrieved_contexts=["c"] * k)
    result = Evaluator().score(sample, evidence(r, g, k))
    expected = {metric: row[case] for metric, row in documented_table().items()}
    found = {metric: "U" if score.score is None else "D" for metric, score in result.scores.items()}
    assert found == expected
    for score in result.scores.values():
        if score.score is None:
            assert score.reason  # undetermined always says why


def test_noise_sensitivity_at_g0_is_undetermined_not_every_chunk_irrelevant() -> None:
    sample = RagSample(user_input="q", response="a response", reference="a reference", retrieved_contexts=["c", "d"])
    result = Evaluator().score(sample, evidence(2, 0, 2))
    assert result.score("noise_sensitivity_irrelevant") is None
    assert "chunk relevance is unknown" in (result.scores["noise_sensitivity_irrelevant"].reason or "")
    assert result.score("chunk_precision") is None
    assert result.score("hallucination") == 0.0  # does not read relevance: still determined
