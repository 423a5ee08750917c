"""The candidate-first boundary scan must find exactly what scanning with the full pattern finds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import segment

TRICKY = [
    "",
    "No mark at all",
    "Dr. Smith arrived. He left! Did he? Yes…  Then 3.14 and 1,5 stayed.",
    "他来了。她走了！真的吗？是的；好。",
    "Mixed: end.\u00a0Next \"quoted.\" (Bracketed.) Done?!",
    "Trailing marks...",
    "a.b.c. d. E. F",
]


def spans(text: str, found: object) -> list[tuple[int, int, tuple[str | None, ...]]]:
    return [(match.start(), match.end(), match.groups()) for match in found]  # type: ignore[attr-defined]


def test_tricky_texts() -> None:
    for text in TRICKY:
        assert spans(text, segment.boundaries(text)) == spans(text, segment.BOUNDARY_RE.finditer(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab A.!?…。！？；;\"')»  \u00a0\n")), max_size=60))
def test_any_text(text: str) -> None:
    assert spans(text, segment.boundaries(text)) == spans(text, segment.BOUNDARY_RE.finditer(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab AZ1.\"')»  \u00a0\n")), max_size=60))
def test_any_text_with_periods_only(text: str) -> None:
    # No mark but the period: boundaries are found with str.find instead of the mark pattern.
    assert spans(text, segment.boundaries(text)) == spans(text, segment.BOUNDARY_RE.finditer(text))
    assert segment.split_paragraph(text) == _split_by_finditer(text)


def _split_by_finditer(paragraph: str) -> list[str]:
    """The splitting rule written plainly over the full pattern's matches: the reference for the fast loop."""
    pieces: list[str] = []
    start = 0
    for match in segment.BOUNDARY_RE.finditer(paragraph):
        if match.group(1) and not segment.ends_sentence(paragraph, match.start(1), match.group(1), match.end()):
            continue
        pieces.append(paragraph[start : match.end(1) if match.group(1) else match.end(3)])
        start = match.end()
    pieces.append(paragraph[start:])
    return pieces


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab AZ1.!?…。；\"')»  \u00a0\n")), max_size=60))
def test_paragraph_split_matches_the_plain_rule(text: str) -> None:
    assert segment.split_paragraph(text) == _split_by_finditer(text)
