"""Which sentences of a premise cover a claim, and how much: the best window and its weighted coverage.

A claim is compared with the window of one or two adjacent sentences (plus up to two sentences elsewhere that
supply what is missing) that covers most of its weighted content, not with the bag of the whole text. Terms found
only elsewhere in the premise earn part credit, and so do terms that share a long prefix with a window term
("sunlight" / "light"); every sentence beyond the first discounts the coverage.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.premise import Premise
from ragmetrics_core.judges.embedded.terms import Terms

# Read in the hottest loops: bound once as module constants.
ELSEWHERE_CREDIT = KNOBS.elsewhere_credit
PREFIX_CREDIT = KNOBS.prefix_credit
_PREFIX_MIN = KNOBS.prefix_length
_PAIR_DISCOUNT = KNOBS.pair_discount
_EXTRA_DISCOUNT = KNOBS.extra_discount
_CANDIDATES = KNOBS.window_candidates
MAX_EXTRA_SENTENCES = KNOBS.max_borrowed_sentences


class Window(NamedTuple):  # built for every scored window: a named tuple is the cheapest immutable record
    positions: tuple[int, ...]
    coverage: float
    missing: tuple[str, ...]


def needed_coverage(total: float) -> float:
    """The coverage a claim of weight ``total`` needs for *entailed*."""
    return KNOBS.long_claim_threshold if total > KNOBS.long_claim_weight else KNOBS.entail_threshold


def numbers_may_clash(claim: Terms, premise: Premise) -> bool:
    """Whether a claim number is missing while the premise has numbers: then the rest decides contradiction."""
    return premise.has_numbers and any(number.key not in premise.keys for number in claim.numbers)


def content_bound(claim: Terms, premise: Premise) -> float:
    """An upper bound of :func:`_content_coverage` over every window: the share of the claim's non-number
    content found anywhere in the premise."""
    return _content_share(claim, premise.keys)


def content_coverage(claim: Terms, premise: Premise, window: Window) -> float:
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


def coverage_bound(claim: Terms, premise: Premise, total: float) -> float:
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


@lru_cache(maxsize=16384)
def _near_probe(key: str) -> tuple[str, tuple[str, ...]] | None:
    """What a near match of ``key`` (see :func:`near_credit`) needs in a premise, worked out once per term:
    a term with the same head (first characters) or one of the key's inner endings, ``(head, endings)``;
    ``None`` when no near match is possible (numbers, short keys, Chinese bigrams)."""
    if len(key) < _PREFIX_MIN or key[0] == "#":
        return None
    # The endings a compound match looks for: "sunlight" → "unlight", "nlight", "light".
    return key[:_PREFIX_MIN], tuple(key[cut:] for cut in range(1, len(key) - _PREFIX_MIN))


def best_window(claim: Terms, premise: Premise, total: float) -> Window | None:
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
                coverage = pair_coverage(claim, premise, span, total)
                if coverage > best_coverage + 1e-12:
                    best_span, best_coverage = span, coverage
    first = (
        score(claim, premise, best_span, total, fuzzy=False) if len(best_span) == 1
        else pair_window(claim, premise, best_span, best_coverage)  # its coverage is the one just compared
    )
    best = _complete(claim, premise, first, total)
    if not best.missing or best.coverage >= needed_coverage(total):
        # Near matches only add credit: a window already over the threshold keeps its exact figure.
        return best
    missing_weight = sum(map(claim.weights.__getitem__, best.missing))
    if best.coverage + PREFIX_CREDIT * missing_weight / total < KNOBS.contradiction_alignment:
        return best  # even full near-match credit could not change the verdict
    # Part credit for near matches is worked out for the chosen window only: it is the costly step.
    return score(claim, premise, best.positions, total, fuzzy=True)


def _complete(claim: Terms, premise: Premise, window: Window, total: float) -> Window:
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
        extended = score(claim, premise, (*window.positions, position), total, fuzzy=False)
        if extended.coverage <= window.coverage + 1e-9:
            return window
        window = extended
    return window


def score(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float, *, fuzzy: bool) -> Window:
    """A window's coverage: its own terms in full, part credit for terms elsewhere in the premise and (``fuzzy``)
    for near matches in the window (:func:`near_credit`)."""
    if len(positions) == 2 and not fuzzy:
        return pair_window(claim, premise, positions, pair_coverage(claim, premise, positions, total))
    present = _window_terms(premise, positions)
    keys = premise.keys
    heads = premise.heads
    earned = 0.0
    missing: list[str] = []
    for key, weight in claim.weights.items():
        if key in present:
            earned += weight
        elif weight > 0:
            missing.append(key)
            credit = near_credit(key, present, heads) if fuzzy else 0.0
            if credit == 0.0 and key in keys:  # (a term absent from the premise earns nothing)
                credit = ELSEWHERE_CREDIT
            if credit:
                earned += weight * credit
    coverage = earned / total
    if len(positions) > 1:
        coverage *= _discount(positions)  # every sentence beyond the first discounts the coverage
    return Window(positions, coverage, tuple(missing))


def _window_terms(premise: Premise, positions: tuple[int, ...]) -> dict[str, float] | set[str]:
    """The terms of a window's sentences: one sentence's own weights, or the union of several sentences' terms."""
    if len(positions) == 1:
        return premise.units[positions[0]].weights
    return set().union(*[premise.units[position].weights for position in positions])


def pair_window(claim: Terms, premise: Premise, positions: tuple[int, ...], coverage: float) -> Window:
    """The window of two sentences whose :func:`_pair_coverage` is ``coverage``: what they miss is listed only
    for a window that is kept, without building the union of their terms."""
    first = premise.units[positions[0]].weights
    second = premise.units[positions[1]].weights
    missing = tuple([
        key for key, weight in claim.weights.items() if weight > 0 and key not in first and key not in second
    ])
    return Window(positions, coverage, missing)


def pair_coverage(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float) -> float:
    """The coverage of a two-sentence window: the window search compares every neighbouring pair by it alone and
    lists what is missing (:func:`pair_window`) only for the best."""
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


def near_credit(key: str, present: dict[str, float] | set[str], premise_heads: frozenset[str]) -> float:
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
    probe = _near_probe(key)  # the key's endings, from the one per-term cache
    return 0.0 if probe is None or window_keys.isdisjoint(probe[1]) else PREFIX_CREDIT

def pieces(positions: tuple[int, ...], group: tuple[int, ...]) -> int:
    """How many runs of consecutive sentences of one chunk a window is made of (the last sentence of a chunk and
    the first of the next are not consecutive prose)."""
    ordered = sorted(positions)
    return 1 + sum(1 for before, after in pairwise(ordered) if after != before + 1 or group[after] != group[before])
