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
        assert spans(text, segment._boundaries(text)) == spans(text, segment._BOUNDARY_RE.finditer(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab A.!?…。！？；;\"')»  \u00a0\n")), max_size=60))
def test_any_text(text: str) -> None:
    assert spans(text, segment._boundaries(text)) == spans(text, segment._BOUNDARY_RE.finditer(text))
