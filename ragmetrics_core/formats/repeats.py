"""Which ids of a large input may repeat, found without holding the ids: a 64-bit hash per id in a compact set.

A file read twice (the plan, then the scoring) is first screened: every id's hash goes into :class:`HashSet`
(at most 21 bytes a member), and the hashes met twice are kept. Only ids with such a hash can repeat, so the
reading that settles ids follows just those, by their real text: a hash collision costs a comparison, and two
different ids are never taken for one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragmetrics_core.formats.columns import sample_key
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_EMPTY = 0
"""A free slot of :class:`HashSet` (hash 0 is stored as 1: a collision the exact check then settles)."""


def id_hash(text: str) -> int:
    """64 bits of ``text`` (lone surrogates allowed: JSON can carry them)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


class HashSet:
    """A set of 64-bit ints in one flat table (open addressing, linear probing, at most 3/4 full): between 10.7
    and 21.3 bytes a member, where a Python set of ints takes about 60."""

    __slots__ = ("_mask", "_slots", "_table", "size")

    def __init__(self, capacity: int = 1024) -> None:
        self._table = bytearray(8 * capacity)  # capacity: a power of two
        self._slots = memoryview(self._table).cast("Q")
        self._mask = capacity - 1
        self.size = 0

    @property
    def nbytes(self) -> int:
        """Bytes the table holds."""
        return len(self._table)

    def __contains__(self, value: int) -> bool:
        value = value or 1
        slots, index = self._slots, value & self._mask
        while (held := slots[index]) != _EMPTY:
            if held == value:
                return True
            index = (index + 1) & self._mask
        return False

    def add(self, value: int) -> bool:
        """Put ``value`` in; whether it was there already."""
        value = value or 1
        slots, index = self._slots, value & self._mask
        while (held := slots[index]) != _EMPTY:
            if held == value:
                return True
            index = (index + 1) & self._mask
        slots[index] = value
        self.size += 1
        if 4 * self.size > 3 * len(slots):
            self._grow()
        return False

    def _grow(self) -> None:
        old = self._slots
        self._table = bytearray(16 * len(old))
        self._slots = memoryview(self._table).cast("Q")
        self._mask = len(self._slots) - 1
        self.size = 0
        for value in old:
            if value != _EMPTY:
                self.add(value)
        old.release()


@dataclass(slots=True)
class RepeatScreen:
    """The hashes met more than once by a screening reading: explicit ids, and content keys (rows without one)."""

    ids: HashSet = field(default_factory=lambda: HashSet(16))
    contents: HashSet = field(default_factory=lambda: HashSet(16))

    def may_repeat_id(self, sample_id: str) -> bool:
        return id_hash(sample_id) in self.ids

    def may_repeat_content(self, key: str) -> bool:
        return id_hash(key) in self.contents


def screen_repeats(samples: Iterable[RagSample], limit: int | None = None) -> RepeatScreen:
    """Screen a reading's samples (the rows that parsed, ids not settled yet). ``limit``: stop once the samples
    read hold ``limit`` settled ones for sure (a row without an id is one, a distinct id hash at least one)."""
    seen_ids, seen_contents = HashSet(), HashSet()
    screen = RepeatScreen()
    content_rows = 0
    for sample in samples:
        if limit is not None and content_rows + seen_ids.size >= limit:
            break
        if sample.id is not None:
            hashed = id_hash(sample.id)
            if seen_ids.add(hashed):
                screen.ids.add(hashed)
        else:
            content_rows += 1
            hashed = id_hash(sample_key(sample))
            if seen_contents.add(hashed):
                screen.contents.add(hashed)
    return screen
