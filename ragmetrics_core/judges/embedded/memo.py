"""Memoisation bounded in entries *and* key size, so huge texts are never kept alive by a cache.

The memoised functions are pure (their result depends on the text only), so a cache changes speed, never
results, whatever the order of calls.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

T = TypeVar("T")


def text_cache(maxsize: int, max_chars: int) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """Cache up to ``maxsize`` results of a one-text function, for texts of at most ``max_chars``."""

    def decorate(function: Callable[[str], T]) -> Callable[[str], T]:
        cached = lru_cache(maxsize=maxsize)(function)

        @wraps(function)
        def wrapper(text: str) -> T:
            return cached(text) if len(text) <= max_chars else function(text)

        return wrapper

    return decorate
