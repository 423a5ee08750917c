"""Token offsets are right whether words are separated by single characters (computed) or not (searched)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded.normalize import _tokens

ALPHABET = [*"ab Zé1 2,.'-()\t\n\u00a0я", "889", "don't", "CO2", "  "]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=30))
def test_offsets_point_at_the_tokens_in_both_modes(pieces: list[str]) -> None:
    text = "".join(pieces)
    tokens = _tokens(text)
    for _, token, start, end in tokens:
        assert text[start:end] == token
    padded = _tokens(" " + text + "  ")  # leading/trailing space: offsets found by search
    assert padded == [(kind, token, start + 1, end + 1) for kind, token, start, end in tokens]


def test_single_spaces_and_mixed_whitespace() -> None:
    assert _tokens("The tower, 1 889 m.") == [
        ("word", "The", 0, 3), ("word", "tower", 4, 9), ("num", "1 889", 11, 16), ("word", "m", 17, 18)
    ]
    assert _tokens("The  tower") == [("word", "The", 0, 3), ("word", "tower", 5, 10)]
