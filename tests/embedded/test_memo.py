"""Memo caches keep small texts only, so a stream of huge inputs never stays in memory."""

from __future__ import annotations

from ragmetrics_core.judges.embedded.memo import text_cache


def test_small_texts_are_cached_and_large_ones_recomputed() -> None:
    calls: list[str] = []

    @text_cache(maxsize=4, max_chars=10)
    def measure(text: str) -> int:
        calls.append(text)
        return len(text)

    assert measure("short") == 5
    assert measure("short") == 5
    assert measure("x" * 100) == 100
    assert measure("x" * 100) == 100
    assert calls == ["short", "x" * 100, "x" * 100]


def test_cache_is_bounded_in_entries() -> None:
    calls: list[str] = []

    @text_cache(maxsize=2, max_chars=10)
    def echo(text: str) -> str:
        calls.append(text)
        return text

    for text in ("a", "b", "c", "a"):
        echo(text)
    assert calls == ["a", "b", "c", "a"]
