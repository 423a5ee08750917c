"""Premises longer than the model's input are cut at sentence boundaries into overlapping windows.

Each window is a run of whole sentences whose tokens fit the budget; the next window starts ``overlap``
sentences before the previous one ended, so a claim that rests on two adjacent sentences has a window holding
both. A single sentence longer than the budget is cut into pieces of the budget (by token offsets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragmetrics_core.judges.model.embedded_parts import content_terms, sentences

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


@dataclass(frozen=True, slots=True)
class Window:
    text: str
    first: int
    """Index of its first sentence (or piece) in the premise, from 0."""
    last: int
    terms: frozenset[str]
    """The content terms of its sentences, for the screen."""


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    tokens: int


def pieces(text: str, count: Callable[[Sequence[str]], list[int]], cut: Callable[[str, int], list[str]],
           budget: int) -> list[Piece]:
    """The premise's sentences with their token counts; a sentence over ``budget`` becomes several pieces."""
    split = sentences(text)
    found: list[Piece] = []
    for sentence, tokens in zip(split, count(split), strict=True):
        if tokens <= budget:
            found.append(Piece(sentence, tokens))
        else:
            parts = cut(sentence, budget)
            found.extend(Piece(part, tokens) for part, tokens in zip(parts, count(parts), strict=True))
    return found


def windows(units: Sequence[Piece], budget: int, overlap: int) -> list[Window]:
    """Runs of consecutive pieces of at most ``budget`` tokens, each sharing ``overlap`` pieces with the last."""
    found: list[Window] = []
    start = 0
    total = len(units)
    unit_terms = [frozenset(content_terms(unit.text)) for unit in units]
    while start < total:
        end = start
        used = 0
        while end < total and (end == start or used + units[end].tokens <= budget):
            used += units[end].tokens
            end += 1
        found.append(Window(
            text=" ".join(unit.text for unit in units[start:end]),
            first=start,
            last=end - 1,
            terms=frozenset().union(*unit_terms[start:end]),
        ))
        if end >= total:
            break
        start = max(end - overlap, start + 1)
    return found
