"""Pattern matches tried only where a match can start.

``re`` tries a pattern that opens with a look-behind, whitespace or an alternation at every position of the
text; when a cheaper search (``str.find``, a one-character class) finds the few places a match can start, trying
the pattern only there gives the same matches several times faster.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def matches_at(pattern: re.Pattern[str], text: str, next_start: Callable[[str, int], int]) -> list[re.Match[str]]:
    """``list(pattern.finditer(text))`` for a pattern that never matches the empty string and can only start
    where ``next_start(text, position)`` points (the first such place at or after ``position``, -1 when none)."""
    found: list[re.Match[str]] = []
    position = 0
    while (start := next_start(text, position)) >= 0:
        match = pattern.match(text, start)  # a look-behind still sees the text before ``start``
        if match is None:
            position = start + 1
        else:
            found.append(match)
            position = match.end()
    return found


def searcher(candidates: re.Pattern[str]) -> Callable[[str, int], int]:
    """``next_start`` for :func:`matches_at` from a pattern that finds the places a match can start."""

    def next_start(text: str, position: int) -> int:
        hit = candidates.search(text, position)
        return -1 if hit is None else hit.start()

    return next_start
