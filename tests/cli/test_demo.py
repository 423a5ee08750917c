"""``ragmetrics demo``: the offline app runs, its scripted mistakes show up in the scores, telemetry flows."""

from __future__ import annotations

import gzip
import io
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from ragmetrics_core.demo import runner
from ragmetrics_core.demo.corpus import load_corpus, search
from ragmetrics_core.metrics import METRICS
from tests.cli.conftest import RunCli, cli_command, cli_env

COLUMNS = [title for _, title in runner.COLUMNS]


def _rows(stdout: str) -> dict[str, dict[str, float | None]]:
    """Score table rows by scenario number: {"1": {"precision": 1.0, ...}}."""
    rows: dict[str, dict[str, float | None]] = {}
    first_table = stdout.split("\n\n")[1]  # after the app and judge lines, before the questions
    for line in first_table.splitlines():
        parts = line.split()
        if parts and parts[0].isdigit() and len(parts) > len(COLUMNS):
            values = parts[-len(COLUMNS) :]
            rows[parts[0]] = {
                title: None if value == "—" else float(value) for title, value in zip(COLUMNS, values, strict=True)
            }
    return rows


def _check_story(stdout: str) -> None:
    rows = _rows(stdout)
    assert sorted(rows) == ["1", "2", "3", "4", "5"]
    grounded, hallucinated, noisy, miss = rows["1"], rows["2"], rows["3"], rows["4"]
    assert grounded["faithful"] == 1.0 and grounded["halluc."] == 0.0 and grounded["precision"] == 1.0
    assert hallucinated["halluc."] == 1.0 and hallucinated["precision"] == 0.0
    assert noisy["noise"] is not None and noisy["noise"] > 0
    assert miss["claim rec"] == 0.0 and miss["self-know"] == 1.0


def test_bundled_corpus_retrieval_is_what_the_scenarios_need() -> None:
    corpus = load_corpus()
    hits = {
        q.scenario + q.question: [doc.id for doc, _ in search(q.question, corpus.documents)] for q in corpus.questions
    }
    noisy = next(ids for key, ids in hits.items() if key.startswith("noisy retrieval"))
    assert noisy[0] == "london-tower" and "eiffel-height" in noisy
    miss = next(ids for key, ids in hits.items() if key.startswith("retrieval miss"))
    assert not any("kilimanjaro" in doc for doc in miss)


def test_demo_runs_the_langchain_app_and_flags_the_scripted_mistakes(tmp_path: Path, run_cli: RunCli) -> None:
    pytest.importorskip("langchain_core")
    done = run_cli("demo", "--report", "demo.html")
    assert done.returncode == 0, done.stderr
    assert "app: LangChain LCEL chain" in done.stdout and "RagMetricsCallbackHandler" in done.stdout
    assert "judge: embedded" in done.stdout and "OnlinePipeline" in done.stdout
    _check_story(done.stdout)
    # no OTLP endpoint: spans and log events go to two files, summarised in a few lines; nothing on stderr
    assert done.stderr == ""
    _check_fits_a_terminal(done.stdout)
    folder = re.search(r"telemetry \(no OTEL_EXPORTER_OTLP_ENDPOINT set\) in (\S+)/:", done.stdout)
    events_count = re.search(r"events\.jsonl +(\d+) gen_ai\.evaluation\.result events", done.stdout)
    assert folder is not None and events_count is not None
    assert '"ragmetrics.score.hallucination"' in (Path(folder.group(1)) / "spans.jsonl").read_text("utf-8")
    events = (Path(folder.group(1)) / "events.jsonl").read_text("utf-8").splitlines()
    assert len(events) == int(events_count.group(1)) == 5 * 15  # one event per metric per question
    # the table shows six scores; the report, named on the last line, has every metric of every question
    assert f"report: demo.html (all {len(METRICS)} metrics, claim by claim)" in done.stdout
    html = (tmp_path / "demo.html").read_text("utf-8")
    assert html.count("<details class='sample'") == 5 and "cat-halluc" in html
    assert all(metric in html for metric in METRICS)


def _check_fits_a_terminal(stdout: str) -> None:
    """Short enough for one screen and narrow enough for a 100-column terminal (temporary paths aside)."""
    lines = stdout.splitlines()
    assert len(lines) < 40
    too_wide = [line for line in lines if len(line) > runner.WIDTH and "/" not in line]
    assert not too_wide, too_wide


def test_demo_writes_its_report_beside_the_telemetry_by_default(run_cli: RunCli) -> None:
    pytest.importorskip("langchain_core")
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    _check_fits_a_terminal(done.stdout)
    folder = re.search(r"telemetry \(no OTEL_EXPORTER_OTLP_ENDPOINT set\) in (\S+)/:", done.stdout)
    report = re.search(r"^report: (\S+) \(all", done.stdout, re.MULTILINE)
    assert folder is not None and report is not None
    assert Path(report.group(1)) == Path(folder.group(1)) / "report.html"
    assert Path(report.group(1)).read_text("utf-8").count("<details class='sample'") == 5


def test_demo_spans_flag_prints_every_span_to_stderr(run_cli: RunCli) -> None:
    pytest.importorskip("langchain_core")
    done = run_cli("demo", "--spans")
    assert done.returncode == 0, done.stderr
    assert '"ragmetrics.score.hallucination"' in done.stderr
    assert "gen_ai.evaluation.result" in done.stderr
    assert "telemetry to the console (stderr)" in done.stdout and "spans.jsonl" not in done.stdout


def test_demo_plain_loop_gives_the_same_scores(run_cli: RunCli) -> None:
    done = run_cli("demo", "--plain")
    assert done.returncode == 0, done.stderr
    assert "app: plain retrieval loop (--plain)" in done.stdout
    _check_story(done.stdout)


def test_demo_without_the_online_pipeline_scores_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "online_pipeline_available", lambda: False)
    monkeypatch.setattr(runner, "langchain_available", lambda: False)
    out, err = io.StringIO(), io.StringIO()
    assert runner.run_demo(out=out, err=err) == 0
    text = out.getvalue()
    assert "scored directly with the Evaluator" in text and "plain retrieval loop" in text
    _check_story(text)
    assert err.getvalue() == ""


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        type(self).received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def collector() -> Iterator[str]:
    _Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_demo_exports_over_otlp_when_the_endpoint_is_set(tmp_path: Path, collector: str) -> None:
    import subprocess

    env = cli_env()
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector
    done = subprocess.run(cli_command("demo"), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert f"telemetry to OTLP/HTTP at {collector}" in done.stdout
    paths = {path for path, _ in _Collector.received}
    assert {"/v1/traces", "/v1/logs"} <= paths
    traces = b"".join(body for path, body in _Collector.received if path == "/v1/traces")
    logs = b"".join(body for path, body in _Collector.received if path == "/v1/logs")
    assert b"ragmetrics.score.hallucination" in traces and b"When was the Eiffel Tower completed?" in traces
    assert b"gen_ai.evaluation.result" in logs
    assert '"ragmetrics.score' not in done.stderr  # nothing on the console


def _score_lines(text: str) -> list[str]:
    """The rows and header of the demo's score table and its numbered questions."""
    return [line.rstrip() for line in text.splitlines() if re.match(r"^ ?(#|\d) ", line)]


@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md"])
def test_the_docs_show_the_real_demo_output(run_cli: RunCli, doc: str) -> None:
    pytest.importorskip("langchain_core")
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    text = (Path(__file__).resolve().parents[2] / doc).read_text("utf-8")
    block = text[text.index("$ ragmetrics demo\napp:") :]
    block = block[: block.index("```")]
    assert _score_lines(block) == _score_lines(done.stdout), f"{doc} shows stale demo scores: update it"
