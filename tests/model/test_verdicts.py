"""Verdicts of the model judge on tiny models with known answers: both input signatures, both label shapes,
labels in a non-default order, windows, overlap, the term screen and the caps."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmetrics_core.evidence import Claim, EvidencePart, Verdict
from ragmetrics_core.judges.base import CheckRequest, JudgeError
from ragmetrics_core.judges.model import ModelJudge
from tests.model.conftest import CHINESE, FILLER, LONG_CHUNK, PARIS, RUSSIAN, TOWER
from tests.model.tiny import THREE_WAY, TWO_WAY

P = EvidencePart
SUPPORTED = 0.982  # softmax([4, 0, -4]) / sigmoid(4), see tests.model.tiny


def request(claims: list[str], contexts: list[str], **fields: object) -> CheckRequest:
    return CheckRequest(
        response=" ".join(claims), reference=fields.pop("reference", None), contexts=contexts,
        response_claims=[Claim(text=text) for text in claims],
        want=fields.pop("want", frozenset({P.RESPONSE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS})), **fields,
    )


SIGNATURES = [pytest.param(True, id="with-token_type_ids"), pytest.param(False, id="without-token_type_ids")]
LABELS = [
    pytest.param(THREE_WAY, id="3-way"),
    pytest.param(("contradiction", "entailment", "neutral"), id="3-way-reordered"),
    pytest.param(("neutral", "contradiction", "entailment"), id="3-way-entailment-last"),
    pytest.param(TWO_WAY, id="2-way"),
]


@pytest.mark.parametrize("token_type_ids", SIGNATURES)
@pytest.mark.parametrize("labels", LABELS)
async def test_known_verdicts_in_every_signature_and_label_order(
    make_judge: Callable[..., ModelJudge], token_type_ids: bool, labels: tuple[str, ...]
) -> None:
    judge = make_judge(labels=labels, token_type_ids=token_type_ids)
    claims = [PARIS, "Paris is not the capital of France.", "Berlin is a big city in Germany."]
    result = await judge.check(request(claims, [PARIS]))

    assert result.response_vs_chunks is not None
    supported, negated, unrelated = (row[0] for row in result.response_vs_chunks)
    assert supported.verdict is Verdict.ENTAILED and supported.support == pytest.approx(SUPPORTED, abs=1e-3)
    assert "chunk 1, window 1 of 1 (sentence 1)" in (supported.rationale or "")
    # A 3-way model says the negated claim is contradicted; a 2-way model can only withhold support.
    assert negated.verdict is (Verdict.CONTRADICTED if len(labels) == 3 else Verdict.NEUTRAL)
    assert negated.support is not None and negated.support < 0.05
    assert unrelated.verdict is Verdict.NEUTRAL and unrelated.support == 0.0
    assert "model not run" in (unrelated.rationale or "")
    names = f"P({'supported' if len(labels) == 2 else 'entailment'}) 0.98"
    assert names in (supported.rationale or "")


async def test_a_supporting_sentence_beyond_the_first_window(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge(max_length=20)
    result = await judge.check(request([TOWER], [LONG_CHUNK]))

    check = result.response_vs_chunks[0][0]  # type: ignore[index]
    assert check.verdict is Verdict.ENTAILED
    # 5 tokens a filler sentence, 7 the tower's: beside the claim (7) and [CLS] [SEP] [SEP], 10 are left, so
    # windows hold two filler sentences, then the fourth alone, then the last alone.
    assert judge.model.token_counts([*FILLER, TOWER]) == [5, 5, 5, 5, 7]
    assert "window 5 of 5 (sentence 5)" in (check.rationale or "")
    # The whole chunk in one input truncates the last sentence away: the window is what finds it.
    whole = judge.model.probabilities(judge.model.encode([(LONG_CHUNK, TOWER)]))
    assert whole[0][0] < 0.05


@pytest.mark.parametrize(("overlap", "expected"), [(1, Verdict.ENTAILED), (0, Verdict.NEUTRAL)])
async def test_overlapping_windows_keep_adjacent_sentences_together(
    make_judge: Callable[..., ModelJudge], overlap: int, expected: Verdict
) -> None:
    chunk = f"{FILLER[0]} Marie lived in Warsaw. She studied physics there. {FILLER[1]}"
    judge = make_judge(max_length=20, window_overlap=overlap)
    result = await judge.check(request(["Marie studied physics in Warsaw."], [chunk]))

    check = result.response_vs_chunks[0][0]  # type: ignore[index]
    assert check.verdict is expected
    if overlap:
        assert "window 2 of 3 (sentences 2-3)" in (check.rationale or "")


async def test_contexts_together_take_the_best_chunk(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge()
    result = await judge.check(request([TOWER, "Paris is not the capital of France."], ["Berlin is a big city.", PARIS,
                                                                                        TOWER]))
    tower, negated = result.response_vs_contexts  # type: ignore[misc]
    assert tower.verdict is Verdict.ENTAILED and (tower.rationale or "").startswith("chunk 3")
    assert negated.verdict is Verdict.CONTRADICTED and (negated.rationale or "").startswith("chunk 2")


async def test_reference_and_response_checks(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge()
    checked = await judge.check(CheckRequest(
        response=f"{PARIS} {TOWER}", reference=PARIS, contexts=[], user_input="What is the capital of France?",
        response_claims=[Claim(text=PARIS), Claim(text=TOWER)], reference_claims=[Claim(text=PARIS)],
        want=frozenset({P.RESPONSE_VS_REFERENCE, P.REFERENCE_VS_RESPONSE}),
    ))
    assert [c.verdict for c in checked.response_vs_reference or []] == [Verdict.ENTAILED, Verdict.NEUTRAL]
    assert [c.verdict for c in checked.reference_vs_response or []] == [Verdict.ENTAILED]
    assert "reference, window 1 of 1" in (checked.response_vs_reference or [])[0].rationale  # type: ignore[operator]


@pytest.mark.parametrize(("text", "claim", "sentence"), [
    pytest.param(RUSSIAN, "Толстой написал роман «Война и мир».", 3, id="ru"),
    pytest.param(CHINESE, "曹雪芹写了红楼梦。", 3, id="zh"),
])
async def test_russian_and_chinese_premises_window_by_sentence(
    make_judge: Callable[..., ModelJudge], text: str, claim: str, sentence: int
) -> None:
    judge = make_judge(max_length=24, window_overlap=0)
    result = await judge.check(request([claim], [text]))

    check = result.response_vs_chunks[0][0]  # type: ignore[index]
    assert check.verdict is Verdict.ENTAILED
    assert f"sentence {sentence})" in (check.rationale or "") or f"-{sentence})" in (check.rationale or "")
    plan_windows = _windows(judge, text, claim)
    assert len(plan_windows) >= 2  # the premise did not fit one window
    for window in plan_windows:  # every window is whole sentences
        assert window.text.endswith(("。", ".", "»."))


def _windows(judge: ModelJudge, text: str, claim: str) -> list:  # type: ignore[type-arg]
    from ragmetrics_core.judges.model.judge import _Plan

    plan = _Plan(judge.model, request([claim], [text]))
    return plan.premises[0].windows


async def test_screened_pairs_are_never_run_and_change_no_verdict(make_judge: Callable[..., ModelJudge]) -> None:
    contexts = [LONG_CHUNK, PARIS, "Berlin is a big city in Germany."]
    claims = [TOWER, PARIS]
    screening = make_judge(max_length=20)
    everything = make_judge(max_length=20, skip_unrelated=False)
    screened = await screening.check(request(claims, contexts))
    unscreened = await everything.check(request(claims, contexts))

    verdicts = [[check.verdict for check in row] for row in screened.response_vs_chunks or []]
    assert verdicts == [[c.verdict for c in row] for row in unscreened.response_vs_chunks or []]
    assert verdicts == [[Verdict.ENTAILED, Verdict.NEUTRAL, Verdict.NEUTRAL],
                        [Verdict.NEUTRAL, Verdict.ENTAILED, Verdict.NEUTRAL]]
    # 5 windows of the long chunk + 1 + 1 per claim: 14 pairs; the screen keeps the tower's last window only
    # (no other window shares a term with it) and Paris's own chunk.
    assert everything.stats.pairs_run == 14 and everything.stats.pairs_screened_out == 0
    assert screening.stats.pairs_run == 2 and screening.stats.pairs_screened_out == 12
    assert "4 window(s) without a content term of the claim not run" in (
        screened.response_vs_chunks[0][0].rationale or "")  # type: ignore[index]


async def test_the_same_pair_is_run_once(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge()
    await judge.check(request([PARIS], [PARIS, PARIS, PARIS]))
    assert judge.stats.pairs_run == 1 and judge.stats.pairs_shared == 2


async def test_windows_over_the_cap_leave_a_claim_undetermined_with_the_reason(
    make_judge: Callable[..., ModelJudge]
) -> None:
    chunk = " ".join(["The tower was tall."] * 6 + ["The tower was built in 1890."])
    judge = make_judge(max_length=16, window_overlap=0, max_windows_per_chunk=2)
    check = (await judge.check(request([TOWER], [chunk]))).response_vs_chunks[0][0]  # type: ignore[index]
    assert check.verdict is Verdict.NEUTRAL and check.confidence is None
    assert "undetermined beyond the cap" in (check.rationale or "")
    assert judge.stats.pairs_run == 2 and judge.stats.pairs_over_cap > 0


async def test_pairs_over_the_sample_cap_raise_a_judge_error(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge(max_pairs_per_sample=2)
    with pytest.raises(JudgeError, match="over the cap of 2"):
        await judge.check(request([PARIS, TOWER, "Paris is not the capital of France."], [f"{PARIS} {TOWER}"]))


async def test_huge_and_odd_premises(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge(max_length=32, max_windows_per_chunk=4)
    huge = "paris capital france " * 20_000  # 60,000 tokens, no sentence boundary
    result = await judge.check(request([PARIS, "   "], [huge, "", "🙂 ∑ \u200b", PARIS]))
    rows = result.response_vs_chunks or []
    assert rows[0][0].verdict is Verdict.ENTAILED and rows[0][3].verdict is Verdict.ENTAILED
    assert rows[0][1].rationale == "chunk 2 is empty"
    assert all(check.verdict is Verdict.NEUTRAL for check in rows[1])  # a blank claim is supported by nothing
    assert judge.stats.pairs_run <= 4 + 1 + 4 + 4  # the cap held on the huge chunk


async def test_a_long_claim_is_cut_to_fit(make_judge: Callable[..., ModelJudge]) -> None:
    judge = make_judge(max_length=24, max_claim_tokens=8)
    claim = " ".join(["Paris capital France"] * 30)
    check = (await judge.check(request([claim], [PARIS]))).response_vs_chunks[0][0]  # type: ignore[index]
    assert check.verdict is Verdict.ENTAILED  # truncated, the claim's words are all still the premise's
