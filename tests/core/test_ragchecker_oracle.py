"""Fed RAGChecker's own checked example, the engine must reproduce its metrics exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.formats.ragchecker import (
    RAGCHECKER_TO_OURS,
    RagCheckerFormatError,
    ragchecker_dataset_metrics,
    read_ragchecker,
    to_ragchecker,
)
from ragmetrics_core.metrics import RAGCHECKER_METRICS
from tests.core.conftest import SubstringJudge

# RAGChecker's own example, shipped with the tests (tests/data/ragchecker/NOTICE): the tests run from any clone.
ORACLE = Path(__file__).resolve().parents[1] / "data" / "ragchecker" / "checking_outputs.json"

# RAGChecker's dataset figures for its example (mean × 100, one decimal), as its README and the data notes state.
EXPECTED_DATASET = {
    "precision": 76.4, "recall": 62.5, "f1": 68.3, "claim_recall": 61.4, "context_precision": 87.5,
    "context_utilization": 87.5, "noise_sensitivity_in_relevant": 19.1, "noise_sensitivity_in_irrelevant": 0.0,
    "hallucination": 4.5, "self_knowledge": 27.3, "faithfulness": 68.2,
}


@pytest.fixture
def evaluated() -> tuple[list[dict[str, object]], list[object], SubstringJudge]:
    judge = SubstringJudge()
    evaluator = Evaluator(judge=judge, metrics=RAGCHECKER_METRICS)
    raw = json.loads(ORACLE.read_text())["results"]
    results = [evaluator.evaluate(sample, evidence) for sample, evidence in read_ragchecker(ORACLE)]
    return raw, results, judge


def test_per_sample_metrics_match_exactly(evaluated) -> None:  # type: ignore[no-untyped-def]
    raw, results, _ = evaluated
    for item, result in zip(raw, results, strict=True):
        for key, expected in item["metrics"].items():
            assert result.score(RAGCHECKER_TO_OURS[key]) == pytest.approx(expected, abs=1e-12), key


def test_dataset_figures_match(evaluated) -> None:  # type: ignore[no-untyped-def]
    _, results, _ = evaluated
    figures = {key: value for group in ragchecker_dataset_metrics(results).values() for key, value in group.items()}
    assert figures == EXPECTED_DATASET


def test_precomputed_evidence_costs_no_judge_call(evaluated) -> None:  # type: ignore[no-untyped-def]
    _, results, judge = evaluated
    assert judge.calls == []
    assert all(result.usage.calls == 0 for result in results)


def test_identities_hold_on_the_oracle(evaluated) -> None:  # type: ignore[no-untyped-def]
    _, results, _ = evaluated
    for r in results:
        s = r.values()
        assert s["faithfulness"] + s["hallucination"] + s["self_knowledge"] == pytest.approx(1.0)
        assert s["noise_sensitivity_relevant"] + s["noise_sensitivity_irrelevant"] + s["hallucination"] == (
            pytest.approx(1 - s["overall_precision"])
        )


def test_round_trip_through_ragchecker_json(evaluated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    raw, results, _ = evaluated
    samples = [sample for sample, _ in read_ragchecker(ORACLE)]
    document = to_ragchecker(samples, results)
    for ours, theirs in zip(document["results"], raw, strict=True):
        for key in ("response_claims", "gt_answer_claims", "answer2response", "response2answer",
                    "retrieved2response", "retrieved2answer"):
            assert ours[key] == theirs[key], key
        assert ours["metrics"] == pytest.approx(theirs["metrics"])
    path = tmp_path / "out.json"
    path.write_text(json.dumps(document))
    again = Evaluator(judge=SubstringJudge(), metrics=RAGCHECKER_METRICS)
    rescored = [again.evaluate(sample, evidence) for sample, evidence in read_ragchecker(path)]
    assert [r.values() for r in rescored] == [r.values() for r in results]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("results"), "'results' list"),
        (lambda d: d["results"][0].update(answer2response=["Entailment"]), "answer2response has 1 rows, expected 11"),
        (lambda d: d["results"][0]["retrieved2response"][3].pop(), "retrieved2response[3] has 3 verdicts"),
        (lambda d: d["results"][0]["answer2response"].__setitem__(0, "Maybe"), "unknown verdict label 'Maybe'"),
        (lambda d: d["results"][1].update(response=42), "results[1].response: expected a string"),
        (lambda d: d["results"][0]["response_claims"].__setitem__(0, 7), "response_claims[0]"),
    ],
)
def test_malformed_files_are_rejected_with_a_location(mutate, message) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(ORACLE.read_text())
    mutate(data)
    with pytest.raises(RagCheckerFormatError, match=re.escape(message)):
        read_ragchecker(data)
