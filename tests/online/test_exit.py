"""What happens to pending scores when the app's process exits right after its last request.

Each test runs a small app in a child interpreter (a real exit: atexit hooks, daemon threads, the OpenTelemetry
SDK's own exit hooks) that prints every span its exporter receives, and reads what came out.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

APP = """
import sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, OtelEmitter
from tests.online.conftest import paris_draft
from tests.online.judges import ScriptedJudge


class PrintingExporter(SpanExporter):
    def export(self, spans):
        for span in spans:
            print("exported", span.name, flush=True)
        return SpanExportResult.SUCCESS


def set_up_tracing():
    provider = TracerProvider()  # like every SDK provider, it shuts itself down at exit
    provider.add_span_processor(SimpleSpanProcessor(PrintingExporter()))
    trace.set_tracer_provider(provider)


def pipeline(judge, **options):
    evaluator = Evaluator(judge=judge, metrics=["faithfulness"])
    return OnlinePipeline(evaluator, emitters=[OtelEmitter(log_events=False)], **options)
"""


def run_app(body: str, timeout_s: float = 60.0) -> tuple[subprocess.CompletedProcess[str], float]:
    script = APP + textwrap.dedent(body)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "integrations")])}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout_s, env=env, cwd=ROOT,
        check=False,
    )
    return done, time.monotonic() - started


def test_scores_pending_at_exit_are_exported_even_when_the_pipeline_predates_the_tracer_provider() -> None:
    # The pipeline is often built at import time (a module-level handler), the providers later in main(). atexit
    # runs the last registered hook first: the provider must not be shut down before our exit hook emits into it.
    done, _ = run_app(
        """
        online = pipeline(ScriptedJudge(delay_s=0.5), register_atexit=True, atexit_timeout_s=20)
        set_up_tracing()
        for _ in range(3):
            online.submit(paris_draft())
        print("exiting", flush=True)
        """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "exiting"
    assert lines.count("exported ragmetrics.evaluation") == 3, done.stdout + done.stderr


def test_scores_lost_at_exit_without_the_exit_hook_are_reported_not_silent() -> None:
    done, elapsed = run_app(
        """
        set_up_tracing()
        online = pipeline(ScriptedJudge(delay_s=30))
        for _ in range(2):
            online.submit(paris_draft())
        print("exiting", flush=True)
        """
    )
    assert done.returncode == 0, done.stderr
    assert "exported ragmetrics.evaluation" not in done.stdout
    assert "2 sample(s) submitted to ragmetrics were not scored and emitted" in done.stderr
    assert "register_atexit=True" in done.stderr and "flush()" in done.stderr
    assert elapsed < 25  # nothing waits for the 30 s judge: the worker is a daemon thread


def test_an_exit_hook_that_runs_out_of_time_says_what_it_lost_and_does_not_hang() -> None:
    done, elapsed = run_app(
        """
        set_up_tracing()
        online = pipeline(ScriptedJudge(hang=True), register_atexit=True, atexit_timeout_s=1.0)
        for _ in range(2):
            online.submit(paris_draft())
        print("exiting", flush=True)
        """
    )
    assert done.returncode == 0, done.stderr
    assert "did not finish within atexit_timeout_s=1" in done.stderr, done.stderr
    # Cut off at the deadline: cancelled by the stopping worker, or settled by shutdown if even that took too long.
    assert re.search(r"2 failed \((cancelled|shutdown_timeout): 2\)", done.stderr), done.stderr
    assert elapsed < 25


def test_a_flushed_pipeline_exits_quietly() -> None:
    done, _ = run_app(
        """
        set_up_tracing()
        online = pipeline(ScriptedJudge())
        online.submit(paris_draft())
        assert online.flush(30)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines().count("exported ragmetrics.evaluation") == 1
    assert "ragmetrics" not in done.stderr
