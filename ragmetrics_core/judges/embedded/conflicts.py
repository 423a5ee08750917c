"""Why a window contradicts a claim: a number of the same kind, a negation, two names in swapped roles, a role given to
another name; and whether a claim's number is said of its subject.

A number or date supports a claim only where it is said of the claim's subject: found only in sentences about another
subject (:func:`.relations.about_another_subject`: they name something the claim does not, mention none of the names it
opens with and point back with no pronoun), it counts as absent, and a rival the window gives contradicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import Number
from ragmetrics_core.judges.embedded.premise import Premise
from ragmetrics_core.judges.embedded.relations import about_another_subject, role_given_to_another
from ragmetrics_core.judges.embedded.terms import Terms
from ragmetrics_core.judges.embedded.windows import Window


def contradiction(
    claim: Terms, premise: Premise, units: Sequence[Terms], coverage: float, subject: tuple[str, ...]
) -> str | None:
    """Why the window's sentences ``units`` contradict the claim, or ``None``."""
    if claim.numbers:  # the window's numbers are gathered only for a claim that has some
        window_numbers = _numbers_said_of(subject, claim, units)
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
    if coverage >= KNOBS.negation_alignment:
        conflict = negation_conflict(claim, units)
        if conflict is not None:
            return conflict
    swapped = swapped_names(claim, units)
    if swapped is not None:
        return f"{swapped[0]} and {swapped[1]} appear in swapped roles"
    return role_given_to_another(claim, units)


def negation_conflict(claim: Terms, units: Sequence[Terms]) -> str | None:
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
    return number.kind not in {"count", "day"} or number.value >= KNOBS.comparable_count


_EXACT_KINDS = frozenset({"year", "time"})


def _same_number(number: Number, other: Number) -> bool:
    if number.key == other.key:
        return True
    if number.kind in _EXACT_KINDS or other.kind in _EXACT_KINDS or min(abs(number.value), abs(other.value)) < 100:
        # Years, times of day and small counts must match exactly; only large quantities may be rounded.
        return False
    return abs(number.value - other.value) / max(abs(number.value), abs(other.value)) <= KNOBS.number_tolerance


def _said_of_claim(number: Number, claim: Terms, premise: Premise, subject: tuple[str, ...]) -> bool:
    """Whether the premise has the claim's number in a sentence not about another subject."""
    positions = premise.index.get(number.key)
    if positions is None:
        return False
    if not subject:
        return True
    return not all(about_another_subject(subject, claim, premise.units[position]) for position in positions)


def number_found(number: Number, claim: Terms, premise: Premise, window: Window, subject: tuple[str, ...]) -> bool:
    """Whether the claim's number is said of its subject: anywhere in the premise, or rounded in the window."""
    if number.key in premise.keys and _said_of_claim(number, claim, premise, subject):
        return True
    units = [premise.units[position] for position in window.positions]
    return any(_same_number(number, other) for other in _numbers_said_of(subject, claim, units))


def _numbers_said_of(subject: tuple[str, ...], claim: Terms, units: Sequence[Terms]) -> list[Number]:
    return [number for unit in units if unit.numbers and not (subject and about_another_subject(subject, claim, unit))
            for number in unit.numbers]


def swapped_names(claim: Terms, units: Sequence[Terms]) -> tuple[str, str] | None:
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

