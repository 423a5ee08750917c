"""One JSON object per evaluation, appended to a file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO

from ragmetrics_core.online.types import EvaluationRecord

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class JsonlEmitter:
    """Appends ``record.to_dict()`` as one line to ``path``; the file is reopened in a forked child.

    Called only from its own emitter thread, so it needs no lock (a lock could be inherited held by fork).
    """

    def __init__(self, path: str | os.PathLike[str], *, name: str = "jsonl") -> None:
        self.path = Path(path)
        self._name = name
        self._file: IO[str] | None = None
        self._pid = 0

    @property
    def name(self) -> str:
        return self._name

    def emit(self, record: EvaluationRecord) -> None:
        line = json.dumps(record.to_dict(), ensure_ascii=False, allow_nan=False, default=str)
        handle = self._handle()
        handle.write(line + "\n")
        handle.flush()

    def force_flush(self, timeout_s: float) -> bool:
        if self._file is not None and self._pid == os.getpid():
            self._file.flush()
        return True

    def shutdown(self, timeout_s: float) -> None:
        if self._file is not None and self._pid == os.getpid():
            self._file.close()
        self._file = None

    def _handle(self) -> IO[str]:
        if self._file is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
            self._pid = os.getpid()
        return self._file
