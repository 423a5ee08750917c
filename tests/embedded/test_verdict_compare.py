"""benchmarks/embedded_verdicts.py compare: two dumps whose claims were split differently are reported, not a crash."""

from __future__ import annotations

import io
from typing import Any

from benchmarks.embedded_verdicts import compare


def _dump(claims: list[str], verdicts: list[str]) -> dict[str, Any]:
    return {
        "scores": {}, "explanations": [], "claims": claims, "reference_claims": [], "entities": [[], []],
        "questions": [], "similarities": [],
        "response_vs_chunks": [[[verdict, 1.0, "why", 1.0]] for verdict in verdicts],
    }


def test_a_different_claim_count_is_a_shape_difference() -> None:
    before = {"s": _dump(["a", "b"], ["entailed", "neutral"])}
    after = {"s": _dump(["a", "b", "c"], ["entailed", "neutral", "neutral"])}
    out = io.StringIO()
    found = compare(before, after, out)
    assert found.verdicts == 2  # the matrix shape and the claims list
    assert "SHAPE s response_vs_chunks: 2 rows of [1, 1] -> 3 rows of [1, 1, 1]" in out.getvalue()


def test_same_shape_compares_check_by_check_and_missing_samples_count() -> None:
    before = {"s": _dump(["a", "b"], ["entailed", "neutral"]), "gone": _dump([], [])}
    after = {"s": _dump(["a", "b"], ["entailed", "entailed"])}
    out = io.StringIO()
    found = compare(before, after, out)
    assert found.checks == 2
    assert found.verdicts == 2  # one verdict, one missing sample
    assert "VERDICT s response_vs_chunks" in out.getvalue() and "MISSING gone" in out.getvalue()
