"""End to end against a real Arize Phoenix server: spans over OTLP HTTP, scores as span annotations.

Starts ``phoenix serve`` with every port on 127.0.0.1 (free ports, a temporary working directory, telemetry off;
``phoenix_loopback.py`` keeps its gRPC port off the other interfaces), sends the
app's RAG span and our evaluation through the OpenTelemetry SDK's OTLP HTTP exporter, posts annotations
with ``PhoenixEmitter``, and reads everything back through ``phoenix.client``.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.online import OnlinePipeline, OtelEmitter, PhoenixEmitter, current_origin
from ragmetrics_core.online import semconv as sc
from ragmetrics_core.online.types import Origin
from tests.online.conftest import METRICS, paris_draft
from tests.online.judges import ScriptedJudge
from tests.servers import free_port, poll, stop, wait_until_ready

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("phoenix.server") is None,
        reason="the Phoenix server is not installed: pip install -e '.[e2e]'",
    ),
]

EXPECTED = {"faithfulness": 0.5, "overall_precision": 0.5, "context_recall": 1.0, "hallucination": 0.5}


@pytest.fixture(scope="module")
def phoenix_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The server's URL and process id."""
    workdir = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(workdir),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
    }
    log = (workdir / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("phoenix_loopback.py")), "serve"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready("phoenix serve", server, f"{url}/healthz", workdir / "server.log", timeout_s=240)
        yield url, server.pid
    finally:
        stop(server)
        log.close()


@pytest.fixture(scope="module")
def phoenix_url(phoenix_server: tuple[str, int]) -> str:
    return phoenix_server[0]


def test_every_port_phoenix_listens_on_is_on_loopback(phoenix_server: tuple[str, int]) -> None:
    import psutil

    _, pid = phoenix_server
    process = psutil.Process(pid)
    listening = [
        connection.laddr
        for member in (process, *process.children(recursive=True))
        for connection in member.net_connections(kind="inet")
        if connection.status == psutil.CONN_LISTEN
    ]
    assert len(listening) >= 2  # HTTP (UI, OTLP/HTTP, REST) and OTLP/gRPC
    assert all(_is_loopback(address.ip) for address in listening), listening


def _is_loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback  # grpc binds 127.0.0.1 through an IPv6 socket: ::ffff:127.0.0.1
    return address.is_loopback


def tracer_provider(url: str, project: str) -> Any:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"openinference.project.name": project}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces")))
    return provider


def project_spans(client: Any, project: str) -> list[Any]:
    """The project's spans; the project itself appears only once its first span is ingested."""
    try:
        return list(client.spans.get_spans(project_identifier=project))
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:
            return []
        raise


def annotations_by_name(client: Any, project: str, span_id: str) -> dict[str, Any]:
    found = client.spans.get_span_annotations(span_ids=[span_id], project_identifier=project)
    return {annotation["name"]: annotation for annotation in found}


def assert_scores(annotations: dict[str, Any]) -> None:
    assert set(annotations) == set(METRICS)
    for metric, expected in EXPECTED.items():
        annotation = annotations[metric]
        assert annotation["annotator_kind"] == "CODE"  # the scripted judge calls no model
        assert annotation["result"]["explanation"]  # which claims count against the score, and why
        assert annotation["result"]["score"] == pytest.approx(expected)
        assert annotation["result"]["label"] in ("pass", "fail")
        assert annotation["metadata"]["judge"] == "scripted"


def test_scores_reach_phoenix_under_the_apps_own_span(phoenix_url: str) -> None:
    from phoenix.client import Client

    project = f"ragmetrics-app-{uuid.uuid4().hex[:8]}"
    provider = tracer_provider(phoenix_url, project)
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(METRICS)),
        emitters=[OtelEmitter(tracer_provider=provider, log_events=False), PhoenixEmitter(base_url=phoenix_url)],
    )
    try:
        with provider.get_tracer("app").start_as_current_span("rag-chain"):
            origin = current_origin(framework="test", chain_name="qa", run_id="e2e-1")
        provider.force_flush()  # the app's span reaches Phoenix first, as it would in production
        online.submit(paris_draft(), origin)
        assert online.flush(30)
    finally:
        assert online.shutdown(10)
        provider.shutdown()

    client = Client(base_url=phoenix_url)
    spans = poll(lambda: project_spans(client, project), lambda s: len(s) >= 2, 30)
    by_name = {span["name"]: span for span in spans}
    rag, evaluation = by_name["rag-chain"], by_name[sc.EVALUATION_SPAN_NAME]
    assert origin.span is not None
    assert rag["context"]["span_id"] == origin.span.span_id_hex
    assert evaluation["context"]["trace_id"] == rag["context"]["trace_id"] == origin.span.trace_id_hex
    assert evaluation["parent_id"] == rag["context"]["span_id"]
    assert evaluation["span_kind"] == "EVALUATOR"
    assert evaluation["attributes"][sc.score_attribute("context_recall")] == pytest.approx(1.0)

    annotations = poll(
        lambda: annotations_by_name(client, project, rag["context"]["span_id"]),
        lambda found: len(found) >= len(METRICS),
        30,
    )
    assert_scores(annotations)


def test_without_app_tracing_the_created_rag_span_carries_the_scores(phoenix_url: str) -> None:
    from phoenix.client import Client

    project = f"ragmetrics-untraced-{uuid.uuid4().hex[:8]}"
    provider = tracer_provider(phoenix_url, project)
    online = OnlinePipeline(
        Evaluator(judge=ScriptedJudge(), metrics=list(METRICS)),
        emitters=[OtelEmitter(tracer_provider=provider, log_events=False), PhoenixEmitter(base_url=phoenix_url)],
    )
    started = time.time_ns()
    try:
        online.submit(paris_draft(), Origin(chain_name="support-bot", run_id="e2e-2", start_time_ns=started))
        assert online.flush(30)
    finally:
        assert online.shutdown(10)
        provider.shutdown()

    client = Client(base_url=phoenix_url)
    spans = poll(lambda: project_spans(client, project), lambda s: len(s) >= 2, 30)
    by_name = {span["name"]: span for span in spans}
    rag, evaluation = by_name["support-bot"], by_name[sc.EVALUATION_SPAN_NAME]
    assert rag.get("parent_id") is None
    assert evaluation["parent_id"] == rag["context"]["span_id"]
    assert rag["span_kind"] == "CHAIN"
    assert rag["attributes"]["input.value"] == "Where is Paris?"
    # The annotation may have arrived before the span; Phoenix retries it every 10 s.
    annotations = poll(
        lambda: annotations_by_name(client, project, rag["context"]["span_id"]),
        lambda found: len(found) >= len(METRICS),
        60,
    )
    assert_scores(annotations)
