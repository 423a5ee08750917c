"""Rows for the scale tests: several languages, chunk counts, and rows missing a reference or contexts, each with
an explicit id so results can be matched across backends."""

from __future__ import annotations

from typing import Any

from ragmetrics_core.sample import RagSample
from tests.cli.conftest import good_row
from tests.llm.samples import CHINESE, ENGLISH, RUSSIAN, synthetic_sample


def _row(sample: RagSample) -> dict[str, Any]:
    """Plain columns (contexts as strings), as a table holds them."""
    return {"user_input": sample.user_input, "retrieved_contexts": sample.context_texts, "response": sample.response,
            "reference": sample.reference}


def varied_rows(count: int) -> list[dict[str, Any]]:
    fixed = [_row(sample) for sample in (ENGLISH, RUSSIAN, CHINESE)]
    rows: list[dict[str, Any]] = []
    for index in range(count):
        kind = index % 6
        if kind < 3:
            row = good_row(index)
        elif kind == 3:
            row = _row(synthetic_sample(1 + index % 5, response_claims=2 + index % 5))
        elif kind == 4:
            row = dict(fixed[index % 3])
        else:
            row = good_row(index)
            row.pop("reference") if index % 2 else row.update(retrieved_contexts=[])
        row["id"] = f"row-{index}"
        rows.append(row)
    return rows
