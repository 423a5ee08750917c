"""The claim case table (``tests/data/claim_cases.json``): ordinary answers and what a person expects of them.

Shared by the embedded judge's test and the LLM judge's: each reads the rows, runs its judge, and compares the
claims (and, for the embedded judge, the scores) with :func:`problems`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample

TABLE = Path(__file__).parent / "data" / "claim_cases.json"
_FAITHFUL = 0.5
"""A response is faithful when at least half of its claims' weight is supported (faithfulness ≥ 0.5)."""


@dataclass(frozen=True)
class Case:
    row: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def sample(self) -> RagSample:
        row = self.row
        return RagSample(user_input=row["question"], retrieved_contexts=row["contexts"], response=row["response"],
                         reference=row["reference"])


def cases() -> list[Case]:
    return [Case(row) for row in json.loads(TABLE.read_text(encoding="utf-8"))["cases"]]


def same_claim(text: str) -> str:
    """A claim as a person compares it: case, spacing and the closing full stop do not matter."""
    return " ".join(text.split()).rstrip(".。!").casefold()


def claim_problems(case: Case, result: EvaluationResult) -> list[str]:
    problems = []
    for source in ("response", "reference"):
        found = [claim.text for claim in getattr(result.evidence, f"{source}_claims") or []]
        expected = case.row[f"{source}_claims"]
        if [same_claim(text) for text in found] != [same_claim(text) for text in expected]:
            problems.append(f"{source} claims {found} != {expected}")
    return problems


def score_problems(case: Case, result: EvaluationResult) -> list[str]:
    """The expected verdicts a person would give, read off the scores (faithful, correct, relevant, set aside)."""
    row, problems = case.row, []
    if "faithful" in row:
        faithfulness = result.score("faithfulness")
        if row["faithful"] is None:
            ok = faithfulness is None
        else:
            ok = faithfulness is not None and (faithfulness >= _FAITHFUL) == row["faithful"]
        if not ok:
            problems.append(f"faithful={row['faithful']} but faithfulness={faithfulness}")
    if "correct" in row:
        f1 = result.score("overall_f1") or 0.0
        if (f1 >= _FAITHFUL) != row["correct"]:
            problems.append(f"correct={row['correct']} but overall_f1={f1}")
    if "relevant" in row:
        relevancy = result.score("response_relevancy") or 0.0
        if (relevancy >= _FAITHFUL) != row["relevant"]:
            problems.append(f"relevant={row['relevant']} but response_relevancy={relevancy}")
    if "skipped" in row:
        reasons = [piece.reason for piece in result.evidence.skipped or [] if piece.source == "response"]
        if reasons != row["skipped"]:
            problems.append(f"set aside {reasons} != {row['skipped']}")
    return problems
