"""JSON records as contexts: each leaf read as a statement the judge can align a claim with."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.embedded.structured import MAX_STATEMENTS, readable

RECORD = json.dumps(
    {
        "name": "Goodland Kitchen",
        "city": "Goleta",
        "hours": {"Monday": "7:0-14:0"},
        "attributes": {
            "OutdoorSeating": True, "RestaurantsTakeOut": True, "RestaurantsReservations": False, "WiFi": "no",
            "Music": None,
            "RestaurantsPriceRange2": "2", "LastScore": "3:2",
            "BusinessParking": {"garage": False, "street": True},
        },
        "business_stars": 3.5,
        "review_info": [{"review_text": "Great lunch menu and very friendly service, we will come back again soon."}],
    },
    indent=2,
)


def verdict_of(response: str) -> Verdict:
    result = Evaluator(metrics=["faithfulness"]).evaluate(
        RagSample(user_input="Describe the business.", retrieved_contexts=[RECORD], response=response)
    )
    return result.evidence.response_vs_contexts[0].verdict


def test_leaves_become_statements_with_their_key_path_in_words() -> None:
    statements = readable(RECORD).split("\n\n")
    assert "name Goodland Kitchen." in statements
    assert "attributes outdoor seating." in statements
    assert "attributes: no restaurants reservations." in statements
    assert "attributes business parking: no garage." in statements  # the negation covers the leaf alone
    assert "hours monday 7:00-14:00." in statements  # minutes get their two digits: times of day
    assert "attributes: no wifi." in statements  # "no" denies like false; two short pieces stay one word
    assert "attributes restaurants price range 2 2." in statements  # the key's digit is a word of its own
    assert "attributes last score 3:2." in statements  # not opening hours: a score stays as written
    assert "business stars 3.5." in statements
    assert "attributes restaurants takeout take out." in statements  # a particle: closed and open
    # Prose values stay prose; null leaves state nothing.
    assert "Great lunch menu and very friendly service, we will come back again soon." in statements
    assert not any("music" in statement for statement in statements)


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ("Goodland Kitchen offers outdoor seating.", Verdict.ENTAILED),
        ("Goodland Kitchen has a rating of 3.5 stars.", Verdict.ENTAILED),
        ("Goodland Kitchen is in Goleta.", Verdict.ENTAILED),
        ("Goodland Kitchen accepts restaurant reservations.", Verdict.CONTRADICTED),
        ("Goodland Kitchen has a garage.", Verdict.CONTRADICTED),
        # Denied, but "offers free" is not in the record: too little of the claim is covered to call the
        # negation a contradiction, and not enough to support it.
        ("Goodland Kitchen offers free WiFi.", Verdict.NEUTRAL),
        ("Goodland Kitchen has no WiFi.", Verdict.ENTAILED),
        # "no garage" under "business parking" denies the garage, not the business.
        ("Goodland Kitchen is a business in Goleta.", Verdict.ENTAILED),
        ("Goodland Kitchen is open from 7:00 AM to 2:00 PM.", Verdict.ENTAILED),
        ("Goodland Kitchen is open from 7 am to 3 pm.", Verdict.CONTRADICTED),  # 15:00 against 14:00
        ("Goodland Kitchen is in Santa Barbara.", Verdict.NEUTRAL),
        ("Goodland Kitchen offers takeout.", Verdict.ENTAILED),
        ("Goodland Kitchen does not offer takeout.", Verdict.CONTRADICTED),
    ],
)
def test_claims_are_checked_against_the_record(response: str, verdict: Verdict) -> None:
    assert verdict_of(response) is verdict


@pytest.mark.parametrize(
    "text",
    ["plain prose. Two sentences.", "{not json", "[1, 2", '"a json string"', "42", "{}", "[]", '  {"a": [', "{" * 5000],
)
def test_anything_else_is_read_as_written(text: str) -> None:
    assert readable(text) == text


def test_a_huge_record_is_capped() -> None:
    record = json.dumps({f"key{number}": number for number in range(MAX_STATEMENTS * 2)})
    assert len(readable(record).split("\n\n")) == MAX_STATEMENTS


def test_deep_nesting_does_not_raise() -> None:
    deep = "[" * 100_000 + "]" * 100_000  # beyond the json module's recursion limit
    assert readable(deep) == deep


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
)


@settings(max_examples=60)
@given(JSON_VALUES)
def test_any_json_value_reads_without_raising(value: object) -> None:
    text = json.dumps(value)
    assert isinstance(readable(text), str)
