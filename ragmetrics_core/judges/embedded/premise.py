"""A premise cut into sentences once, with an inverted index, to be checked against many claims."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any, cast

from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.segment import sentences
from ragmetrics_core.judges.embedded.terms import Terms, terms

MAX_POSTINGS = 5000
"""Sentences looked at per claim term in huge premises (documented cap)."""
_HEAD = itemgetter(slice(None, KNOBS.prefix_length))
_NUMBERS = attrgetter("numbers")


@dataclass(frozen=True, slots=True)
class Premise:
    """A text cut into sentences with an inverted index, built once and checked against many claims."""

    units: tuple[Terms, ...]
    group: tuple[int, ...]
    index: Mapping[str, list[int]]
    keys: frozenset[str]
    heads: frozenset[str]
    """The first :data:`PREFIX_LENGTH` characters of every key (near-match candidates)."""
    has_numbers: bool

    @classmethod
    def from_text(cls, text: str, group: int = 0) -> Premise:
        return cls.from_units([terms(sentence) for sentence in sentences(text)], None, group)

    @classmethod
    def from_units(cls, units: Sequence[Terms], groups: Sequence[int] | None, group: int = 0) -> Premise:
        postings: dict[str, list[int]] = {}
        for position, unit in enumerate(units):
            for key in unit.weights:
                if key in postings:
                    postings[key].append(position)
                else:
                    postings[key] = [position]
        if len(units) > MAX_POSTINGS:  # a term's positions are in order: the cap keeps the first ones
            for found in postings.values():
                del found[MAX_POSTINGS:]
        return cls(
            units=tuple(units),
            group=tuple(groups) if groups is not None else (group,) * len(units),
            index=postings,
            keys=frozenset(postings),
            # Shorter keys are kept as they are: only heads of full length are ever looked up.
            heads=frozenset(map(_HEAD, postings)),
            has_numbers=any(map(_NUMBERS, units)),
        )

    @classmethod
    def joined(cls, premises: Sequence[Premise]) -> Premise:
        """All premises as one text, each sentence remembering which premise (chunk) it came from."""
        units: list[Terms] = []
        groups: list[int] = []
        for number, premise in enumerate(premises):
            units.extend(premise.units)
            groups.extend([number] * len(premise.units))
        return cls(
            units=tuple(units),
            group=tuple(groups),
            index=_JoinedPostings(premises),
            keys=frozenset().union(*(premise.keys for premise in premises)),
            heads=frozenset().union(*(premise.heads for premise in premises)),
            has_numbers=any(premise.has_numbers for premise in premises),
        )


class _JoinedPostings(Mapping[str, list[int]]):
    """The inverted index of joined premises, merged per term on first lookup.

    A joint check looks up a claim's few terms; merging every term of every chunk up front cost more than the
    checks themselves. Each premise's positions are shifted by its first sentence: no sentence is analysed twice.
    """

    def __init__(self, premises: Sequence[Premise]) -> None:
        self._premises = premises
        # Each premise's lookup with the position of its first sentence, for chunks with sentences.
        self._lookups: list[tuple[Callable[[str], list[int] | None], int]] = []
        offset = 0
        for premise in premises:
            if premise.units:
                self._lookups.append((premise.index.get, offset))
            offset += len(premise.units)
        self._merged: dict[str, list[int] | None] = {}

    def get(self, key: str, default: Any = None) -> Any:
        merged = self._merged.get(key, _UNMERGED)
        if merged is _UNMERGED:
            merged = self._merged[key] = self._merge(key)
        return default if merged is None else merged

    def _merge(self, key: str) -> list[int] | None:
        found: list[int] | None = None
        for lookup, offset in self._lookups:
            positions = lookup(key)
            if positions is None:
                continue
            if found is None:
                found = list(map(offset.__add__, positions)) if offset else positions[:]
            elif len(found) < MAX_POSTINGS:
                found.extend(map(offset.__add__, positions[: MAX_POSTINGS - len(found)]))
        return found

    def __getitem__(self, key: str) -> list[int]:
        merged = self.get(key)
        if merged is None:
            raise KeyError(key)
        return cast(list[int], merged)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(key for premise in self._premises for key in premise.index))

    def __len__(self) -> int:
        return len(set().union(*(premise.index for premise in self._premises)))


_UNMERGED: Any = object()
