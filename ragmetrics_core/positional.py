"""One figure per input position (a state byte and a float), kept where a run's memory does not grow with it.

A run's exact means need every score in input order (RAGChecker's numpy-order pairwise sum depends on each value
and on how many there are), and results finish out of order. :class:`PositionalColumn` holds those records in
memory, or, for a run that keeps nothing per row in memory, in an unnamed temporary file written at each record's
offset and read back in position order a chunk at a time: the process then holds a constant amount per column
whatever the number of rows, and the file is gone when the column is (or the process ends).
"""

from __future__ import annotations

import struct
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_RECORD = struct.Struct("<Bd")
"""A position's record: its state (0: nothing there) and its value."""
RECORD_SIZE = _RECORD.size
_CHUNK = 8192 * RECORD_SIZE
"""Bytes read back at a time, and the most a file column holds back before writing."""


class PositionalColumn:
    """A state and a value per position from 0, put in any order (a position put again keeps the last), read back
    in position order. Positions never put read as state 0 and value 0.0. ``spill_dir``: keep the records in an
    unnamed temporary file there rather than in memory."""

    __slots__ = ("__weakref__", "_file", "_memory", "_pending", "_pending_at", "_size", "_spill_dir")

    def __init__(self, spill_dir: Path | None = None) -> None:
        self._size = 0
        self._spill_dir = spill_dir
        self._memory = bytearray() if spill_dir is None else None
        self._file: IO[bytes] | None = None  # made at the first record: a column never put makes none
        # Records that follow one another are written together: results mostly finish in input order.
        self._pending = bytearray()
        self._pending_at = 0

    @property
    def spilled(self) -> bool:
        """Whether the records are in a file rather than in memory."""
        return self._memory is None

    @property
    def held(self) -> int:
        """Bytes of records held in memory."""
        return len(self._pending) if self._memory is None else len(self._memory)

    def __len__(self) -> int:
        """One past the highest position put."""
        return self._size // RECORD_SIZE

    def put(self, position: int, state: int, value: float) -> None:
        offset = position * RECORD_SIZE
        self._size = max(self._size, offset + RECORD_SIZE)
        if self._memory is not None:
            if offset >= len(self._memory):
                self._memory.extend(bytes(offset + RECORD_SIZE - len(self._memory)))
            _RECORD.pack_into(self._memory, offset, state, value)
            return
        if offset != self._pending_at + len(self._pending) or len(self._pending) >= _CHUNK:
            self._flush()
            self._pending_at = offset
        self._pending += _RECORD.pack(state, value)

    def records(self) -> Iterator[tuple[int, float]]:
        """(state, value) of every position below ``len(self)``, in position order."""
        self._flush()
        for start in range(0, self._size, _CHUNK):
            yield from _RECORD.iter_unpack(self._read(start, min(_CHUNK, self._size - start)))

    def _read(self, start: int, size: int) -> bytes:
        if self._memory is not None:
            return bytes(self._memory[start : start + size])
        assert self._file is not None  # _size > 0: something was written
        self._file.seek(start)
        chunk = self._file.read(size)
        if len(chunk) < size:  # records never put before the last one are holes, which read as zeros
            raise OSError(f"the run's figures file ended at {start + len(chunk)} of {self._size} bytes")
        return chunk

    def _flush(self) -> None:
        if not self._pending:
            return
        if self._file is None:
            # closed by the finalizer below, when the column goes: a context manager cannot span the run
            self._file = tempfile.TemporaryFile(dir=self._spill_dir, prefix=".ragmetrics-figures-")  # noqa: SIM115
            weakref.finalize(self, self._file.close)  # the file goes with the column, without a ResourceWarning
        self._file.seek(self._pending_at)
        self._file.write(self._pending)
        self._pending.clear()

