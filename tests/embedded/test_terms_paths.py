"""The part feeder of the term reading (``read_parts``) gives exactly what the token feeder (``read_tokens``) gives."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import tokens as token_module
from ragmetrics_core.judges.embedded.terms import Terms, read_parts, read_tokens, terms
from ragmetrics_core.judges.embedded.tokens import prepare, tokens

PIECES = [
    "not", "never", "only", "don't", "isn't", "5", "31", "1889", "889", "1,889", "3.5", "million", "three", "one",
    "March", "марта", "%", "50%", "km", "(", ")", "(LIC)", "—", "-", ",", ".", ";", "Life", "Insurance", "of",
    "India", "LIC", "the", "The", "Berlin", "I", "you", "я", "CO2", "x" * 70, "y" * 63 + "'s", "'tis", "O'Neil",
    "“quoted”", "Париж", "не", "был", "в", "году", "2018,", "(1950)", "U.S.", "½", "and", "defeated", "was",
    "built", "at", "age", "78", "-5", "5-", "$5", "kilometres",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\u00a0", ""]


def _both(text: str) -> tuple[Terms | None, Terms]:
    prepared = prepare(text)
    return read_parts(prepared), read_tokens(prepared, tokens(prepared))


def _assert_same(text: str) -> None:
    prepared = prepare(text)
    fast = read_parts(prepared)
    if fast is not None:  # otherwise the token list decides (and is the reference)
        reference = read_tokens(prepared, tokens(prepared))
        assert fast == reference
        assert list(fast.weights.items()) == list(reference.weights.items())  # same order, same weights


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), max_size=16))
def test_one_pass_and_token_list_agree_with_a_cold_and_a_warm_word_cache(pieces: list[tuple[str, str]]) -> None:
    text = "".join(piece + separator for piece, separator in pieces)
    token_module.TOKEN_INFOS.clear()
    _assert_same(text)  # cold: every part is learned on the way
    _assert_same(text)  # warm: known parts are looked up whole


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
        "I think you are right about 31 of them",
        "Berlin (the capital) welcomed Lisbon visitors.",  # no two names side by side: no acronym to hand over
    ],
)
def test_one_pass_handles_everyday_sentences_like_the_token_list(text: str) -> None:
    fast, reference = _both(text)
    assert fast is not None
    assert fast == reference


@pytest.mark.parametrize(
    "text",
    [
        "The tower is 1 889 m tall.",  # digit groups are joined by the token list
        "Life Insurance Corporation of India (LIC) is large.",  # the name hands its weight to the acronym
        "CO2 levels rose 1.5% in 2020.",  # mixed tokens
    ],
)
def test_texts_the_one_pass_leaves_to_the_token_list_still_get_their_terms(text: str) -> None:
    fast, reference = _both(text)
    assert fast is None
    assert terms.__wrapped__(text) == reference  # type: ignore[attr-defined]


def test_a_cut_word_ending_in_an_apostrophe_is_not_kept_as_a_whole_part() -> None:
    word = "y" * 63 + "'s"  # cut at 64 characters: "yyy…y'"; as a whole part it would be stripped to "yyy…y"
    token_module.TOKEN_INFOS.clear()
    terms.__wrapped__(word)  # type: ignore[attr-defined]
    assert "y" * 63 + "'" not in token_module.TOKEN_INFOS
    _assert_same("y" * 63 + "'")
