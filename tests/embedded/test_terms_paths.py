"""The one term reader reads a text the same whether a piece is added in its loop (a known word, a bare number)
or read token by token, and whether the pieces are the whitespace parts or the tokens of the whole text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import tokens as token_module
from ragmetrics_core.judges.embedded.reading import DigitGroups, Reading
from ragmetrics_core.judges.embedded.terms import Terms, read, terms
from ragmetrics_core.judges.embedded.tokens import prepare

PIECES = [
    "not", "never", "only", "don't", "isn't", "5", "31", "1889", "889", "1,889", "3.5", "million", "three", "one",
    "March", "марта", "%", "50%", "km", "(", ")", "(LIC)", "—", "-", ",", ".", ";", "Life", "Insurance", "of",
    "India", "LIC", "the", "The", "Berlin", "I", "you", "я", "CO2", "x" * 70, "y" * 63 + "'s", "'tis", "O'Neil",
    "“quoted”", "Париж", "не", "был", "в", "году", "2018,", "(1950)", "U.S.", "½", "and", "defeated", "was",
    "built", "at", "age", "78", "-5", "5-", "$5", "kilometres", "5km", "345ab6", "Smith-Jones",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\u00a0", ""]


def _by_parts(text: str) -> Terms | None:
    try:
        return read(Reading(text))
    except DigitGroups:
        return None


def _assert_same(text: str) -> None:
    prepared = prepare(text)
    by_tokens = read(Reading(prepared, by_tokens=True))
    by_parts = _by_parts(prepared)
    if by_parts is not None:  # else digit groups may join across a space: only the token list reads the text
        assert by_parts == by_tokens
        assert list(by_parts.weights.items()) == list(by_tokens.weights.items())  # same order, same weights


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), max_size=16))
def test_parts_and_tokens_read_alike_with_a_cold_and_a_warm_word_cache(pieces: list[tuple[str, str]]) -> None:
    text = "".join(piece + separator for piece, separator in pieces)
    token_module.TOKEN_INFOS.clear()
    _assert_same(text)  # cold: every word is learned on the way
    _assert_same(text)  # warm: known words are added in the loop


@pytest.mark.parametrize(
    "text",
    [
        "The tower was not built in 1889 by the engineers.",
        "The tower was not, as they say, built in 1889.",  # the scope ends at the comma
        "It is not only tall but also old.",
        "Sales reached 5 million dollars and 40 km of road in March 1 and 2 марта.",
        "— Berlin is the capital; Lisbon is not",  # leading bare punctuation, cue at the end
        "Berlin hosted 3 (three) events, not 4.",
        "Life Insurance Corporation of India is large.",
        "Life Insurance Corporation of India (LIC) is large.",  # the name hands its weight to the acronym
        "I think you are right about 31 of them",
        "CO2 levels rose 1.5% in 2020.",  # mixed tokens, a percentage
        "Berlin (the capital) welcomed Lisbon visitors.",
    ],
)
def test_everyday_sentences_read_alike_from_parts_and_tokens(text: str) -> None:
    prepared = prepare(text)
    assert _by_parts(prepared) == read(Reading(prepared, by_tokens=True))


@pytest.mark.parametrize("text", ["The tower is 1 889 m tall.", "Population: 12 345ab6 people."])
def test_digit_groups_across_a_space_are_read_from_the_token_list(text: str) -> None:
    prepared = prepare(text)
    assert _by_parts(prepared) is None
    assert terms.__wrapped__(text) == read(Reading(prepared, by_tokens=True))  # type: ignore[attr-defined]
    assert "#1889" in terms("The tower is 1 889 m tall.").weights


def test_a_cut_word_ending_in_an_apostrophe_is_not_kept_as_a_whole_part() -> None:
    word = "y" * 63 + "'s"  # cut at 64 characters: "yyy…y'"; as a whole part it would be stripped to "yyy…y"
    token_module.TOKEN_INFOS.clear()
    terms.__wrapped__(word)  # type: ignore[attr-defined]
    assert "y" * 63 + "'" not in token_module.TOKEN_INFOS
    _assert_same("y" * 63 + "'")
