"""What the model judge borrows from the embedded judge, in one place: its sentence splitter (EN, RU, ZH), its
content terms (to screen out windows that cannot entail a claim), and its reading of short answers with their
question. Only these names are used, so a refactoring of the embedded judge touches this file alone."""

from __future__ import annotations

from ragmetrics_core.judges.embedded import EmbeddedJudge as EmbeddedJudge
from ragmetrics_core.judges.embedded.answers import complete_answer as complete_answer
from ragmetrics_core.judges.embedded.segment import sentences as sentences
from ragmetrics_core.judges.embedded.terms import terms

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def content_terms(text: str) -> dict[str, float]:
    """The weighted content terms of ``text`` (stems, numbers, Chinese bigrams) as the embedded judge reads them."""
    return terms(text).weights
