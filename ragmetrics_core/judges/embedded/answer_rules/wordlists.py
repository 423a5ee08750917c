"""Word lists written as one literal string each, the way the language modules keep theirs."""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a literal word list."""
    return frozenset(text.split())
