"""The month-word shortcut in front of the date pattern must never change which dates are found."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import entities

PIECES = ["March", "MAY", "may", "Mayor", "5", "12", "1889", "th", ",", " ", "  ", "of", "Marchetti", "june",
          "2nd", "-", "(", "Dec", "декабря", "1879年3月14日", "年", "\u00a0", "_", "a"]


def spans(found: list[object] | object) -> list[tuple[int, int]]:
    return [match.span() for match in found]  # type: ignore[attr-defined]


def test_known_sentences() -> None:
    for sentence in ["He died on March 5, 1889 in Paris.", "Born 12 May 1950.", "It may rain in 1889.",
                     "Nothing here.", "In May 2020 it opened.", "1879年3月14日出生"]:
        assert spans(entities.dates(sentence)) == spans(entities.DATE_RE.finditer(sentence))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_any_sentence(pieces: list[str]) -> None:
    sentence = "".join(pieces)
    assert spans(entities.dates(sentence)) == spans(entities.DATE_RE.finditer(sentence))
