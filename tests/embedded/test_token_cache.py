"""The per-word cache of the term loop is bounded and never changes what a text's terms are."""

from __future__ import annotations

import pytest

from ragmetrics_core.judges.embedded import tokens
from ragmetrics_core.judges.embedded.terms import terms


def test_word_cache_stays_bounded_and_results_do_not_depend_on_it(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Berlin was rebuilt by the council in 1950, and Lisbon was not rebuilt."
    cold = terms.__wrapped__(text)  # type: ignore[attr-defined]
    monkeypatch.setattr(tokens, "TOKEN_INFO_LIMIT", 8)
    for number in range(50):
        letters = chr(97 + number % 26) * (number // 26 + 1)
        terms.__wrapped__(f"Word{letters} alpha{letters} the of")  # type: ignore[attr-defined]
        assert len(tokens.TOKEN_INFOS) <= 8
    assert terms.__wrapped__(text) == cold  # type: ignore[attr-defined]
    tokens.TOKEN_INFOS.clear()
    assert terms.__wrapped__(text) == cold  # type: ignore[attr-defined]
