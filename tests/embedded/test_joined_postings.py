"""The joint premise's index is merged lazily; it must equal the eager merge of the chunks' indexes."""

from __future__ import annotations

import pytest

from ragmetrics_core.judges.embedded import premise as premise_module
from ragmetrics_core.judges.embedded.premise import Premise

CHUNKS = [
    "The Eiffel Tower was completed in 1889. It stands in Paris.",
    "Paris is the capital of France. The tower is made of iron.",
    "",
    "Gustave Eiffel's company built the tower in Paris for the 1889 World's Fair.",
]


def eager(premises: list[Premise]) -> dict[str, list[int]]:
    merged: dict[str, list[int]] = {}
    offset = 0
    for premise in premises:
        for key, positions in premise.index.items():
            found = merged.setdefault(key, [])
            room = premise_module.MAX_POSTINGS - len(found)
            found.extend(position + offset for position in positions[: max(room, 0)])
        offset += len(premise.units)
    return merged


def test_lazy_index_equals_the_eager_merge() -> None:
    premises = [Premise.from_text(text, group=number) for number, text in enumerate(CHUNKS)]
    joint = Premise.joined(premises)
    expected = eager(premises)
    assert dict(joint.index) == expected
    assert len(joint.index) == len(expected)
    assert joint.keys == frozenset(expected)
    assert joint.index.get("paris") == expected["paris"]
    assert joint.index.get("#1889") == expected["#1889"]
    assert len(expected["paris"]) == 3  # sentences of three chunks, shifted by each chunk's offset
    assert joint.index.get("absent-term") is None
    assert joint.index.get("absent-term", ()) == ()
    with pytest.raises(KeyError):
        joint.index["absent-term"]


def test_lazy_index_keeps_the_postings_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(premise_module, "MAX_POSTINGS", 2)
    premises = [Premise.from_text(text, group=number) for number, text in enumerate(CHUNKS)]
    joint = Premise.joined(premises)
    assert joint.index["paris"] == eager(premises)["paris"]
    assert len(joint.index["paris"]) == 2
