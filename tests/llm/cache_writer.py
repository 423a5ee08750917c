"""A worker for the cache's multi-process test, kept light so a spawned process starts fast."""

from __future__ import annotations

from ragmetrics_core.judges.cache import JudgeCache


def write_many(path: str, prefix: str, count: int = 50) -> None:
    cache = JudgeCache(path)
    for index in range(count):
        cache.put(f"{prefix}-{index}", model="m", kind="chat", value={"content": f"{prefix}{index}"})
