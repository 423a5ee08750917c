"""matches_at gives finditer's matches while trying the pattern only where a cheaper search points."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded.scan import matches_at, searcher

# Patterns of the shapes the judge scans with: a look-behind, or a mark followed by context.
NUMBER_UNIT = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)(?:\s*(%|[^\W\d_]{1,5}))?")
BOUNDARY = re.compile(r"([.!?]+)(\s+)(?=[A-Z])|(;)\s*")
TEXT = st.text(alphabet=st.sampled_from(list("ab A1.,;!?% 9x\u00a0é")), max_size=60)


def spans(matches: list[re.Match[str]]) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(match.span(), match.groups()) for match in matches]


@given(TEXT)
def test_digit_anchored_matches_equal_finditer(text: str) -> None:
    found = matches_at(NUMBER_UNIT, text, searcher(re.compile(r"\d")))
    assert spans(found) == spans(list(NUMBER_UNIT.finditer(text)))


@given(TEXT)
def test_mark_anchored_matches_equal_finditer(text: str) -> None:
    found = matches_at(BOUNDARY, text, searcher(re.compile(r"[.!?;]")))
    assert spans(found) == spans(list(BOUNDARY.finditer(text)))


def test_a_match_is_taken_whole_before_the_next_start_is_sought() -> None:
    # "12.5" is one number: the digit after the point is not a second start.
    assert [m.group(0) for m in matches_at(NUMBER_UNIT, "it is 12.5 km", searcher(re.compile(r"\d")))] == ["12.5 km"]
    assert matches_at(NUMBER_UNIT, "no digits", searcher(re.compile(r"\d"))) == []
