"""A local SQLite cache of judge calls, so re-running an evaluation costs nothing.

Keys are the SHA-256 of the model, the prompt and the call parameters, never of credentials or the
endpoint's URL: the file holds prompts and answers only, with every known secret masked
(:func:`ragmetrics_core.scrub.mask_known_secrets`). WAL mode and a busy timeout let several threads
and processes share one file; every operation opens its own short-lived connection.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

from ragmetrics_core.scrub import mask_known_secrets

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


def cache_key(kind: str, model: str, payload: object, params: Mapping[str, object]) -> str:
    """A stable key for one call: ``kind`` (chat or embeddings), model, prompt/input and parameters."""
    document = json.dumps(
        {"kind": kind, "model": model, "payload": payload, "params": dict(params)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


class JudgeCache:
    """Opt-in cache; give it a file path (its folder is created)."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self._busy_timeout_s = busy_timeout_s
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as connection, connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(_SCHEMA)

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self._busy_timeout_s, isolation_level=None)
        connection.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_s * 1000)}")
        return connection

    def get(self, key: str) -> object | None:
        with closing(self._connect()) as connection:
            row = connection.execute("SELECT value FROM judge_calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, *, model: str, kind: str, value: object) -> None:
        document = mask_known_secrets(json.dumps(value, ensure_ascii=False))
        with closing(self._connect()) as connection:
            connection.execute(
                "INSERT OR REPLACE INTO judge_calls (key, model, kind, value, created_at) VALUES (?, ?, ?, ?, ?)",
                (key, model, kind, document, time.time()),
            )

    def __len__(self) -> int:
        with closing(self._connect()) as connection:
            (count,) = connection.execute("SELECT COUNT(*) FROM judge_calls").fetchone()
        return int(count)

    async def aget(self, key: str) -> object | None:
        return await asyncio.to_thread(self.get, key)

    async def aput(self, key: str, *, model: str, kind: str, value: object) -> None:
        await asyncio.to_thread(self.put, key, model=model, kind=kind, value=value)
