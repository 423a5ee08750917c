"""``ragmetrics evaluate --judge openai`` against a local OpenAI-compatible server: usage, cost, cache.

Uses the LLM judge's own fake server (tests/llm/fake_openai_server.py), bound to 127.0.0.1.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import cli_command, cli_env, good_row, read_jsonl, write_jsonl

fake_server = pytest.importorskip("tests.llm.fake_openai_server", reason="the LLM judge's fake server")
pytestmark = pytest.mark.slow

KEY = "sk-test-CLI-CANARY-0b7e41"


@pytest.fixture
def server() -> Iterator[object]:
    with fake_server.FakeOpenAIServer() as running:
        yield running


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env()
    env["OPENAI_API_KEY"] = KEY
    return subprocess.run(cli_command(*args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)


def _usage(stdout: str) -> dict[str, float]:
    match = re.search(r"judge usage: (\d+) LLM calls.*?([\d,]+) prompt \+ ([\d,]+) completion tokens", stdout)
    assert match, stdout
    calls, prompt, completion = (int(group.replace(",", "")) for group in match.groups())
    cost = re.search(r"estimated cost: \$([\d.]+)", stdout)
    hits = re.search(r"(\d+) cache hits", stdout)
    return {
        "calls": calls,
        "prompt": prompt,
        "completion": completion,
        "cost": float(cost.group(1)) if cost else -1.0,
        "hits": float(hits.group(1)) if hits else 0.0,
    }


def test_openai_judge_with_price_and_cache(tmp_path: Path, server: object) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    base_url = server.base_url  # type: ignore[attr-defined]
    common = [
        "--judge",
        "openai",
        "--model",
        "fake-judge-1",
        "--base-url",
        base_url,
        "--cache",
        "cache.sqlite",
        "--price",
        "2.5,10",
        "--metrics",
        "overall_precision,faithfulness,hallucination",
    ]
    first = _run(tmp_path, "evaluate", "in.jsonl", "--out", "a.jsonl", *common)
    assert first.returncode == 0, first.stderr
    usage = _usage(first.stdout)
    assert usage["calls"] > 0 and usage["prompt"] > 0
    expected_cost = (usage["prompt"] * 2.5 + usage["completion"] * 10) / 1e6
    assert usage["cost"] == pytest.approx(expected_cost, abs=1e-4)
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert all(row["judge"] == "openai:fake-judge-1" for row in rows)
    assert [row["scores"]["hallucination"]["score"] for row in rows] == [0.5, 0.5, 0.5]
    assert KEY not in first.stdout + first.stderr + (tmp_path / "a.jsonl").read_text("utf-8")

    requests_before = len(server.requests)  # type: ignore[attr-defined]
    second = _run(tmp_path, "evaluate", "in.jsonl", "--out", "b.jsonl", *common)
    assert second.returncode == 0, second.stderr
    assert len(server.requests) == requests_before  # type: ignore[attr-defined]  # all answered from the cache
    assert _usage(second.stdout)["hits"] > 0


def test_several_models_make_an_ensemble(tmp_path: Path, server: object, ragchecker_dir: Path) -> None:
    pytest.importorskip("ragmetrics_core.ensemble", reason="the ensemble judge is not in this build")
    write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    base_url = server.base_url  # type: ignore[attr-defined]
    for mode in ("mean", "majority"):
        done = _run(
            tmp_path,
            "evaluate",
            "in.jsonl",
            "--out",
            f"{mode}.jsonl",
            "--judge",
            "openai",
            "--models",
            "fake-a,fake-b",
            "--ensemble",
            mode,
            "--base-url",
            base_url,
            "--metrics",
            "faithfulness,hallucination",
        )
        assert done.returncode == 0, done.stderr
        [row] = read_jsonl(tmp_path / f"{mode}.jsonl")
        assert set(row["per_judge"]) == {"openai:fake-a", "openai:fake-b"}
        assert row["spread"]["hallucination"] == 0.0
        assert row["scores"]["hallucination"]["score"] == 0.5
        assert row["judge"].startswith(f"ensemble[{mode}]")
    refused = _run(
        tmp_path,
        "evaluate",
        str(ragchecker_dir / "checking_outputs.json"),
        "--judge",
        "openai",
        "--models",
        "fake-a,fake-b",
        "--base-url",
        base_url,
    )
    assert refused.returncode == 2 and "not an ensemble" in refused.stderr
