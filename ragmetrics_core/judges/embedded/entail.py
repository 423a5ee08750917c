"""Does a premise entail a claim? Weighted coverage in the best-aligned window, plus contradiction signals.

The premise is cut into sentences once (:class:`Premise`); a claim is compared with the window of one or two
adjacent sentences (plus up to two sentences elsewhere that supply what is missing) that covers most of its
weighted content, not with the bag of the whole text. Terms found only elsewhere in the premise earn part credit,
and so do terms that share a long prefix with a window term ("sunlight" / "light"). A claim is *entailed* when the
covered share reaches :data:`ENTAIL_THRESHOLD` (:data:`LONG_CLAIM_THRESHOLD` for long claims) and nothing
contradicts it; *contradicted* when the aligned window disagrees on a number or date of the same kind, on
negation, or has the claim's two names in swapped roles; *neutral* otherwise.

A number or date supports a claim only where it is said of the claim's subject: found only in sentences about
another subject (:func:`.relations.about_another_subject`: they name something the claim does not, mention none
of its names and point back with no pronoun), it counts as absent, and a rival the window gives contradicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple, cast

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import VERDICT_STRICTNESS, Check, Verdict
from ragmetrics_core.judges.embedded.normalize import PREFIX_LENGTH, Number, Terms, terms
from ragmetrics_core.judges.embedded.relations import (
    about_another_subject,
    another_role,
    claim_subject,
    role_given_to_another,
    said_of_a_relative,
)
from ragmetrics_core.judges.embedded.segment import sentences

MIN_CLAIM_WEIGHT = 1.0
"""A claim whose only content is hedge-like words ("it is usually included") carries too little to attribute."""
ENTAIL_THRESHOLD = 0.75
"""Share of a claim's weighted content that the aligned window must cover for *entailed*."""
LONG_CLAIM_WEIGHT = 10.0
LONG_CLAIM_THRESHOLD = 0.7
"""Claims heavier than ``LONG_CLAIM_WEIGHT`` (about ten content words) need ``LONG_CLAIM_THRESHOLD``: more words
leave more room for paraphrase the lexicon does not know."""
CONTRADICTION_ALIGNMENT = 0.5
"""A contradiction signal counts only when the window is about the claim (covers at least this share)."""
NEGATION_ALIGNMENT = 0.7
"""Negation only contradicts when the window is clearly about the claim."""
NUMBER_ALIGNMENT = 0.75
"""A disagreeing number contradicts when the rest of the claim is this well covered by the same window."""
FULL_SUPPORT_COVERAGE = 0.9
MAX_NEUTRAL_SUPPORT = 0.4999
ABSENT_NUMBER_SUPPORT = 0.5
SPECIFIC_CLAIM_WEIGHT = 3.0
BORROWED_PIECE_FACTOR = 0.7
"""Graded support (``Check.support``): an entailed claim gets 1/2 at the threshold rising to 1 at
``FULL_SUPPORT_COVERAGE`` (what a window covering 90 % still lacks is an inflection or a minor word); a
neutral one 0 up to ``CONTRADICTION_ALIGNMENT``, then rising to just below 1/2 at the threshold, halved when a
number of the claim is not in the premise; a contradicted one 0. Both shrink toward the boundary for a claim
lighter than ``SPECIFIC_CLAIM_WEIGHT`` (in proportion) and by ``BORROWED_PIECE_FACTOR`` for every sentence the
window borrows from elsewhere (not adjacent to the rest)."""
ELSEWHERE_CREDIT = 0.5
PREFIX_CREDIT = 0.7
_PREFIX_MIN = PREFIX_LENGTH
_CANDIDATES = 3
_PAIR_DISCOUNT = 0.98
_EXTRA_DISCOUNT = 0.96
MAX_EXTRA_SENTENCES = 2
"""Non-adjacent sentences a window may borrow to cover a claim jointly."""
_NUMBER_TOLERANCE = 0.02
_COMPARABLE_COUNT = 100
MAX_POSTINGS = 5000
"""Sentences looked at per claim term in huge premises (documented cap)."""


_HEAD = itemgetter(slice(None, PREFIX_LENGTH))
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


class _Window(NamedTuple):  # built for every scored window: a named tuple is the cheapest immutable record
    positions: tuple[int, ...]
    coverage: float
    missing: tuple[str, ...]


def check(claim: Terms, premise: Premise, label: str = "premise") -> Check:
    """The verdict of ``premise`` on ``claim`` with a one-line rationale."""
    total = claim.total
    if total < MIN_CLAIM_WEIGHT:
        return _verdict(Verdict.NEUTRAL, confidence=0.5, rationale="claim has too little content to check", support=0.0)
    if not premise.units:
        return _verdict(Verdict.NEUTRAL, confidence=1.0, rationale=f"{label} is empty", support=0.0)
    bound = _coverage_bound(claim, premise, total)
    if bound < CONTRADICTION_ALIGNMENT and not (
        claim.numbers and _numbers_may_clash(claim, premise) and _content_bound(claim, premise) >= NUMBER_ALIGNMENT
    ):
        # Even with every near match counted, the premise cannot entail or contradict: skip the windows. (A
        # disagreeing number alone contradicts only in a window that holds the rest of the claim.)
        # Built directly (the commonest verdict, most chunks being about something else): the bound is in
        # [0, 1/2), so the confidence needs no clamp, and the support is 0 (:func:`_partial_support` is 0 up to
        # ``CONTRADICTION_ALIGNMENT`` and :func:`_graded` keeps 0 at 0).
        return _new_check({
            "verdict": Verdict.NEUTRAL, "confidence": round(1.0 - bound, 4), "support": 0.0,
            "rationale": (
                f"at most {bound:.0%} of content found in {label}" if bound else f"no content of the claim in {label}"
            ),
        })
    window = _best_window(claim, premise, total)
    if window is None:
        return _verdict(Verdict.NEUTRAL, confidence=1.0, rationale=f"no content of the claim in {label}", support=0.0)
    coverage = window.coverage
    covered = f"{coverage:.0%} of content covered by {_describe(window, premise, label)}"
    aligned = coverage >= CONTRADICTION_ALIGNMENT
    subject = claim_subject(claim) if claim.numbers else ()
    if aligned or _content_coverage(claim, premise, window) >= NUMBER_ALIGNMENT:
        units = list(map(premise.units.__getitem__, window.positions))
        conflict = _contradiction(claim, premise, units, coverage, subject)
        if conflict is not None:
            return _verdict(Verdict.CONTRADICTED, confidence=round(min(0.95, 0.5 + coverage / 2), 4),
                         rationale=f"{conflict}; {covered}", support=0.0)
        # Aligned, yet about someone or something else (relations.py): no support however much is covered.
        other = (said_of_a_relative(claim, units) or another_role(claim, units)) if aligned else None
        if other is not None:
            return _verdict(Verdict.NEUTRAL, confidence=round(min(0.95, 0.5 + coverage / 2), 4),
                            rationale=f"{other}; {covered}", support=0.0)
    absent_numbers = [number.text for number in claim.numbers
                      if not _number_found(number, claim, premise, window, subject)]
    threshold = _threshold(total)
    # One sentence is one piece: the commonest window, counted without sorting its positions.
    pieces = 1 if len(window.positions) == 1 else _pieces(window.positions, premise.group)
    if coverage >= threshold and not absent_numbers:
        matched = [number.text for number in claim.numbers]
        suffix = f"; number {', '.join(matched)} matches" if matched else ""
        return _verdict(Verdict.ENTAILED, confidence=round(coverage, 4), rationale=covered + suffix,
                        support=_graded(_entailed_support(coverage, threshold), total, pieces))
    reason = covered
    if absent_numbers:
        reason += f"; number {', '.join(absent_numbers)} not in {label}"
    elif window.missing:
        reason += f"; missing {', '.join(window.missing[:4])}"
    support = _partial_support(coverage, threshold)
    if absent_numbers:
        support *= ABSENT_NUMBER_SUPPORT
    return _verdict(Verdict.NEUTRAL, confidence=round(1.0 - coverage, 4), rationale=reason,
                    support=_graded(support, total, pieces))


def _threshold(total: float) -> float:
    return LONG_CLAIM_THRESHOLD if total > LONG_CLAIM_WEIGHT else ENTAIL_THRESHOLD


def _pieces(positions: tuple[int, ...], group: tuple[int, ...]) -> int:
    """How many runs of consecutive sentences of one chunk a window is made of (the last sentence of a chunk and
    the first of the next are not consecutive prose)."""
    ordered = sorted(positions)
    return 1 + sum(1 for before, after in pairwise(ordered) if after != before + 1 or group[after] != group[before])


def _entailed_support(coverage: float, threshold: float) -> float:
    """1/2 at the entailment threshold rising linearly to 1 at ``FULL_SUPPORT_COVERAGE``."""
    rise = min(1.0, (coverage - threshold) / (FULL_SUPPORT_COVERAGE - threshold))
    return round(VERDICT_STRICTNESS + (1.0 - VERDICT_STRICTNESS) * rise, 4)


def _partial_support(coverage: float, threshold: float) -> float:
    """0 up to the alignment a contradiction needs, rising linearly to just below 1/2 at the threshold."""
    if coverage <= CONTRADICTION_ALIGNMENT:
        return 0.0
    rise = (coverage - CONTRADICTION_ALIGNMENT) / (threshold - CONTRADICTION_ALIGNMENT)
    return min(MAX_NEUTRAL_SUPPORT, round(VERDICT_STRICTNESS * rise, 4))


def _graded(support: float, claim_weight: float, pieces: int) -> float:
    """Shrink a support toward the verdict boundary (entailed: toward 1/2; neutral: toward 0) when the evidence
    is thin: a claim of little content can match by accident, and a window pieced together from sentences far
    apart says less than one passage that states the claim."""
    factor = min(1.0, claim_weight / SPECIFIC_CLAIM_WEIGHT) * BORROWED_PIECE_FACTOR ** (pieces - 1)
    if support >= VERDICT_STRICTNESS:
        return round(VERDICT_STRICTNESS + (support - VERDICT_STRICTNESS) * factor, 4)
    return round(support * factor, 4)


def _verdict(verdict: Verdict, confidence: float, rationale: str, support: float) -> Check:
    return _new_check({"verdict": verdict, "confidence": min(1.0, max(0.0, confidence)), "rationale": rationale,
                       "support": support})


_new_check = builder(Check)
"""``Check(**fields)``, validated, without pydantic's Python-level ``__init__`` frame (see :mod:`.construct`):
cheaper than ``model_construct`` too, which builds the instance in Python."""


def _numbers_may_clash(claim: Terms, premise: Premise) -> bool:
    """Whether a claim number is missing while the premise has numbers: then the rest decides contradiction."""
    if premise.has_numbers:
        keys = premise.keys
        for number in claim.numbers:
            if number.key not in keys:
                return True
    return False


def _content_bound(claim: Terms, premise: Premise) -> float:
    """An upper bound of :func:`_content_coverage` over every window: the share of the claim's non-number
    content found anywhere in the premise."""
    return _content_share(claim, premise.keys)


def _content_coverage(claim: Terms, premise: Premise, window: _Window) -> float:
    """Coverage of the claim without its numbers: how well the window is about the same thing."""
    return _content_share(claim, set().union(*(premise.units[position].weights for position in window.positions)))


def _content_share(claim: Terms, keys: AbstractSet[str]) -> float:
    """The share of the claim's weighted content, numbers left out, whose terms are in ``keys``."""
    total = earned = 0.0
    for key, weight in claim.weights.items():
        if key[0] == "#":
            continue
        total += weight
        if key in keys:
            earned += weight
    return earned / total if total else 0.0


def _coverage_bound(claim: Terms, premise: Premise, total: float) -> float:
    """An upper bound of the coverage any window of ``premise`` can reach, from set lookups only."""
    keys = premise.keys
    heads = premise.heads
    reachable = 0.0
    for key, weight in claim.weights.items():
        if key in keys:
            reachable += weight
        elif weight > 0:
            probe = _near_probe(key)
            if probe is not None and (probe[0] in heads or not keys.isdisjoint(probe[1])):
                reachable += weight * PREFIX_CREDIT
    return reachable / total


@lru_cache(maxsize=65536)
def _near_probe(key: str) -> tuple[str, tuple[str, ...]] | None:
    """What a near match of ``key`` (see :func:`_near_credit`) needs in a premise, worked out once per term:
    a term with the same head (first characters) or one of the key's inner endings, ``(head, endings)``;
    ``None`` when no near match is possible (numbers, short keys, Chinese bigrams)."""
    if len(key) < _PREFIX_MIN or key[0] == "#":
        return None
    return key[:_PREFIX_MIN], _inner_suffixes(key)


@lru_cache(maxsize=65536)
def _inner_suffixes(key: str) -> tuple[str, ...]:
    """The endings of ``key`` a compound match looks for ("sunlight" → "unlight", "nlight", "light")."""
    return tuple(key[cut:] for cut in range(1, len(key) - _PREFIX_MIN))


def _best_window(claim: Terms, premise: Premise, total: float) -> _Window | None:
    scores: dict[int, float] = {}
    score_of = scores.get
    index = premise.index
    present = 0.0
    for key, weight in claim.weights.items():
        positions = index.get(key)
        if positions is None:
            continue
        present += weight
        for position in positions:
            scores[position] = score_of(position, 0.0) + weight
    if not scores:
        # Without one shared term, near matches alone cannot reach the entailment threshold.
        return None
    # A single sentence's exact coverage is its score plus part credit for claim terms found elsewhere.
    # Highest score first, ties by position (a stable sort by score over positions in order).
    candidates = sorted(sorted(scores), key=scores.__getitem__, reverse=True)[:_CANDIDATES]
    top = candidates[0]
    best_span: tuple[int, ...] = (top,)
    best_coverage = (scores[top] + ELSEWHERE_CREDIT * (present - scores[top])) / total
    group = premise.group
    for position in candidates:
        if scores[position] >= total:
            break
        chunk = group[position]
        for neighbour in (position - 1, position + 1):
            # A neighbour sharing no term cannot raise the coverage of the window (and a position with a score
            # is a sentence of the premise).
            if neighbour in scores and group[neighbour] == chunk:
                span = (neighbour, position) if neighbour < position else (position, neighbour)
                coverage = _pair_coverage(claim, premise, span, total)
                if coverage > best_coverage + 1e-12:
                    best_span, best_coverage = span, coverage
    first = (
        _score(claim, premise, best_span, total, fuzzy=False) if len(best_span) == 1
        else _pair_window(claim, premise, best_span, best_coverage)  # its coverage is the one just compared
    )
    best = _complete(claim, premise, first, total)
    if not best.missing or best.coverage >= _threshold(total):
        # Near matches only add credit: a window already over the threshold keeps its exact figure.
        return best
    missing_weight = sum(map(claim.weights.__getitem__, best.missing))
    if best.coverage + PREFIX_CREDIT * missing_weight / total < CONTRADICTION_ALIGNMENT:
        return best  # even full near-match credit could not change the verdict
    # Part credit for near matches is worked out for the chosen window only: it is the costly step.
    return _score(claim, premise, best.positions, total, fuzzy=True)


def _complete(claim: Terms, premise: Premise, window: _Window, total: float) -> _Window:
    """Add the sentence elsewhere in the premise that supplies most of what the window lacks.

    A claim often combines two facts stated in different sentences ("X, born in 1950, won Y"); the premise
    entails it jointly. Each added sentence costs a small discount, so a single sentence that covers the
    claim is preferred.
    """
    weights = claim.weights
    lookup = premise.index.get
    for _ in range(MAX_EXTRA_SENTENCES):
        if not window.missing:
            return window
        # A missing term is in no sentence of the window: every sentence that has one is a candidate.
        gains: dict[int, float] = {}
        for key in window.missing:
            weight = weights[key]
            for position in lookup(key, ()):
                gains[position] = gains.get(position, 0.0) + weight
        if not gains:
            return window
        position = max(sorted(gains), key=gains.__getitem__)  # the first of the best: ties go to the earliest
        extended = _score(claim, premise, (*window.positions, position), total, fuzzy=False)
        if extended.coverage <= window.coverage + 1e-9:
            return window
        window = extended
    return window


def _score(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float, *, fuzzy: bool) -> _Window:
    if fuzzy:
        return _fuzzy_score(claim, premise, positions, total)
    if len(positions) == 2:
        return _pair_window(claim, premise, positions, _pair_coverage(claim, premise, positions, total))
    present = _window_terms(premise, positions)
    keys = premise.keys
    earned = 0.0
    missing: list[str] = []
    for key, weight in claim.weights.items():
        if key in present:
            earned += weight
        elif weight > 0:
            missing.append(key)
            if key in keys:  # (a term absent from the premise earns nothing: adding 0.0 would change nothing)
                earned += weight * ELSEWHERE_CREDIT
    return _window(positions, earned / total, missing)


def _window(positions: tuple[int, ...], coverage: float, missing: list[str]) -> _Window:
    """A scored window, its coverage discounted for every sentence beyond the first."""
    if len(positions) > 1:
        coverage *= _discount(positions)
    return _Window(positions, coverage, tuple(missing))


def _window_terms(premise: Premise, positions: tuple[int, ...]) -> dict[str, float] | set[str]:
    """The terms of a window's sentences: one sentence's own weights, or the union of several sentences' terms."""
    if len(positions) == 1:
        return premise.units[positions[0]].weights
    return set().union(*[premise.units[position].weights for position in positions])


def _fuzzy_score(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float) -> _Window:
    """:func:`_score` with part credit for near matches in the window (:func:`_near_credit`)."""
    present = _window_terms(premise, positions)
    keys = premise.keys
    heads = premise.heads
    earned = 0.0
    missing: list[str] = []
    for key, weight in claim.weights.items():
        if key in present:
            earned += weight
            continue
        if weight <= 0:
            continue
        missing.append(key)
        credit = _near_credit(key, present, heads)
        if credit == 0.0 and key in keys:
            credit = ELSEWHERE_CREDIT
        earned += weight * credit
    return _window(positions, earned / total, missing)


def _pair_window(claim: Terms, premise: Premise, positions: tuple[int, ...], coverage: float) -> _Window:
    """The window of two sentences whose :func:`_pair_coverage` is ``coverage``: what they miss is listed only
    for a window that is kept, without building the union of their terms."""
    first = premise.units[positions[0]].weights
    second = premise.units[positions[1]].weights
    missing = tuple([
        key for key, weight in claim.weights.items() if weight > 0 and key not in first and key not in second
    ])
    return _Window(positions, coverage, missing)


def _pair_coverage(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float) -> float:
    """The coverage of a two-sentence window: the window search compares every neighbouring pair by it alone and
    lists what is missing (:func:`_pair_window`) only for the best."""
    first = premise.units[positions[0]].weights
    second = premise.units[positions[1]].weights
    keys = premise.keys
    earned = 0.0
    for key, weight in claim.weights.items():
        if key in first or key in second:
            earned += weight
        elif weight > 0 and key in keys:
            earned += weight * ELSEWHERE_CREDIT
    discount = _PAIR_DISCOUNT if abs(positions[1] - positions[0]) == 1 else _EXTRA_DISCOUNT
    return earned / total * discount


def _discount(positions: tuple[int, ...]) -> float:
    factor = 1.0
    for previous, position in pairwise(positions):
        factor *= _PAIR_DISCOUNT if abs(position - previous) == 1 else _EXTRA_DISCOUNT
    return factor


def _near_credit(key: str, present: dict[str, float] | set[str], premise_heads: frozenset[str]) -> float:
    """Part credit for a near match in the window: a shared stem prefix or a compound ending ("sunlight" ~
    "light"). (A Chinese bigram whose two characters the window holds apart earns none: that credit measured
    nothing on the English and Russian sets and lowered the Chinese tune set by 0.010 AUROC.)"""
    if len(key) < _PREFIX_MIN or key[0] == "#" or not key.isalpha():
        return 0.0
    head = key[:_PREFIX_MIN]
    # The window's terms are premise terms: a head the premise lacks cannot be in the window.
    if head in premise_heads:
        for other in present:
            if other.startswith(head) and (other.startswith(key) or key.startswith(other)):
                return PREFIX_CREDIT
    window_keys = present.keys() if isinstance(present, dict) else present
    return 0.0 if window_keys.isdisjoint(_inner_suffixes(key)) else PREFIX_CREDIT


def _contradiction(
    claim: Terms, premise: Premise, units: Sequence[Terms], coverage: float, subject: tuple[str, ...]
) -> str | None:
    """Why the window's sentences ``units`` contradict the claim, or ``None``."""
    if claim.numbers:  # the window's numbers are gathered only for a claim that has some
        window_numbers = [number for unit in units if unit.numbers and not _another(subject, claim, unit)
                          for number in unit.numbers]
        same_keys = {other.key for other in window_numbers}
        for number in claim.numbers:
            if number.key in same_keys or any(_same_number(number, other) for other in window_numbers):
                continue  # the same key is the same number (the first test of _same_number)
            if not _comparable(number):
                continue
            rivals = [other for other in window_numbers if other.kind == number.kind]
            if rivals and not _said_of_claim(number, claim, premise, subject):
                said = ", ".join(dict.fromkeys(other.text for other in rivals))
                where = "said of another subject" if number.key in premise.keys else "not in premise"
                return f"number {number.text} {where} (premise says {said})"
    if coverage >= NEGATION_ALIGNMENT:
        conflict = _negation_conflict(claim, units)
        if conflict is not None:
            return conflict
    swapped = _swapped_names(claim, units)
    if swapped is not None:
        return f"{swapped[0]} and {swapped[1]} appear in swapped roles"
    return role_given_to_another(claim, units)


def _negation_conflict(claim: Terms, units: Sequence[Terms]) -> str | None:
    """A term negated on one side and asserted on the other ("was not built" vs "was built")."""
    negated_sets = [unit.negated_keys for unit in units if unit.negated_keys]
    if not negated_sets and not claim.negated_keys:
        return None  # nothing negated on either side: the commonest case
    window_negated: set[str] = set().union(*negated_sets)
    if window_negated & claim.negated_keys:
        # Both sides negate the same term: one negation, scoped differently ("no rule against them playing" vs
        # "no written rule against female players"), not a disagreement.
        return None
    # Sorted so the rationale names the same term whatever the process's hash seed.
    if claim.negated_keys:  # the window's terms are gathered only when the claim negates something
        window_keys: set[str] = set().union(*(unit.weights for unit in units))
        for key in sorted(claim.negated_keys):
            if key in window_keys and key not in window_negated:
                return f"negation mismatch: the claim negates '{key}', the premise asserts it"
    for key in sorted(window_negated):
        if key in claim.weights and key not in claim.negated_keys and claim.weights[key] > 0 and not any(
            key in unit.weights and key not in unit.negated_keys for unit in units
        ):
            # A window that also asserts the term in another sentence ("criticism of the law", then "did not
            # pass the law") does not deny it.
            return f"negation mismatch: the premise negates '{key}', the claim asserts it"
    return None


def _comparable(number: Number) -> bool:
    """Years, quantities with a unit and large counts are checked for disagreement; small counts and days of
    the month are too ambiguous ("1" of "March 1" is not a rival of "three")."""
    if number.kind == "year":
        return True
    if number.kind in {"count", "day"}:
        return number.value >= _COMPARABLE_COUNT
    return True


_EXACT_KINDS = frozenset({"year", "time"})


def _same_number(number: Number, other: Number) -> bool:
    if number.key == other.key:
        return True
    if number.kind in _EXACT_KINDS or other.kind in _EXACT_KINDS or min(abs(number.value), abs(other.value)) < 100:
        # Years, times of day and small counts must match exactly; only large quantities may be rounded.
        return False
    return abs(number.value - other.value) / max(abs(number.value), abs(other.value)) <= _NUMBER_TOLERANCE


def _another(subject: tuple[str, ...], claim: Terms, unit: Terms) -> bool:
    return bool(subject) and about_another_subject(subject, claim, unit)


def _said_of_claim(number: Number, claim: Terms, premise: Premise, subject: tuple[str, ...]) -> bool:
    """Whether the premise has the claim's number in a sentence not about another subject."""
    positions = premise.index.get(number.key)
    if positions is None:
        return False
    if not subject:
        return True
    units = premise.units
    return not all(about_another_subject(subject, claim, units[position]) for position in positions)


def _number_found(number: Number, claim: Terms, premise: Premise, window: _Window, subject: tuple[str, ...]) -> bool:
    """Whether the claim's number is said of its subject: anywhere in the premise, or rounded in the window."""
    if number.key in premise.keys and _said_of_claim(number, claim, premise, subject):
        return True
    units = [premise.units[position] for position in window.positions]
    return any(_same_number(number, other) for unit in units if unit.numbers and not _another(subject, claim, unit)
               for other in unit.numbers)


def _swapped_names(claim: Terms, units: Sequence[Terms]) -> tuple[str, str] | None:
    """Two names whose order flips around a shared relation word ("A defeated B" vs "B defeated A")."""
    if len(claim.proper) < 2:
        return None  # fewer than two names: nothing to swap
    names = [key for key in claim.proper if claim.weights.get(key, 0.0) > 0]
    if len(names) != 2:
        return None
    first, second = names
    claim_order = claim.order
    between = claim_order[claim_order.index(first) + 1 : claim_order.index(second)]
    relations = [key for key in between if key not in names and not key.startswith("#") and claim.weights[key] > 0]
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
    if len(window.positions) == 1:  # the commonest window: the same text as below, without the grouping
        position = window.positions[0]
        chunk = premise.group[position]
        where = f"sentence {position - premise.group.index(chunk) + 1}"
        return f"chunk {chunk + 1} {where}" if label == "contexts" else f"{label} {where}"
    if len(window.positions) == 2 and premise.group[window.positions[0]] == premise.group[window.positions[1]]:
        # Two sentences of one chunk (the next commonest): the text below for a single group.
        chunk = premise.group[window.positions[0]]
        first = premise.group.index(chunk)
        low, high = sorted(window.positions)
        where = f"sentences {low - first + 1}, {high - first + 1}"
        return f"chunk {chunk + 1} {where}" if label == "contexts" else f"{label} {where}"
    parts: list[str] = []
    by_chunk: dict[int, list[int]] = {}
    for position in sorted(window.positions):
        by_chunk.setdefault(premise.group[position], []).append(position)
    for chunk, positions in by_chunk.items():
        first = premise.group.index(chunk)
        local = [position - first + 1 for position in positions]
        noun = "sentence" if len(local) == 1 else "sentences"
        where = f"{noun} {', '.join(map(str, local))}"
        parts.append(f"chunk {chunk + 1} {where}" if label == "contexts" else f"{label} {where}")
    return " + ".join(parts)
