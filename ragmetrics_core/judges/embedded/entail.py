"""Does a premise entail a claim? Weighted coverage in the best-aligned window, plus contradiction signals.

The premise is cut into sentences once (:class:`Premise`); a claim is compared with the window of one or two
adjacent sentences that covers most of its weighted content, not with the bag of the whole text. Terms found
only elsewhere in the premise earn part credit, and so do terms that share a long prefix with a window term
("sunlight" / "light"). A claim is *entailed* when the covered share reaches :data:`ENTAIL_THRESHOLD` and
nothing contradicts it; *contradicted* when the aligned window disagrees on a number or date of the same kind,
on negation, or has the claim's two names in swapped roles; *neutral* otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragmetrics_core.evidence import Check, Verdict
from ragmetrics_core.judges.embedded.normalize import Number, Terms, terms
from ragmetrics_core.judges.embedded.segment import sentences

ENTAIL_THRESHOLD = 0.75
"""Share of a claim's weighted content that the aligned window must cover for *entailed*."""
CONTRADICTION_ALIGNMENT = 0.5
"""A contradiction signal counts only when the window is about the claim (covers at least this share)."""
ELSEWHERE_CREDIT = 0.5
PREFIX_CREDIT = 0.7
SPLIT_BIGRAM_CREDIT = 0.5
_PREFIX_MIN = 4
_CANDIDATES = 3
_PAIR_DISCOUNT = 0.98
_NUMBER_TOLERANCE = 0.02
MAX_POSTINGS = 5000
"""Sentences looked at per claim term in huge premises (documented cap)."""


@dataclass(frozen=True, slots=True)
class Premise:
    """A text cut into sentences with an inverted index, built once and checked against many claims."""

    units: tuple[Terms, ...]
    group: tuple[int, ...]
    index: dict[str, tuple[int, ...]]
    keys: frozenset[str]

    @classmethod
    def from_text(cls, text: str, group: int = 0) -> Premise:
        return cls.from_units([terms(sentence) for sentence in sentences(text)], None, group)

    @classmethod
    def from_units(cls, units: Sequence[Terms], groups: Sequence[int] | None, group: int = 0) -> Premise:
        postings: dict[str, list[int]] = {}
        for position, unit in enumerate(units):
            for key in unit.weights:
                postings.setdefault(key, []).append(position)
        return cls(
            units=tuple(units),
            group=tuple(groups) if groups is not None else (group,) * len(units),
            index={key: tuple(positions[:MAX_POSTINGS]) for key, positions in postings.items()},
            keys=frozenset(postings),
        )

    @classmethod
    def joined(cls, premises: Sequence[Premise]) -> Premise:
        """All premises as one text, each sentence remembering which premise (chunk) it came from."""
        units: list[Terms] = []
        groups: list[int] = []
        for number, premise in enumerate(premises):
            units.extend(premise.units)
            groups.extend([number] * len(premise.units))
        return cls.from_units(units, groups)


@dataclass(frozen=True, slots=True)
class _Window:
    start: int
    end: int
    coverage: float
    missing: tuple[str, ...]


def check(claim: Terms, premise: Premise, label: str = "premise") -> Check:
    """The verdict of ``premise`` on ``claim`` with a one-line rationale."""
    total = claim.total
    if total <= 0:
        return Check(verdict=Verdict.NEUTRAL, confidence=0.5, rationale="claim has no checkable content")
    if not premise.units:
        return Check(verdict=Verdict.NEUTRAL, confidence=1.0, rationale=f"{label} is empty")
    window = _best_window(claim, premise, total)
    if window is None:
        return Check(verdict=Verdict.NEUTRAL, confidence=1.0, rationale=f"no content of the claim in {label}")
    where = _describe(window, premise, label)
    covered = f"{window.coverage:.0%} of content covered by {where}"
    if window.coverage >= CONTRADICTION_ALIGNMENT:
        conflict = _contradiction(claim, premise, window)
        if conflict is not None:
            return Check(verdict=Verdict.CONTRADICTED, confidence=round(min(0.95, 0.5 + window.coverage / 2), 4),
                         rationale=f"{conflict}; {covered}")
    absent_numbers = [number.text for number in claim.numbers if number.key not in premise.keys
                      and not _close_number(number, premise, window)]
    if window.coverage >= ENTAIL_THRESHOLD and not absent_numbers:
        matched = [number.text for number in claim.numbers]
        suffix = f"; number {', '.join(matched)} matches" if matched else ""
        return Check(verdict=Verdict.ENTAILED, confidence=round(window.coverage, 4), rationale=covered + suffix)
    reason = covered
    if absent_numbers:
        reason += f"; number {', '.join(absent_numbers)} not in {label}"
    elif window.missing:
        reason += f"; missing {', '.join(window.missing[:4])}"
    return Check(verdict=Verdict.NEUTRAL, confidence=round(1.0 - window.coverage, 4), rationale=reason)


def _best_window(claim: Terms, premise: Premise, total: float) -> _Window | None:
    scores: dict[int, float] = {}
    for key, weight in claim.weights.items():
        for position in premise.index.get(key, ()):
            scores[position] = scores.get(position, 0.0) + weight
    if not scores:
        candidates = [0] if len(premise.units) == 1 else []
        if not candidates:
            return _fuzzy_only(claim, premise, total)
    else:
        candidates = sorted(scores, key=lambda position: (-scores[position], position))[:_CANDIDATES]
    best: _Window | None = None
    last = len(premise.units) - 1
    for position in candidates:
        spans = [(position, position)]
        if position > 0 and premise.group[position - 1] == premise.group[position]:
            spans.append((position - 1, position))
        if position < last and premise.group[position + 1] == premise.group[position]:
            spans.append((position, position + 1))
        for start, end in spans:
            window = _score(claim, premise, start, end, total)
            if best is None or window.coverage > best.coverage + 1e-12:
                best = window
    return best


def _fuzzy_only(claim: Terms, premise: Premise, total: float) -> _Window | None:
    if len(premise.units) > 50:
        return None
    best: _Window | None = None
    for position in range(len(premise.units)):
        window = _score(claim, premise, position, position, total)
        if window.coverage > 0 and (best is None or window.coverage > best.coverage):
            best = window
    return best


def _score(claim: Terms, premise: Premise, start: int, end: int, total: float) -> _Window:
    units = premise.units[start : end + 1]
    earned = 0.0
    missing: list[str] = []
    for key, weight in claim.weights.items():
        if any(key in unit.weights for unit in units):
            earned += weight
            continue
        credit = _prefix_credit(key, units)
        if credit == 0.0 and key in premise.keys:
            credit = ELSEWHERE_CREDIT
        if credit < 1.0:
            missing.append(key)
        earned += weight * credit
    coverage = earned / total
    if end > start:
        coverage *= _PAIR_DISCOUNT
    return _Window(start=start, end=end, coverage=coverage, missing=tuple(missing))


def _prefix_credit(key: str, units: Sequence[Terms]) -> float:
    if len(key) == 2 and _is_cjk(key[0]):
        first, second = key
        if any(first in unit.weights for unit in units) and any(second in unit.weights for unit in units):
            return SPLIT_BIGRAM_CREDIT
        return 0.0
    if key.startswith("#") or len(key) < _PREFIX_MIN or not key.isalpha() or not key.isascii() and not _cyrillic(key):
        return 0.0
    for unit in units:
        for other in unit.weights:
            if len(other) >= _PREFIX_MIN and other[0] == key[0] and (other.startswith(key) or key.startswith(other)):
                return PREFIX_CREDIT
            if len(other) >= _PREFIX_MIN + 1 and len(key) >= _PREFIX_MIN + 1 and (
                other.endswith(key) or key.endswith(other)
            ):
                return PREFIX_CREDIT
    return 0.0


def _is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff"


def _cyrillic(key: str) -> bool:
    return "\u0400" <= key[0] <= "\u04ff"


def _contradiction(claim: Terms, premise: Premise, window: _Window) -> str | None:
    units = premise.units[window.start : window.end + 1]
    window_numbers = [number for unit in units for number in unit.numbers]
    for number in claim.numbers:
        if any(_same_number(number, other) for other in window_numbers):
            continue
        rivals = [other for other in window_numbers if other.kind == number.kind]
        if rivals and number.key not in premise.keys:
            said = ", ".join(dict.fromkeys(other.text for other in rivals))
            return f"number {number.text} not in premise (premise says {said})"
    if window.coverage >= 0.7:
        negated = any(unit.negated for unit in units)
        if negated != claim.negated:
            return "negation mismatch (claim is {}negated, premise is {}negated)".format(
                "" if claim.negated else "not ", "" if negated else "not "
            )
    swapped = _swapped_names(claim, units)
    if swapped is not None:
        return f"{swapped[0]} and {swapped[1]} appear in swapped roles"
    return None


def _same_number(number: Number, other: Number) -> bool:
    if number.key == other.key:
        return True
    if number.value == 0 or other.value == 0:
        return False
    return abs(number.value - other.value) / max(abs(number.value), abs(other.value)) <= _NUMBER_TOLERANCE


def _close_number(number: Number, premise: Premise, window: _Window) -> bool:
    units = premise.units[window.start : window.end + 1]
    return any(_same_number(number, other) for unit in units for other in unit.numbers)


def _swapped_names(claim: Terms, units: Sequence[Terms]) -> tuple[str, str] | None:
    """Two names whose order flips around a shared relation word ("A defeated B" vs "B defeated A")."""
    names = [key for key in claim.order if key in claim.names]
    if len(names) != 2:
        return None
    first, second = names
    claim_order = claim.order
    between = claim_order[claim_order.index(first) + 1 : claim_order.index(second)]
    relations = [key for key in between if key not in claim.names and not key.startswith("#")]
    if not relations:
        return None
    for unit in units:
        order = unit.order
        if first in order and second in order and order.index(second) < order.index(first):
            inner = order[order.index(second) + 1 : order.index(first)]
            if any(relation in inner for relation in relations):
                return first, second
    return None


def _describe(window: _Window, premise: Premise, label: str) -> str:
    chunks = sorted(set(premise.group[window.start : window.end + 1]))
    local_start = window.start - premise.group.index(chunks[0])
    span = f"sentence {local_start + 1}" if window.end == window.start else (
        f"sentences {local_start + 1}-{local_start + 1 + window.end - window.start}"
    )
    if label == "contexts":
        return f"chunk {chunks[0] + 1} {span}"
    return f"{label} {span}"
