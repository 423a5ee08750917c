"""The model judge wherever a judge goes: the evaluator, evaluate(data), the CLI, the online evaluator, an
ensemble with an LLM judge, LLM claim extraction, and the row scorer the Ray backend ships to its workers."""

from __future__ import annotations

import asyncio
import json
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragmetrics_core import evaluate
from ragmetrics_core.cli import main
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.ensemble import EnsembleEvaluator
from ragmetrics_core.evidence import Claim, EvidencePart, Verdict
from ragmetrics_core.judge_factory import JudgeConfigError, JudgeSettings, build_evaluator
from ragmetrics_core.judges.base import CheckRequest
from ragmetrics_core.judges.model import ModelJudge, ModelJudgeConfig
from ragmetrics_core.judges.model import judge as judge_module
from ragmetrics_core.judges.model.runner import NliModel
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
from ragmetrics_core.online import OnlinePipeline
from ragmetrics_core.sample import RagSample
from ragmetrics_core.scale import RowScorer
from tests.llm.conftest import FAKE_KEY, RecordingSleep
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.llm.samples import ENGLISH
from tests.model.conftest import FILLER, LONG_CHUNK, PARIS, TOWER

METRICS = ["faithfulness", "context_recall", "overall_precision", "context_entity_recall", "response_relevancy"]


def samples() -> list[RagSample]:
    made = []
    for number in range(6):
        made.append(RagSample(
            id=f"s{number}", user_input="What is the capital of France? When was the tower built?",
            response=f"{PARIS} {TOWER}" if number % 2 else f"{PARIS} Berlin is a big city in Germany.",
            reference=PARIS if number % 3 else f"{PARIS} {TOWER}",
            retrieved_contexts=[LONG_CHUNK, PARIS, FILLER[number % len(FILLER)]][: 1 + number % 3],
        ))
    return made


def fresh(models: Callable[..., Path], **fields: Any) -> ModelJudge:
    """A judge on a model instance of its own (a distinct setting): patching it touches no other test's."""
    fresh.count += 1  # type: ignore[attr-defined]
    return ModelJudge(ModelJudgeConfig(model=str(models()), max_length=200 + fresh.count, **fields))  # type: ignore[attr-defined]


fresh.count = 0  # type: ignore[attr-defined]


def slowed(judge: ModelJudge, seconds: float, sizes: list[int] | None = None) -> ModelJudge:
    model = judge.model
    run = model.probabilities

    def slow(encodings: Any) -> Any:
        if sizes is not None:
            sizes.append(len(encodings))
        time.sleep(seconds)
        return run(encodings)

    model.probabilities = slow  # type: ignore[method-assign]
    return judge


def test_evaluator_scores_read_off_model_verdicts(models: Callable[..., Path]) -> None:
    judge = ModelJudge(str(models()))
    sample = samples()[1]  # response: Paris + tower; contexts: the long chunk and Paris
    result = Evaluator(judge=judge, metrics=METRICS).evaluate(sample)

    assert result.judge.startswith("model:")
    assert result.score("faithfulness") == pytest.approx(0.982, abs=1e-3)  # both claims supported, graded
    assert result.score("context_entity_recall") is not None  # entities: the embedded judge's
    assert result.score("response_relevancy") is not None  # generated questions: the embedded judge's
    # Claims are the embedded extractor's (without the final period).
    assert [claim.text for claim in result.evidence.response_claims or []] == [PARIS[:-1], TOWER[:-1]]
    # Response claims come first; chunks are numbered from 0: the long chunk holds the tower, the second Paris.
    paris, tower = result.explanations[:2]
    assert paris.supporting_chunks == [1] and tower.supporting_chunks == [0]
    assert not result.evidence.errors


def test_batched_across_samples_equals_one_by_one_and_is_deterministic(models: Callable[..., Path]) -> None:
    sizes: list[int] = []
    batched = slowed(fresh(models, batch_size=64), 0.5, sizes)
    single = fresh(models, batch_size=1)
    data = samples()
    together = Evaluator(judge=batched, metrics=METRICS).evaluate_many(data, concurrency=6)
    apart = [Evaluator(judge=single, metrics=METRICS).evaluate(sample) for sample in data]
    again = Evaluator(judge=single, metrics=METRICS).evaluate_many(data, concurrency=3)

    def comparable(results: list[Any]) -> list[Any]:
        return [(r.sample_id, r.values(), r.evidence.model_dump(), [e.model_dump() for e in r.explanations])
                for r in results]

    assert comparable(together) == comparable(apart) == comparable(again)
    # One submission a sample; while the model was busy with the first, the others queued up and went in together.
    assert batched.stats.checks == len(data)
    assert len(sizes) < len(data)
    assert sum(sizes) == batched.stats.pairs_run


async def test_inference_never_blocks_the_event_loop(models: Callable[..., Path]) -> None:
    judge = slowed(fresh(models), 0.5)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    started = time.perf_counter()
    await judge.check(CheckRequest(response=PARIS, reference=None, contexts=[PARIS],
                                   response_claims=[Claim(text=PARIS)],
                                   want=frozenset({EvidencePart.RESPONSE_VS_CHUNKS})))
    elapsed = time.perf_counter() - started
    ticker.cancel()
    assert elapsed >= 0.5
    assert ticks >= 20  # the loop kept running every 10 ms while the model worked


def test_evaluate_a_dataset_with_a_judge_or_settings(models: Callable[..., Path],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGMETRICS_JUDGE_MODEL", raising=False)
    rows = [{"question": s.user_input, "answer": s.response, "contexts": [c.text for c in s.retrieved_contexts],
             "ground_truth": s.reference} for s in samples()]
    by_judge = evaluate(rows, metrics=METRICS, judge=ModelJudge(str(models())))
    by_settings = evaluate(rows, metrics=METRICS, judge=JudgeSettings(kind="model", models=[str(models())]))
    assert [r.values() for r in by_judge.results] == [r.values() for r in by_settings.results]
    assert all(r.judge.startswith("model:") for r in by_settings.results)
    with pytest.raises(JudgeConfigError, match="needs a model"):
        build_evaluator(JudgeSettings(kind="model"))
    with pytest.raises(JudgeConfigError, match="no such directory"):
        build_evaluator(JudgeSettings(kind="model", models=["/nowhere/at/all"]))
    monkeypatch.setenv("RAGMETRICS_JUDGE_MODEL", str(models()))
    from_environment = build_evaluator(JudgeSettings(kind="model"))
    assert isinstance(from_environment, Evaluator)
    assert from_environment.judge.name == f"model:{models().name}"


def test_cli_judge_model_writes_results_and_resumes(models: Callable[..., Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "samples.jsonl"
    source.write_text("\n".join(sample.model_dump_json() for sample in samples()) + "\n", encoding="utf-8")
    out = tmp_path / "results.jsonl"
    command = ["evaluate", str(source), "--judge", "model", "--model", str(models()), "--out", str(out),
               "--metrics", ",".join(METRICS), "--no-progress", "--report", str(tmp_path / "report.html")]
    assert main(command) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 and all(record["judge"].startswith("model:") for record in records)
    assert (tmp_path / "report.html").is_file()
    capsys.readouterr()
    assert main(command) == 0
    assert "6 resumed" in capsys.readouterr().out
    assert main(["evaluate", str(source), "--judge", "model", "--model", str(tmp_path / "missing")]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_online_evaluator_scores_in_the_background_and_times_out_cleanly(models: Callable[..., Path]) -> None:
    online = OnlinePipeline(Evaluator(judge=ModelJudge(str(models())), metrics=METRICS), evaluation_timeout_s=30)
    try:
        for sample in samples():
            online.submit(sample)
        assert online.flush(60)
        stats = online.stats()
        assert stats.completed == 6 and stats.failed == 0
    finally:
        online.shutdown(5)

    slow = slowed(fresh(models), 1.0)
    online = OnlinePipeline(Evaluator(judge=slow, metrics=METRICS), evaluation_timeout_s=0.3, concurrency=2)
    try:
        submitted_at = time.perf_counter()
        for sample in samples()[:3]:
            online.submit(sample)
        assert time.perf_counter() - submitted_at < 0.2  # the app's thread never waits for the model
        assert online.flush(30)
        stats = online.stats()
        assert stats.failed == 3 and stats.failure_reasons == {"timeout": 3}
        assert stats.submitted == stats.completed + stats.failed
    finally:
        online.shutdown(5)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


def llm(server: FakeOpenAIServer, model: str = "careful-a") -> OpenAIJudge:
    config = OpenAIJudgeConfig.model_validate({"model": model, "base_url": server.base_url, "api_key": FAKE_KEY,
                                               "embedding_model": "fake-embedding"})
    return OpenAIJudge(config, sleep=RecordingSleep())


async def test_an_ensemble_with_an_llm_judge(models: Callable[..., Path], server: FakeOpenAIServer) -> None:
    model = ModelJudge(str(models()))
    ensemble = EnsembleEvaluator([model, llm(server)], metrics=METRICS)
    result = await ensemble.aevaluate(ENGLISH)
    assert result.per_judge is not None
    assert list(result.per_judge) == [model.name, "openai:careful-a"]
    assert result.per_judge[model.name]["faithfulness"] == pytest.approx(0.982 * 2 / 3, abs=1e-3)
    majority = EnsembleEvaluator([llm(server), model, llm(server, "careful-b")], metrics=METRICS,
                                 aggregate="majority")
    voted = await majority.aevaluate(ENGLISH)
    assert voted.score("faithfulness") is not None


async def test_llm_claims_with_model_verdicts(models: Callable[..., Path], server: FakeOpenAIServer) -> None:
    judge = ModelJudge(str(models()), extractor=llm(server))
    assert judge.name == f"model:{judge.model.name}+openai:careful-a"
    result = await Evaluator(judge=judge, metrics=METRICS).aevaluate(ENGLISH)
    assert len(server.calls("extract")) == 1 and not server.calls("check_chunks")  # the model checks
    assert result.usage.calls >= 1  # the LLM's calls are counted
    checks = result.evidence.response_vs_chunks or []
    assert [row[0].verdict for row in checks][:1] == [Verdict.ENTAILED]
    settings = JudgeSettings(kind="model", models=[str(models())], extractor_model="careful-a",
                             base_url=server.base_url, api_key_env="FAKE_KEY_FOR_MODEL_TEST")
    with pytest.raises(JudgeConfigError, match="FAKE_KEY_FOR_MODEL_TEST is not set"):
        build_evaluator(settings)


def test_the_row_scorer_loads_the_model_once_per_process(models: Callable[..., Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []

    class Counting(NliModel):
        def __init__(self, config: ModelJudgeConfig) -> None:
            built.append(config)
            super().__init__(config)

    monkeypatch.setattr(judge_module, "NliModel", Counting)
    settings = JudgeSettings(kind="model", models=[str(models())], model_options={"max_length": 321})
    scorer = RowScorer(settings, METRICS)
    rows = [json.loads(sample.model_dump_json()) for sample in samples()]
    first = scorer.score_rows(rows[:3])
    second = scorer.score_rows(rows[3:])
    shipped = pickle.loads(pickle.dumps(scorer))  # what a Ray worker receives: settings only, no live model
    assert shipped._evaluator is None
    third = shipped.score_rows(rows[:3])
    assert len(first) == len(second) == len(third) == 3
    assert [row["faithfulness"] for row in first] == [row["faithfulness"] for row in third]
    assert len(built) == 1  # one load for every batch and every scorer of this process


def test_ray_workers_get_one_inference_thread_per_cpu(models: Callable[..., Path]) -> None:
    ray_backend = pytest.importorskip("ragmetrics_core.scale.ray_backend")
    scorer = RowScorer(JudgeSettings(kind="model", models=[str(models())]), METRICS)
    sized = ray_backend._model_threads(scorer, 2.0)
    assert sized.judge.model_options == {"threads": 2} and scorer.judge.model_options is None
    chosen = RowScorer(JudgeSettings(kind="model", models=["x"], model_options={"threads": 3}), METRICS)
    assert ray_backend._model_threads(chosen, 1.0) is chosen
    assert threading.active_count() >= 1


def test_over_the_pair_cap_the_checks_are_undetermined_and_the_rest_is_scored(models: Callable[..., Path]) -> None:
    judge = ModelJudge(ModelJudgeConfig(model=str(models()), max_pairs_per_sample=1))
    result = Evaluator(judge=judge, metrics=METRICS).evaluate(samples()[1])
    assert result.score("faithfulness") is None
    assert "over the cap of 1" in (result.scores["faithfulness"].reason or "")
    assert result.score("response_relevancy") is not None  # extraction and similarity were not lost


def test_cli_claims_by_an_llm(models: Callable[..., Path], server: FakeOpenAIServer, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    source = tmp_path / "samples.jsonl"
    source.write_text(ENGLISH.model_dump_json() + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = main(["evaluate", str(source), "--judge", "model", "--model", str(models()), "--claims-model",
                 "careful-a", "--base-url", server.base_url, "--out", str(out), "--no-progress",
                 "--metrics", "faithfulness"])
    assert code == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["judge"].endswith("+openai:careful-a")
    assert len(server.calls("extract")) == 1


def test_ray_workers_are_told_where_the_hub_cache_is_and_never_the_token() -> None:
    from ragmetrics_core.scale.rows import forwarded_environment

    environment = {"HF_HUB_OFFLINE": "1", "HF_HOME": "/models/hf", "HF_TOKEN": "hf_secret", "HOME": "/root"}
    assert forwarded_environment(environment) == {"HF_HUB_OFFLINE": "1", "HF_HOME": "/models/hf"}
