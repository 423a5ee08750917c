"""Arbitrary text never breaks the judge, and the same input always gives the same evidence."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.embedded import EmbeddedJudge
from ragmetrics_core.sample import RagSample

_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(list(" .,;!?。！？；“”«»()-—0123456789年不не not Paris Париж 巴黎")),
    ),
    max_size=300,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_input=_TEXT, response=_TEXT, reference=st.one_of(st.none(), _TEXT), contexts=st.lists(_TEXT, max_size=4))
def test_any_text_is_judged_without_error_and_deterministically(
    user_input: str, response: str, reference: str | None, contexts: list[str]
) -> None:
    sample = RagSample(user_input=user_input, response=response, reference=reference, retrieved_contexts=contexts)
    first = Evaluator(judge=EmbeddedJudge()).evaluate(sample)
    second = Evaluator(judge=EmbeddedJudge()).evaluate(sample)
    assert first.error is None
    assert not first.evidence.errors
    assert first.evidence.shape_problems(len(contexts)) == []
    for score in first.values().values():
        assert score is None or 0.0 <= score <= 1.0
    assert first.model_dump(exclude={"usage"}) == second.model_dump(exclude={"usage"})
