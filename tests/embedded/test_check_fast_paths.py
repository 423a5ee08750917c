"""The verdict checks' fast paths give exactly what the general rules give (floats compared bit for bit).

Each fast path skips work whose result is known (a support that must be 0, a coverage already computed, a test
one side cannot fail); the general rules are kept here, written out, as the independent reference.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations, pairwise

import pytest

from benchmarks.embedded_judge import _vocabulary, synthetic_sample
from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.embedded.conflicts import negation_conflict, swapped_names
from ragmetrics_core.judges.embedded.entail import Premise, check
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.segment import sentences
from ragmetrics_core.judges.embedded.terms import Terms, terms
from ragmetrics_core.judges.embedded.windows import (
    coverage_bound,
    near_credit,
    pair_coverage,
    pair_window,
    pieces,
    score,
)

_HAND_WRITTEN = [
    ("The bridge was not built in 1889 by Eiffel", "The bridge was built in 1889. Eiffel designed it."),
    ("Eiffel was not the architect", "Eiffel was not the architect of the bridge. He was its engineer."),
    ("France defeated Brazil in the final", "Brazil defeated France in the final of 1998 in Paris."),
    ("Sunlight powers the plants of the valley", "Plants in the valley use light. The valley is sunny."),
    ("The company had 6,600 workers in 2019", "The company employed about 6,500 workers in 2019."),
    ("Эйфелева башня не была построена в 1889 году", "Эйфелева башня была построена в 1889 году."),
    ("埃菲尔铁塔建于1889年", "埃菲尔铁塔于1889年建成,位于巴黎。"),
]


def _pairs() -> Iterator[tuple[Terms, Premise]]:
    """Claims against premises: the throughput benchmark's samples (claims of the response and reference against
    each context and all contexts together) and hand-written pairs with negation, names and numbers."""
    rng = random.Random(7)
    vocabulary = _vocabulary(rng)
    for _ in range(12):
        sample = synthetic_sample(rng, vocabulary)
        claims = [terms(text) for text in [*sentences(sample.response), *sentences(sample.reference or "")]]
        chunks = [Premise.from_text(text, group=number) for number, text in enumerate(sample.context_texts)]
        for claim in claims:
            for premise in [*chunks, Premise.joined(chunks)]:
                yield claim, premise
    for claim_text, premise_text in _HAND_WRITTEN:
        yield terms(claim_text), Premise.from_text(premise_text)


PAIRS = list(_pairs())


def _general_score(claim: Terms, premise: Premise, positions: tuple[int, ...], total: float, fuzzy: bool) -> tuple[
    tuple[int, ...], float, tuple[str, ...]
]:
    """A window's score by the general rule: the union of its sentences' terms, every claim term credited."""
    present: set[str] = set().union(*(premise.units[position].weights for position in positions))
    earned = 0.0
    missing: list[str] = []
    for key, weight in claim.weights.items():
        if key in present:
            earned += weight
            continue
        if weight <= 0:
            continue
        missing.append(key)
        credit = near_credit(key, present, premise.heads) if fuzzy else 0.0
        if credit == 0.0 and key in premise.keys:
            credit = KNOBS.elsewhere_credit
        earned += weight * credit
    factor = 1.0
    for previous, position in pairwise(positions):
        factor *= KNOBS.pair_discount if abs(position - previous) == 1 else KNOBS.extra_discount
    coverage = earned / total
    if len(positions) > 1:
        coverage *= factor
    return positions, coverage, tuple(missing)


def _windows(premise: Premise) -> Iterator[tuple[int, ...]]:
    count = len(premise.units)
    for size in (1, 2, 3):
        yield from combinations(range(min(count, 8)), size)
    if count >= 3:
        yield (count - 1, 0, 1)  # a window completed with an earlier sentence is not in order


def test_pairs_cover_every_fast_path() -> None:
    """The inputs below reach each shortcut and each general branch (a test of the test data)."""
    rationales = [check(claim, premise, "contexts").rationale or "" for claim, premise in PAIRS]
    assert any(text.startswith("at most") for text in rationales)
    assert any(text.startswith("no content") for text in rationales)
    assert any("covered by" in text for text in rationales)
    assert any("negation mismatch" in text for text in rationales)
    assert any("swapped roles" in text for text in rationales)
    assert any(not claim.numbers for claim, _ in PAIRS) and any(claim.numbers for claim, _ in PAIRS)


@pytest.mark.parametrize("fuzzy", [False, True], ids=["exact", "near-matches"])
def test_window_scores_equal_the_general_rule(fuzzy: bool) -> None:
    for claim, premise in PAIRS[::3]:
        if claim.total < KNOBS.min_claim_weight or not premise.units:
            continue
        for positions in _windows(premise):
            window = score(claim, premise, positions, claim.total, fuzzy=fuzzy)
            assert tuple(window) == _general_score(claim, premise, positions, claim.total, fuzzy)
            if len(positions) == 2 and not fuzzy:
                coverage = pair_coverage(claim, premise, positions, claim.total)
                assert tuple(pair_window(claim, premise, positions, coverage)) == tuple(window)


def test_early_rejection_equals_the_general_verdict() -> None:
    """The rejection verdict is built directly: support 0 and the confidence unclamped are what grading and
    clamping the general way give for a bound below the contradiction alignment."""
    rejected = 0
    for claim, premise in PAIRS:
        result = check(claim, premise)
        if not (result.rationale or "").startswith(("at most", "no content of the claim in premise")):
            continue
        total = claim.total
        bound = coverage_bound(claim, premise, total)
        assert bound < KNOBS.contradiction_alignment
        assert result.verdict is Verdict.NEUTRAL
        # Graded the general way, a coverage below the contradiction alignment has support 0.0 (not -0.0).
        assert result.support == 0.0 and str(result.support) == "0.0"
        assert result.confidence == min(1.0, max(0.0, round(1.0 - bound, 4)))
        rejected += 1
    assert rejected > 50


def _general_negation_conflict(claim: Terms, units: Sequence[Terms]) -> str | None:
    window_negated: set[str] = set().union(*(unit.negated_keys for unit in units))
    if window_negated & claim.negated_keys:
        return None
    window_keys: set[str] = set().union(*(unit.weights for unit in units))
    for key in sorted(claim.negated_keys):
        if key in window_keys and key not in window_negated:
            return f"negation mismatch: the claim negates '{key}', the premise asserts it"
    for key in sorted(window_negated):
        if key in claim.weights and key not in claim.negated_keys and claim.weights[key] > 0:
            return f"negation mismatch: the premise negates '{key}', the claim asserts it"
    return None


def _general_swapped_names(claim: Terms, units: Sequence[Terms]) -> tuple[str, str] | None:
    names = [key for key in claim.proper if claim.weights.get(key, 0.0) > 0]
    if len(names) != 2:
        return None
    first, second = names
    between = claim.order[claim.order.index(first) + 1 : claim.order.index(second)]
    relations = [key for key in between if key not in names and not key.startswith("#") and claim.weights[key] > 0]
    for unit in units:
        order = unit.order
        if relations and first in order and second in order and order.index(second) < order.index(first):
            inner = order[order.index(second) + 1 : order.index(first)]
            if any(relation in inner for relation in relations):
                return first, second
    return None


def test_contradiction_tests_equal_the_general_rules() -> None:
    for claim, premise in PAIRS:
        for positions in _windows(premise):
            units = [premise.units[position] for position in positions]
            assert negation_conflict(claim, units) == _general_negation_conflict(claim, units)
            assert swapped_names(claim, units) == _general_swapped_names(claim, units)


def test_pieces_of_one_sentence() -> None:
    """A one-sentence window is counted as one piece without calling :func:`.windows.pieces`; so would it be."""
    for _, premise in PAIRS[:40]:
        for position in range(len(premise.units)):
            assert pieces((position,), premise.group) == 1
