"""Ids of large files told apart without holding them: by a 64-bit hash in a flat table, confirmed by their text.

A file read twice (the plan, then the scoring) is first screened: every id's hash goes into :class:`HashSet`
(at most 21 bytes a member), and the hashes met twice are kept. Only ids with such a hash can repeat, so the
reading that settles ids follows just those, by their real text: a hash collision costs a comparison, and two
different ids are never taken for one. A results file is indexed by :class:`LastRows`, which reads an id back
from the file to confirm a hash.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable, Iterable, Iterator
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
        return self._slots[self._slot(value)] == value

    def add(self, value: int) -> bool:
        """Put ``value`` in; whether it was there already."""
        value = value or 1
        index = self._slot(value)
        if self._slots[index] == value:
            return True
        self._slots[index] = value
        self.size += 1
        if 4 * self.size > 3 * len(self._slots):
            self._grow()
        return False

    def _slot(self, value: int) -> int:
        """The slot holding ``value`` (never 0), else the free slot it would take."""
        slots, index = self._slots, value & self._mask
        while (held := slots[index]) != _EMPTY and held != value:
            index = (index + 1) & self._mask
        return index

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


_RANK_BITS = 32
_RANK_MASK = (1 << _RANK_BITS) - 1
"""A :class:`LastRows` slot: the id's hash's top 32 bits, then its rank + 1 (0: a free slot)."""


class LastRows:
    """Which row of a file holds each id's last occurrence, without holding the ids: per row its place in the file
    (8 bytes), per id its last row (8 bytes) and a slot of a flat table (at most 3/4 full) holding 32 bits of the
    id's hash and the id's rank. ``id_at(row)`` reads a row's id back from the file: an id is found by its hash and
    then confirmed by its text, so two different ids are never taken for one.

    Rows are added in file order (from 0); ids are ranked in the order they first occur."""

    __slots__ = ("_by_rank", "_id_at", "_mask", "_places", "_slots", "_table")

    def __init__(self, id_at: Callable[[int], str]) -> None:
        self._id_at = id_at
        self._places = array("q")
        """Row → where the file holds it (what ``id_at`` reads)."""
        self._by_rank = array("q")
        """Rank → the id's last row."""
        self._table = bytearray(8 * 1024)
        self._slots = memoryview(self._table).cast("Q")
        self._mask = len(self._slots) - 1

    def __len__(self) -> int:
        """The number of distinct ids."""
        return len(self._by_rank)

    @property
    def nbytes(self) -> int:
        """Bytes held: the table and the arrays."""
        return len(self._table) + (len(self._places) + len(self._by_rank)) * 8

    def place(self, row: int) -> int:
        return self._places[row]

    def add(self, row: int, sample_id: str, place: int) -> None:
        """Row ``row`` (the next one) holds ``sample_id`` and is found at ``place``."""
        if row != len(self._places) or len(self._by_rank) >= _RANK_MASK:
            raise ValueError(f"rows are added in order, ids fewer than 2**{_RANK_BITS}: got row {row}")
        self._places.append(place)
        tag, slot = self._find(sample_id)
        if self._slots[slot]:  # seen: this row is now its last
            self._by_rank[(self._slots[slot] & _RANK_MASK) - 1] = row
            return
        self._by_rank.append(row)
        self._slots[slot] = tag << _RANK_BITS | len(self._by_rank)
        if 4 * len(self._by_rank) > 3 * len(self._slots):
            self._grow()

    def last(self, sample_id: str) -> int | None:
        """The last row holding ``sample_id``, None when no row does."""
        held = self._slots[self._find(sample_id)[1]]
        return self._by_rank[(held & _RANK_MASK) - 1] if held else None

    def last_rows(self) -> Iterator[int]:
        """Each id's last row, ids in the order they first occur."""
        return iter(self._by_rank)

    def ids(self) -> Iterator[str]:
        """Each id, in the order they first occur (read back from the file)."""
        return (self._id_at(row) for row in self._by_rank)

    def _find(self, sample_id: str) -> tuple[int, int]:
        """The id's tag and its slot: the one holding it, else the free one it would take."""
        tag = id_hash(sample_id) >> (64 - _RANK_BITS)
        slot = tag & self._mask
        while held := self._slots[slot]:
            if held >> _RANK_BITS == tag and self._id_at(self._by_rank[(held & _RANK_MASK) - 1]) == sample_id:
                return tag, slot
            slot = (slot + 1) & self._mask
        return tag, slot

    def _grow(self) -> None:
        old = self._slots
        self._table = bytearray(16 * len(old))
        self._slots = memoryview(self._table).cast("Q")
        self._mask = len(self._slots) - 1
        for held in old:  # the tag says where an entry goes: no id is read back
            if held:
                slot = (held >> _RANK_BITS) & self._mask
                while self._slots[slot]:
                    slot = (slot + 1) & self._mask
                self._slots[slot] = held
        old.release()
