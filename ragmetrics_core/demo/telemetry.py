"""OpenTelemetry providers for the demo: OTLP over HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, the console
(stderr) when asked for the full dump, otherwise two JSON Lines files (spans, log events) that the demo summarises
in a few lines, so its score table stays on screen."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, ConsoleLogRecordExporter, LogRecordExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

ENDPOINT_VARIABLE = "OTEL_EXPORTER_OTLP_ENDPOINT"


@dataclass(slots=True)
class Telemetry:
    tracer_provider: TracerProvider
    logger_provider: LoggerProvider
    destination: str
    files: tuple[Path, Path] | None = None
    """The spans and events files, when the demo writes them (neither OTLP nor the console dump)."""
    handles: tuple[TextIO, ...] = ()

    def shutdown(self) -> None:
        """Flush and close both providers (the exporters write here), then the files."""
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()
        for handle in self.handles:
            handle.close()

    def summary(self) -> list[str]:
        """A few lines on where the telemetry went: per file, the counts per span name and event name and one
        example event; or the OTLP endpoint. Each line fits a 100-column terminal (paths aside)."""
        if self.files is None:
            return [f"telemetry to {self.destination}"]
        spans_path, events_path = self.files
        spans = Counter(json.loads(line)["name"] for line in _lines(spans_path))
        events = [json.loads(line) for line in _lines(events_path)]
        kinds = Counter(str(event.get("attributes", {}).get("event.name", "log record")) for event in events)
        lines = [
            f"telemetry (no {ENDPOINT_VARIABLE} set) in {spans_path.parent}/:",
            f"  {spans_path.name:<13}" + ", ".join(f"{count} {name} span{'s' if count != 1 else ''}"
                                                   for name, count in sorted(spans.items())),
            f"  {events_path.name:<13}" + ", ".join(f"{count} {name} event{'s' if count != 1 else ''}"
                                                    for name, count in sorted(kinds.items())),
        ]
        example = next((e["attributes"] for e in events if "gen_ai.evaluation.name" in e.get("attributes", {})), None)
        if example is not None:
            lines.append(
                f"  {'':<13}e.g. {example['gen_ai.evaluation.name']} = {example.get('gen_ai.evaluation.score.value')}"
                f" ({example.get('gen_ai.evaluation.score.label', 'no label')}), trace {_trace_of(events, example)}"
            )
        lines.append(f"Phoenix: `phoenix serve`, then {ENDPOINT_VARIABLE}=http://127.0.0.1:6006 ragmetrics demo")
        return lines


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _trace_of(events: list[dict[str, object]], attributes: object) -> str:
    for event in events:
        if event.get("attributes") is attributes:
            return str(event.get("trace_id", "?"))
    return "?"


def telemetry_from_env(
    environ: Mapping[str, str] | None = None,
    console: TextIO | None = None,
    *,
    dump: bool = False,
    directory: Path | None = None,
) -> Telemetry:
    """Providers of our own (the global ones are left alone) exporting to OTLP, the console (``dump``) or two
    JSON Lines files in ``directory`` (a new temporary folder by default)."""
    env = os.environ if environ is None else environ
    endpoint = env.get(ENDPOINT_VARIABLE, "").strip()
    span_exporter: SpanExporter
    log_exporter: LogRecordExporter
    files: tuple[Path, Path] | None = None
    handles: tuple[TextIO, ...] = ()
    if endpoint:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # The exporters read the endpoint (and OTEL_EXPORTER_OTLP_HEADERS etc.) from the environment.
        span_exporter, log_exporter = OTLPSpanExporter(), OTLPLogExporter()
        destination = f"OTLP/HTTP at {endpoint}"
    elif dump:
        stream = console if console is not None else sys.stderr
        span_exporter, log_exporter = ConsoleSpanExporter(out=stream), ConsoleLogRecordExporter(out=stream)
        destination = f"the console (stderr); set {ENDPOINT_VARIABLE} to export over OTLP"
    else:
        folder = directory if directory is not None else Path(tempfile.mkdtemp(prefix="ragmetrics-demo-"))
        folder.mkdir(parents=True, exist_ok=True)
        files = (folder / "spans.jsonl", folder / "events.jsonl")
        handles = (files[0].open("w", encoding="utf-8"), files[1].open("w", encoding="utf-8"))
        # The console exporters write to any stream; one compact JSON object per line makes JSON Lines.
        span_exporter = ConsoleSpanExporter(out=handles[0], formatter=lambda span: span.to_json(indent=None) + "\n")
        log_exporter = ConsoleLogRecordExporter(
            out=handles[1], formatter=lambda record: record.to_json(indent=None) + "\n"
        )
        destination = f"files in {folder}"
    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", "ragmetrics-demo")})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(log_exporter))
    return Telemetry(tracer_provider, logger_provider, destination, files, handles)
