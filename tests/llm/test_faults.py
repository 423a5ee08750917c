"""Faults the fake endpoint injects: rate limits, server errors, timeouts, malformed/short/truncated answers."""

from __future__ import annotations

import email.utils
import logging

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.evidence import CHECK_PARTS, EXTRACTION_PARTS, Verdict
from ragmetrics_core.judges.base import CheckRequest, ExtractionRequest, JudgeError
from ragmetrics_core.judges.openai import EndpointError, RetryPolicy
from tests.llm.conftest import FAKE_KEY, FIXED_NOW, JudgeFactory, RecordingSleep
from tests.llm.fake_openai_server import (
    FakeOpenAIServer,
    Fault,
    malformed,
    rate_limited,
    reordered,
    server_error,
    short_list,
    slow,
    truncated,
    unauthorized_echoing_key,
    without_ids,
)
from tests.llm.samples import ENGLISH, synthetic_sample


def extraction_request() -> ExtractionRequest:
    return ExtractionRequest(
        user_input=ENGLISH.user_input, response=ENGLISH.response, reference=ENGLISH.reference, want=EXTRACTION_PARTS
    )


async def check_request(make_judge: JudgeFactory) -> CheckRequest:
    extraction = await make_judge().extract(extraction_request())
    return CheckRequest(
        response=ENGLISH.response,
        reference=ENGLISH.reference,
        contexts=ENGLISH.context_texts,
        response_claims=extraction.response_claims or [],
        reference_claims=extraction.reference_claims or [],
        reference_entities=extraction.reference_entities or [],
        want=CHECK_PARTS,
    )


# -- rate limits and transient errors ------------------------------------------------------------------------


async def test_429_honours_retry_after_seconds(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    server.inject("extract", rate_limited("7"), rate_limited("1.5"))
    extraction = await make_judge().extract(extraction_request())
    assert sleep.delays == [7.0, 1.5]
    assert len(server.calls("extract")) == 3
    assert extraction.usage.calls == 3  # every attempt is a call
    assert extraction.response_claims


async def test_retry_after_as_http_date_and_capped_at_the_maximum(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    in_twelve_seconds = email.utils.formatdate(FIXED_NOW + 12, usegmt=True)
    server.inject("extract", rate_limited(in_twelve_seconds), rate_limited("600"))
    await make_judge().extract(extraction_request())
    assert sleep.delays == [pytest.approx(12.0), 30.0]


async def test_transient_errors_back_off_exponentially_then_give_up_naming_endpoint_and_status(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep, caplog: pytest.LogCaptureFixture
) -> None:
    server.inject("extract", *[server_error(500) for _ in range(6)], rate_limited(None))
    judge = make_judge(retry=RetryPolicy(max_attempts=6))
    with caplog.at_level(logging.WARNING, logger="ragmetrics"), pytest.raises(EndpointError) as raised:
        await judge.extract(extraction_request())

    assert sleep.delays == [2.0, 4.0, 8.0, 16.0, 30.0]  # initial 2 s, ×2, capped at 30 s
    assert len(server.calls("extract")) == 6
    error = raised.value
    assert isinstance(error, JudgeError)
    assert error.status == 500 and error.attempts == 6
    assert server.base_url in str(error) and "HTTP 500" in str(error) and "gave up after 6 attempts" in str(error)
    assert judge.usage.calls == 6
    assert sum("retry" in record.getMessage() for record in caplog.records) == 5


async def test_429_without_retry_after_uses_the_backoff_schedule(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    server.inject("extract", rate_limited(None), rate_limited(None), server_error(503))
    await make_judge().extract(extraction_request())
    assert sleep.delays == [2.0, 4.0, 8.0]


async def test_client_errors_are_not_retried(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    server.inject("extract", Fault(status=404, message="model fake-judge-1 does not exist"))
    with pytest.raises(EndpointError, match=r"failed on 1 attempt: HTTP 404: model fake-judge-1 does not exist"):
        await make_judge().extract(extraction_request())
    assert sleep.delays == []


async def test_timeouts_are_retried_and_reported(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    server.inject("extract", slow(1.0), slow(1.0))
    judge = make_judge(timeout_s=0.2, retry=RetryPolicy(max_attempts=2))
    with pytest.raises(EndpointError, match=r"timed out after 0.2 s") as raised:
        await judge.extract(extraction_request())
    assert raised.value.status is None and raised.value.attempts == 2
    assert sleep.delays == [2.0]


async def test_a_slow_answer_within_the_retries_succeeds(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    # The first answer outlasts the timeout by far; the retry's ordinary answer is well inside it, even when a loaded
    # machine takes a second to serve it (0.2 s failed under load).
    server.inject("extract", slow(8.0))
    extraction = await make_judge(timeout_s=2.0).extract(extraction_request())
    assert extraction.response_claims and sleep.delays == [2.0]


async def test_connection_refused_is_reported_without_the_key(make_judge: JudgeFactory) -> None:
    judge = make_judge(base_url="http://127.0.0.1:9/v1", retry=RetryPolicy(max_attempts=2))
    # A refusal is not retried: nothing listens there, and backing off would not make a server appear.
    with pytest.raises(EndpointError, match=r"http://127.0.0.1:9/v1 failed on 1 attempt: connection failed") as raised:
        await judge.extract(extraction_request())
    assert "sk-test" not in str(raised.value) and "connection refused" in str(raised.value)


async def test_concurrency_limit_per_endpoint(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    import asyncio

    server.inject("check_chunks", *[slow(0.1) for _ in range(8)])
    judge = make_judge(concurrency=1, check_mode="per_chunk")
    sample = synthetic_sample(8)
    await Evaluator(judge=judge).aevaluate(sample)
    assert server.max_in_flight == 1
    server.reset()
    server.max_in_flight = 0
    server.inject("check_chunks", *[slow(0.1) for _ in range(8)])
    wide = make_judge(concurrency=8, check_mode="per_chunk")
    await asyncio.gather(Evaluator(judge=wide).aevaluate(sample))
    assert server.max_in_flight > 1


# -- unusable answers ----------------------------------------------------------------------------------------


async def test_malformed_json_is_asked_once_more_with_a_note(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", malformed())
    extraction = await make_judge().extract(extraction_request())
    first, second = server.calls("extract")
    assert len(second.body["messages"]) == len(first.body["messages"]) + 1
    assert "could not be used" in second.body["messages"][-1]["content"]
    assert extraction.usage.calls == 2
    assert (extraction.response_claims or [])[0].text == "Shakespeare wrote Hamlet"


async def test_malformed_twice_is_a_judge_error_recorded_on_the_metrics(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    server.inject("extract", malformed(), malformed())
    result = await Evaluator(judge=make_judge()).aevaluate(ENGLISH)
    assert all(score.score is None for score in result.scores.values())
    reason = result.scores["faithfulness"].reason
    assert "gave no usable extraction answer in 2 tries" in reason
    assert server.base_url in reason
    assert len(server.calls()) == 2  # nothing is checked without claims


async def test_truncated_extraction_is_never_accepted(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    server.inject("extract", truncated(0.8))
    extraction = await make_judge().extract(extraction_request())
    assert len(server.calls("extract")) == 2
    assert len(extraction.response_claims or []) == 3  # the complete list, not the cut one


async def test_truncated_check_keeps_complete_rows_and_asks_only_for_the_rest(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    request = await check_request(make_judge)
    server.reset()
    server.inject("check_chunks", truncated(0.5))
    checked = await make_judge().check(request)

    first, follow_up = server.calls("check_chunks")
    asked_first = [claim["id"] for claim in first.payload["claims"]]
    asked_again = [claim["id"] for claim in follow_up.payload["claims"]]
    assert asked_first == ["R1", "R2", "R3", "G1", "G2"]
    assert asked_again and set(asked_again) < set(asked_first)
    assert asked_again == asked_first[-len(asked_again) :]  # the cut-off tail
    assert [e["id"] for e in follow_up.payload["entities"]] == [e["id"] for e in first.payload["entities"]]
    assert [[c.verdict for c in row] for row in checked.response_vs_chunks or []] == [
        [Verdict.ENTAILED, Verdict.NEUTRAL, Verdict.NEUTRAL],
        [Verdict.NEUTRAL, Verdict.ENTAILED, Verdict.NEUTRAL],
        [Verdict.NEUTRAL, Verdict.NEUTRAL, Verdict.NEUTRAL],
    ]
    assert checked.usage.calls == 3  # texts, chunks, and the follow-up for the cut-off tail


async def test_short_verdict_list_is_completed_never_shifted(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    request = await check_request(make_judge)
    server.reset()
    server.inject("check_texts", short_list())
    checked = await make_judge().check(request)
    follow_up = server.calls("check_texts")[1]
    assert [c["id"] for c in follow_up.payload["claims"]] == ["G2"]  # only the dropped one
    assert [c.verdict for c in checked.response_vs_reference or []] == [
        Verdict.ENTAILED,
        Verdict.ENTAILED,
        Verdict.NEUTRAL,
    ]
    assert [c.verdict for c in checked.reference_vs_response or []] == [Verdict.ENTAILED, Verdict.ENTAILED]


async def test_reordered_verdicts_are_aligned_by_id_without_another_call(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    request = await check_request(make_judge)
    server.reset()
    plain = await make_judge().check(request)
    server.reset()
    server.inject("check_texts", reordered())
    server.inject("check_chunks", reordered())
    shuffled = await make_judge().check(request)
    assert len(server.calls()) == 2
    assert shuffled.model_dump(exclude={"usage"}) == plain.model_dump(exclude={"usage"})


async def test_items_without_ids_are_aligned_by_position_only_when_counts_match(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    request = await check_request(make_judge)
    server.reset()
    plain = await make_judge().check(request)
    server.reset()
    server.inject("check_texts", without_ids())
    same = await make_judge().check(request)
    assert len(server.calls("check_texts")) == 1
    assert same.response_vs_reference == plain.response_vs_reference

    server.reset()
    server.inject("check_texts", without_ids(drop_last=True))
    repaired = await make_judge().check(request)
    follow_up = server.calls("check_texts")[1]
    assert len(follow_up.payload["claims"]) == 5  # nothing could be placed, so all are asked again
    assert repaired.response_vs_reference == plain.response_vs_reference


async def test_verdicts_still_missing_after_the_follow_up_raise(
    make_judge: JudgeFactory, server: FakeOpenAIServer
) -> None:
    request = await check_request(make_judge)
    server.reset()
    server.inject("check_texts", short_list(), Fault(rewrite=lambda answer: '{"verdicts": []}'))
    with pytest.raises(JudgeError, match=r"no usable verdict for G2, even when asked for them alone"):
        await make_judge().check(request)


async def test_unknown_verdict_labels_count_as_missing(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    import json

    def odd_label(answer: dict[str, object]) -> str:
        verdicts = list(answer["verdicts"])  # type: ignore[call-overload]
        verdicts[0] = {**verdicts[0], "verdict": "probably"}
        return json.dumps({"verdicts": verdicts})

    request = await check_request(make_judge)
    server.reset()
    server.inject("check_texts", Fault(rewrite=odd_label))
    await make_judge().check(request)
    assert [c["id"] for c in server.calls("check_texts")[1].payload["claims"]] == ["R1"]


async def test_key_echoed_by_the_server_is_scrubbed(make_judge: JudgeFactory, server: FakeOpenAIServer) -> None:
    server.inject("extract", unauthorized_echoing_key())
    with pytest.raises(EndpointError) as raised:
        await make_judge().extract(extraction_request())
    assert server.calls("extract")[0].headers["authorization"] == f"Bearer {FAKE_KEY}"  # it was sent
    message = str(raised.value)
    assert "HTTP 401: Incorrect API key provided: [redacted]" in message
    assert FAKE_KEY not in message and "LEAKCANARY" not in message
    # The openai error, whose request object carries the Authorization header, is not chained on.
    assert raised.value.__cause__ is None and raised.value.__context__ is None


async def test_failed_embeddings_leave_only_response_relevancy_undetermined(
    make_judge: JudgeFactory, server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    server.inject("embeddings", rate_limited("1"), server_error(503), server_error(503))
    judge = make_judge(retry=RetryPolicy(max_attempts=3))
    result = await Evaluator(judge=judge).aevaluate(ENGLISH)
    undetermined = {metric: score.reason for metric, score in result.scores.items() if score.score is None}
    assert list(undetermined) == ["response_relevancy"]
    assert "embeddings request to" in undetermined["response_relevancy"]
    assert "gave up after 3 attempts: HTTP 503" in undetermined["response_relevancy"]
    assert sleep.delays == [1.0, 4.0]
    assert judge.usage.embedding_calls == 3 and judge.usage.calls == 3
