"""Sampling: the TraceIdRatioBased rule, its rate, routes, throttle and budget."""

from __future__ import annotations

import math
import random

import pytest
from opentelemetry.sdk.trace.sampling import Decision, TraceIdRatioBased

from ragmetrics_core.online.sampler import Route, Sampler, SamplingDecision, sampling_key
from ragmetrics_core.online.types import Origin, SpanRef


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_rate_decision_matches_opentelemetry_trace_id_ratio_based() -> None:
    rng = random.Random(7)
    for rate in (0.0, 0.001, 0.1, 0.5, 0.73, 1.0):
        sampler = Sampler(rate)
        otel = TraceIdRatioBased(rate)
        for _ in range(2000):
            trace_id = rng.getrandbits(128) or 1
            ours = sampler.select(Origin(span=SpanRef(trace_id, 1))) is not None
            theirs = otel.should_sample(None, trace_id, "span").decision is Decision.RECORD_AND_SAMPLE
            assert ours == theirs, (rate, hex(trace_id))


@pytest.mark.parametrize("rate", [0.05, 0.25, 0.5, 0.9])
def test_observed_rate_is_within_five_standard_errors(rate: float) -> None:
    rng = random.Random(int(rate * 1000))
    n = 20_000
    sampler = Sampler(rate)
    kept = sum(sampler.select(Origin(span=SpanRef(rng.getrandbits(128) or 1, 1))) is not None for _ in range(n))
    sigma = math.sqrt(n * rate * (1 - rate))
    assert abs(kept - n * rate) < 5 * sigma


def test_same_trace_is_decided_the_same_way_every_time_and_in_every_sampler() -> None:
    rng = random.Random(3)
    ids = [rng.getrandbits(128) or 1 for _ in range(500)]
    first = [Sampler(0.3).select(Origin(span=SpanRef(t, 1))) is not None for t in ids]
    again = [Sampler(0.3).select(Origin(span=SpanRef(t, 1))) is not None for t in ids]
    assert first == again
    assert 0 < sum(first) < len(ids)


def test_without_trace_id_the_run_id_decides_deterministically_and_uniformly() -> None:
    sampler = Sampler(0.5)
    import uuid

    run_ids = [str(uuid.UUID(int=random.Random(i).getrandbits(128), version=4)) for i in range(4000)]
    decisions = [sampler.select(Origin(run_id=r)) is not None for r in run_ids]
    assert decisions == [sampler.select(Origin(run_id=r)) is not None for r in run_ids]
    # uuid4's variant bits sit in its low 64 bits: reading them directly would keep 0 % or 100 % here.
    assert abs(sum(decisions) - 2000) < 5 * math.sqrt(4000 * 0.25)
    assert sampling_key(Origin(run_id="abc")) == sampling_key(Origin(run_id="abc"))


def test_without_any_id_the_decision_is_random_at_the_rate() -> None:
    random.seed(11)
    sampler = Sampler(0.2)
    kept = sum(sampler.select(Origin()) is not None for _ in range(10_000))
    assert abs(kept - 2000) < 5 * math.sqrt(10_000 * 0.2 * 0.8)


def test_rate_zero_and_one_are_exact() -> None:
    assert all(Sampler(0.0).select(Origin(span=SpanRef(t, 1))) is None for t in (1, 2**64 - 1, 2**128 - 1))
    assert all(Sampler(1.0).select(Origin(span=SpanRef(t, 1))) is not None for t in (1, 2**64 - 1, 2**128 - 1))


def test_routes_match_chain_name_tags_and_metadata_in_order() -> None:
    sampler = Sampler(
        0.0,
        routes=[
            Route(1.0, chain_name="support", tags=frozenset({"prod"})),
            Route(1.0, metadata={"tenant": "acme"}, name="acme"),
            Route(0.0, chain_name="support"),
        ],
    )
    assert sampler.route_for(Origin(chain_name="support", tags=("prod", "eu"))).name == "chain=support,tag=prod"
    assert sampler.select(Origin(chain_name="support", tags=("prod",), span=SpanRef(5, 1))) is not None
    assert sampler.select(Origin(chain_name="support", tags=("dev",), span=SpanRef(5, 1))) is None
    assert sampler.route_for(Origin(metadata={"tenant": "acme"})).name == "acme"
    assert sampler.select(Origin(metadata={"tenant": "other"}, span=SpanRef(5, 1))) is None
    assert sampler.route_for(Origin(chain_name="other")).name == "default"


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", None, True])
def test_invalid_rates_are_refused_with_a_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match="sampling rate"):
        Sampler(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sampling rate"):
        Route(bad)  # type: ignore[arg-type]


def test_other_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_per_minute"):
        Sampler(max_per_minute=0)
    with pytest.raises(ValueError, match="token_budget_per_hour"):
        Sampler(token_budget_per_hour=-5)
    with pytest.raises(TypeError, match="Route"):
        Sampler(routes=[0.5])  # type: ignore[list-item]


def test_a_route_given_one_tag_as_a_bare_string_is_refused_rather_than_split_into_letters() -> None:
    # frozenset("vip") is {"v", "i", "p"}: such a route would silently never match a run tagged "vip".
    with pytest.raises(TypeError, match=r"tags=\{'vip'\}"):
        Route(0.5, tags="vip")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="chain_name"):
        Route(0.5, chain_name=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="metadata"):
        Route(0.5, metadata="tenant=acme")  # type: ignore[arg-type]
    assert Route(0.5, tags=["vip"]).matches(Origin(tags=("vip", "eu")))


def test_throttle_admits_max_per_minute_then_refills_continuously() -> None:
    clock = FakeClock()
    sampler = Sampler(max_per_minute=60, clock=clock)
    decisions = [sampler.admit() for _ in range(100)]
    assert decisions.count(SamplingDecision.EVALUATED) == 60
    assert decisions[60:] == [SamplingDecision.THROTTLED] * 40
    clock.now += 10.0  # one per second refills
    later = [sampler.admit() for _ in range(20)]
    assert later.count(SamplingDecision.EVALUATED) == 10


def test_budget_is_charged_with_judge_tokens_and_refills_over_the_hour() -> None:
    clock = FakeClock()
    sampler = Sampler(token_budget_per_hour=3600, clock=clock)
    assert sampler.admit() is SamplingDecision.EVALUATED
    sampler.charge(5000)  # one evaluation may overdraw the budget
    assert sampler.admit() is SamplingDecision.OVER_BUDGET
    assert sampler.budget_remaining() == pytest.approx(-1400)
    clock.now += 1400.0  # refills at one token per second
    assert sampler.admit() is SamplingDecision.OVER_BUDGET
    clock.now += 1.0
    assert sampler.admit() is SamplingDecision.EVALUATED


def test_budget_is_checked_before_the_throttle_spends_a_slot() -> None:
    clock = FakeClock()
    sampler = Sampler(max_per_minute=1, token_budget_per_hour=3600, clock=clock)
    sampler.charge(3605)
    assert sampler.admit() is SamplingDecision.OVER_BUDGET
    clock.now += 6.0  # the budget is back above zero; the throttle has refilled only 0.1 slot meanwhile
    assert sampler.admit() is SamplingDecision.EVALUATED
    assert sampler.admit() is SamplingDecision.THROTTLED
