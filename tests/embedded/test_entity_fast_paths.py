"""Shortcuts of entity extraction give exactly what the general word scan gives."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import entities

# Upper-, lower- and title-case letters, uncased letters and digits, word joiners and separators, and characters
# that are upper-case without being word characters (Ⓐ) or without being letters (Ⅷ).
ALPHABET = [*"AaBbNnZzÉéǅ字1' -.,\"(Ⓐⅷ", "Ⅷ", "\u00a0"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=24))
def test_sentences_without_inner_capitals_skip_the_word_scan(sentence: str) -> None:
    assert entities.capitalised_spans(sentence, []) == entities.word_spans(sentence, [])


@pytest.mark.parametrize(
    "sentence",
    ["NASA launched it.", "A1 steak sauce is sold here.", "A-1 was the code.", "I went home.", "Ulm is small.",
     "the band ABBA sang.", "Éclair recipes vary.", "ǅemal arrived.", "Ⓐ is a symbol.", "", "N", "NA"],
)
def test_sentence_initial_capitals(sentence: str) -> None:
    assert entities.capitalised_spans(sentence, []) == entities.word_spans(sentence, [])


NUMBER_ALPHABET = [*"0123456789١٣ ,.%-", "\u00a0", "km", "года", "a", "B", "x1"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(NUMBER_ALPHABET), max_size=20).map("".join))
def test_numbers_are_found_where_the_full_scan_finds_them(sentence: str) -> None:
    def spans(found: object) -> list[tuple[int, int, tuple[str | None, ...]]]:
        return [(match.start(), match.end(), match.groups()) for match in found]  # type: ignore[attr-defined]

    assert spans(entities.number_units(sentence)) == spans(entities.NUMBER_UNIT_RE.finditer(sentence))
