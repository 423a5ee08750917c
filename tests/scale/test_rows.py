"""The backend-neutral row scorer, without Ray: what it pickles, what it returns, and the shared quota arithmetic."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.formats.results_io import csv_header, result_record
from ragmetrics_core.judge_factory import JudgeSettings
from ragmetrics_core.judges.quota import BudgetExhausted, LocalGate, ProviderLimits, ProviderQuota
from ragmetrics_core.sample import RagSample
from ragmetrics_core.scale import RowScorer
from ragmetrics_core.scale.rows import RECORD_COLUMN, prepared_row
from tests.scale.conftest import records_by_id
from tests.scale.samples import varied_rows

KEY = "sk-test-PICKLECANARY-91c2"


def test_the_pickle_holds_no_key_and_no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", KEY)
    settings = JudgeSettings(kind="openai", models=["judge-model"], base_url="http://127.0.0.1:9/v1",
                             api_key_env="MY_JUDGE_KEY")
    scorer = RowScorer(settings, ["faithfulness"])
    built = scorer.evaluator  # built here: the key is in this process's judge
    assert isinstance(built, Evaluator)
    assert built.judge.config.api_key.get_secret_value() == KEY  # type: ignore[attr-defined]
    data = pickle.dumps(scorer)
    assert KEY.encode() not in data
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-test-other-worker-key")
    copy = pickle.loads(data)
    key = copy.evaluator.judge.config.api_key.get_secret_value()
    assert key == "sk-test-other-worker-key"  # each process reads its own environment


def test_a_missing_key_variable_is_said_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    scorer = RowScorer(JudgeSettings(kind="openai", models=["m"], api_key_env="NOT_SET_HERE"))
    with pytest.raises(ValueError, match="NOT_SET_HERE is not set"):
        _ = scorer.evaluator


@pytest.mark.parametrize("shape", ["dicts", "pandas", "arrow", "prepared"])
def test_rows_score_as_evaluate_many(shape: str) -> None:
    rows = varied_rows(24)
    batch: Any = rows
    if shape == "pandas":
        import pandas

        batch = pandas.DataFrame(rows)
    elif shape == "arrow":
        pyarrow = pytest.importorskip("pyarrow")
        batch = pyarrow.Table.from_pylist(rows)
    elif shape == "prepared":
        from ragmetrics_core.formats import LoadedSample, iter_samples

        batch = [prepared_row(row) for row in iter_samples(rows) if isinstance(row, LoadedSample)]
    scorer = RowScorer(concurrency=3)
    out = scorer.score_rows(batch)
    assert [list(row) for row in out[:1]] == [[*csv_header(scorer.metrics), RECORD_COLUMN]]
    samples = [RagSample.model_validate(row) for row in rows]
    expected = [result_record(result, sample, None) for result, sample in
                zip(Evaluator().evaluate_many(samples), samples, strict=True)]
    got = records_by_id([json.loads(row[RECORD_COLUMN]) for row in out])
    want = records_by_id(expected)
    for record in got.values():
        record["input_line"] = None
        record["sample"].pop("metadata", None)
    for record in want.values():
        record["sample"].pop("metadata", None)
    assert got == want
    assert {row["sample_id"] for row in out} == {row["id"] for row in rows}


def test_a_bad_raw_row_becomes_an_error_row_naming_it() -> None:
    rows: list[Any] = [varied_rows(1)[0], {"user_input": "q", "retrieved_contexts": ["c"]}]
    out = RowScorer(metrics=["faithfulness"]).score_rows(rows)
    assert len(out) == 2
    bad = [row for row in out if row["error"]]
    assert len(bad) == 1
    assert bad[0]["error"].startswith("bad input row: <list>: row 2")
    assert "response" in bad[0]["error"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_requests_are_paced_evenly_and_a_429_pauses_everyone() -> None:
    clock = Clock()
    quota = ProviderQuota(ProviderLimits(requests_per_s=10), clock)
    waits = [quota.reserve(1) for _ in range(5)]
    assert waits == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    clock.now += 1.0
    assert quota.reserve(1) == 0.0
    quota.pause(2.5)
    assert quota.reserve(1) == pytest.approx(2.5)
    assert quota.stats().rate_limited == 1


def test_tokens_per_minute_take_the_real_count_once_known() -> None:
    clock = Clock()
    quota = ProviderQuota(ProviderLimits(tokens_per_min=600), clock)  # 10 tokens a second
    assert quota.reserve(10) == 0.0
    quota.settle("chat", 10, 30, 10)  # the estimate was 30 short: the bucket owes 30 tokens
    assert quota.reserve(10) == pytest.approx(4.0)


async def test_the_budget_refuses_once_spent_and_says_so() -> None:
    gate = LocalGate(ProviderLimits(budget_usd=0.01, price=(1000.0, 1000.0)))  # $0.001 a token
    await gate.before_attempt("chat", 5)
    await gate.after_attempt("chat", 5, 6, 4)  # $0.01: spent
    with pytest.raises(BudgetExhausted, match="budget exhausted"):
        await gate.before_attempt("chat", 5)
    assert gate.quota.stats().refused == 1


def test_a_usd_budget_needs_a_price() -> None:
    with pytest.raises(ValueError, match="price"):
        ProviderLimits(budget_usd=1.0)


def test_workers_get_the_judge_settings_of_the_environment_but_no_secret() -> None:
    from ragmetrics_core.scale.rows import forwarded_environment

    environ = {"RAGMETRICS_EMBEDDING_MODEL": "e", "OPENAI_BASE_URL": "http://h/v1", "RAGMETRICS_JUDGE_API_KEY": KEY,
               "OPENAI_API_KEY": KEY, "HOME": "/root", "RAGMETRICS_JUDGE_MODEL": "m"}
    assert forwarded_environment(environ) == {
        "RAGMETRICS_EMBEDDING_MODEL": "e", "OPENAI_BASE_URL": "http://h/v1", "RAGMETRICS_JUDGE_MODEL": "m",
    }


def test_the_budget_holds_in_one_process_too(tmp_path: Any) -> None:
    from ragmetrics_core.batch import evaluate_file
    from tests.cli.conftest import good_row
    from tests.llm.fake_openai_server import FakeOpenAIServer

    rows = [{**good_row(index), "id": f"s{index}"} for index in range(12)]
    with FakeOpenAIServer() as server:
        settings = JudgeSettings(kind="openai", models=["fake-judge"], base_url=server.base_url,
                                 limits=ProviderLimits(max_tokens=3000))
        run = evaluate_file(rows, judge=settings, concurrency=1, progress=False)
        used = sum(call.prompt_tokens + call.completion_tokens for call in server.calls())
    exhausted = [result for result in run.results
                 if any("budget exhausted" in error for error in result.evidence.errors.values())]
    assert 0 < len(exhausted) < 12
    assert 3000 <= used < 3000 + max(call.prompt_tokens + call.completion_tokens for call in server.calls()) * 2
    assert all(score.score is None for result in exhausted for score in result.scores.values()
               if "budget exhausted" in score.reason)


def test_the_core_works_without_ray(tmp_path: Any) -> None:
    import subprocess
    import sys

    from tests.cli.conftest import cli_env, good_row, write_jsonl

    write_jsonl(tmp_path / "rows.jsonl", [good_row(1)])
    script = (
        "import sys; sys.modules['ray'] = None  # as if Ray were not installed\n"
        "import ragmetrics_core, ragmetrics_core.scale\n"
        "from ragmetrics_core.cli import main\n"
        "assert main(['evaluate', 'rows.jsonl', '--no-progress']) == 0\n"
        "sys.exit(main(['evaluate', 'rows.jsonl', '--backend', 'ray']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=cli_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "pip install 'ragmetrics[ray]'" in done.stderr
