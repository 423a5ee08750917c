"""Token offsets are right whether words are separated by single characters (computed) or not (searched)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded.terms import terms
from ragmetrics_core.judges.embedded.tokens import TOKEN_RE, tokens

ALPHABET = [*"ab Zé1 2,.'-()\t\n\u00a0я", "889", "don't", "CO2", "  "]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=30))
def test_offsets_point_at_the_tokens_in_both_modes(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = tokens(text)
    for _, token, start, end in found:
        assert text[start:end] == token
    padded = tokens(" " + text + "  ")  # leading/trailing space: offsets found by search
    assert padded == [(kind, token, start + 1, end + 1) for kind, token, start, end in found]


def test_single_spaces_and_mixed_whitespace() -> None:
    assert tokens("The tower, 1 889 m.") == [
        ("word", "The", 0, 3), ("word", "tower", 4, 9), ("num", "1 889", 11, 16), ("word", "m", 17, 18)
    ]
    assert tokens("The  tower") == [("word", "The", 0, 3), ("word", "tower", 5, 10)]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["5", "15", "889", "000", "1,889", " ", "\t", "\n", "\u00a0", "\u2009"]),
                max_size=20))
def test_digit_groups_join_across_the_token_patterns_separators_only(pieces: list[str]) -> None:
    text = "".join(pieces)
    expected = [match.group() for match in TOKEN_RE.finditer(text) if match.lastgroup == "num"]
    assert [token for kind, token, _, _ in tokens(text) if kind == "num"] == expected


def test_numbers_split_by_a_tab_or_a_line_break_are_two_numbers() -> None:
    for separator in ("\t", "\n"):
        text = f"It has 5{separator}889 steps."
        assert [token for kind, token, _, _ in tokens(text) if kind == "num"] == ["5", "889"]
        assert {number.value for number in terms(text).numbers} == {5.0, 889.0}
    assert [number.value for number in terms("It has 5 889 steps.").numbers] == [5889.0]
    assert [number.value for number in terms("Population: 15 000 000.").numbers] == [15_000_000.0]
