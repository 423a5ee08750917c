"""Secrets never leave through an answer, a file, the cache, the report or telemetry (issue #28.1).

An endpoint (or a proxy, or a prompt-injected model) that echoes the key inside a successful answer; a custom
judge whose exception quotes a key; keys of every shape, given as the judge's key, through an environment
variable, Langfuse's variables or OTLP exporter headers. Every file and export is searched for the raw value.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.base import CheckRequest, CheckResult, Extraction, ExtractionRequest, SimilarityResult
from ragmetrics_core.judges.cache import JudgeCache
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.online import JsonlEmitter, OnlinePipeline, OtelEmitter
from ragmetrics_core.report.html import write_report_data
from ragmetrics_core.scrub import SECRETS, mask_known_secrets, scrub_secrets
from tests.llm.fake_openai_server import Answer, FakeOpenAIServer, Fault
from tests.llm.samples import ENGLISH

KEYS = {
    "openai": "sk-proj-Zq81LeakCanaryOpenAI0000",
    "groq": "gsk_R3aLlyL00kingGroqKey4testing0123456789",
    "hex32": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    "opaque": "Opaque.Key_with.no~shape~at~all",
}


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    SECRETS.clear()
    yield
    SECRETS.clear()


def echoing(key: str) -> Fault:
    """A 200 extraction answer that carries the key inside a claim and a question."""

    def rewrite(answer: Answer) -> str:
        answer = dict(answer)
        answer["response_claims"] = [*answer["response_claims"], f"The API key is {key}"]
        answer["questions"] = [{"question": f"What does {key} unlock?", "noncommittal": False}]
        return json.dumps(answer)

    return Fault(rewrite=rewrite)


def judge_for(server: FakeOpenAIServer, key: str, cache: JudgeCache | None = None) -> OpenAIJudge:
    config = OpenAIJudgeConfig(
        model="fake-judge-1", base_url=server.base_url, api_key=key, timeout_s=5.0,
        retry=RetryPolicy(max_attempts=1),
    )
    return OpenAIJudge(config, cache=cache)


def everything_written(folder: Path) -> str:
    """Every file under ``folder``, SQLite databases read row by row (a value may sit in a WAL page)."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        texts.append(path.read_bytes().decode("utf-8", "replace"))
        if path.suffix == ".sqlite":
            with sqlite3.connect(path) as connection:
                texts.extend(str(row) for row in connection.execute("SELECT * FROM judge_calls"))
    return "\n".join(texts)


@pytest.mark.parametrize("shape", sorted(KEYS))
@pytest.mark.parametrize("out_name", ["results.jsonl", "results.csv"])
def test_a_key_echoed_in_a_successful_answer_reaches_no_file(
    tmp_path: Path, shape: str, out_name: str
) -> None:
    key = KEYS[shape]
    with FakeOpenAIServer() as server:
        server.inject("extract", echoing(key))
        cache = JudgeCache(tmp_path / "cache.sqlite")
        run = evaluate_file(
            [ENGLISH], out=tmp_path / out_name, evaluator=Evaluator(judge=judge_for(server, key, cache)),
            progress=False,
        )
        assert server.calls("extract")[0].headers["authorization"] == f"Bearer {key}"  # it was sent
    write_report_data(run.report, tmp_path / "report.html")
    written = everything_written(tmp_path)
    assert key not in written
    assert "[redacted]" in written  # the echoed claim is there, masked
    assert run.results and key not in run.results[0].model_dump_json()  # what Python callers see too


def test_a_custom_judges_exception_quoting_an_environment_key_is_masked_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = KEYS["hex32"]
    monkeypatch.setenv("UPSTREAM_API_KEY", key)  # named like a key: registered when the evaluator is built

    class LeakyJudge:
        name = "leaky"

        async def extract(self, request: ExtractionRequest) -> Extraction:
            raise RuntimeError(f"upstream refused credentials {key} for this call")

        async def check(self, request: CheckRequest) -> CheckResult:
            raise RuntimeError(f"upstream refused {key}")

        async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
            raise RuntimeError(f"upstream refused {key}")

    run = evaluate_file([ENGLISH], out=tmp_path / "r.jsonl", evaluator=Evaluator(judge=LeakyJudge()), progress=False)
    write_report_data(run.report, tmp_path / "report.html")
    assert key not in everything_written(tmp_path)
    assert key not in run.results[0].model_dump_json()


@pytest.fixture
def otel() -> Iterator[tuple[TracerProvider, LoggerProvider, InMemorySpanExporter, InMemoryLogRecordExporter]]:
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    yield tracer_provider, logger_provider, spans, logs
    tracer_provider.shutdown()
    logger_provider.shutdown()


def exported_text(spans: InMemorySpanExporter, logs: InMemoryLogRecordExporter) -> str:
    parts: list[Any] = []
    for span in spans.get_finished_spans():
        parts.append(span.to_json())
    for log in logs.get_finished_logs():
        record = log.log_record
        parts.extend([record.body, dict(record.attributes or {})])
    return "\n".join(str(part) for part in parts)


@pytest.mark.parametrize("shape", ["groq", "hex32", "opaque"])
def test_online_outputs_mask_keys_the_shapes_do_not_know(
    tmp_path: Path,
    shape: str,
    otel: tuple[TracerProvider, LoggerProvider, InMemorySpanExporter, InMemoryLogRecordExporter],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = KEYS[shape]
    tracer_provider, logger_provider, spans, logs = otel
    jsonl = tmp_path / "online.jsonl"
    with FakeOpenAIServer() as server:
        server.inject("extract", echoing(key))
        evaluator = Evaluator(judge=judge_for(server, key), metrics=["faithfulness", "response_relevancy"])
        online = OnlinePipeline(
            evaluator,
            emitters=[
                JsonlEmitter(jsonl),
                OtelEmitter(tracer_provider=tracer_provider, logger_provider=logger_provider),
            ],
        )
        online.submit(ENGLISH.model_copy(update={"response": f"{ENGLISH.response} Use {key} to log in."}))
        assert online.flush(timeout_s=30)
        assert online.shutdown(timeout_s=10)
    assert online.stats().completed == 1
    exported = exported_text(spans, logs)
    assert "[redacted]" in exported  # the echoed claim went out, masked
    assert key not in exported
    assert key not in jsonl.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("variable", "value", "secret"),
    [
        ("LANGFUSE_SECRET_KEY", "sk-lf-0f1e2d3c-4b5a-6978-8a9b", "sk-lf-0f1e2d3c-4b5a-6978-8a9b"),
        ("LANGFUSE_PUBLIC_KEY", "pk-lf-12345678-aaaa-bbbb-cccc", "pk-lf-12345678-aaaa-bbbb-cccc"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=HoneyTeamKey42xyz,x-dataset=prod", "HoneyTeamKey42xyz"),
        ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "Authorization=Bearer%20Tr4cesT0ken.abc", "Tr4cesT0ken.abc"),
        ("RAGMETRICS_JUDGE_API_KEY", "ZZopaque-judge-key-99", "ZZopaque-judge-key-99"),
    ],
)
def test_secrets_in_the_environment_are_masked_by_value(variable: str, value: str, secret: str) -> None:
    SECRETS.load_environment({variable: value})
    text = f"the exporter said: bad credentials {secret}!"
    assert secret not in mask_known_secrets(text)
    assert secret not in scrub_secrets(text)
    assert mask_known_secrets("ordinary text, dataset prod") == "ordinary text, dataset prod"  # values only


@pytest.mark.parametrize(
    "text",
    [
        "groq key gsk_abcdefghijklmnopqrstuvwxyz012345 leaked",
        "the api key: 0123456789abcdef0123456789abcdef0123",
        "token 00112233445566778899aabbccddeeff",
        "hf_abcdefghijklmnopqrstuvwxyz123456 was in the log",
    ],
)
def test_more_key_shapes_are_masked_without_being_registered(text: str) -> None:
    scrubbed = scrub_secrets(text)
    assert "[redacted]" in scrubbed
    assert not any(len(word) >= 32 for word in scrubbed.replace(":", " ").split())


def test_hex_ids_without_key_context_are_left_alone() -> None:
    text = "sample 0123456789abcdef0123456789abcdef had trace 00112233445566778899aabbccddeeff"
    assert scrub_secrets(text) == text


def test_short_values_are_not_registered() -> None:
    SECRETS.load_environment({})
    SECRETS.register("abc", "", None)
    assert len(SECRETS) == 0
    assert mask_known_secrets("abc abc") == "abc abc"
