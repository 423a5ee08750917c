"""OpenTelemetry providers for the demo: OTLP over HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set,
the console (stderr) otherwise."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, ConsoleLogRecordExporter, LogRecordExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

ENDPOINT_VARIABLE = "OTEL_EXPORTER_OTLP_ENDPOINT"


@dataclass(slots=True)
class Telemetry:
    tracer_provider: TracerProvider
    logger_provider: LoggerProvider
    destination: str

    def shutdown(self) -> None:
        """Flush and close both providers (the console exporter prints here)."""
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()


def telemetry_from_env(environ: Mapping[str, str] | None = None, console: TextIO | None = None) -> Telemetry:
    """Providers of our own (the global ones are left alone) exporting to OTLP or the console."""
    env = os.environ if environ is None else environ
    endpoint = env.get(ENDPOINT_VARIABLE, "").strip()
    span_exporter: SpanExporter
    log_exporter: LogRecordExporter
    if endpoint:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # The exporters read the endpoint (and OTEL_EXPORTER_OTLP_HEADERS etc.) from the environment.
        span_exporter, log_exporter = OTLPSpanExporter(), OTLPLogExporter()
        destination = f"OTLP/HTTP at {endpoint}"
    else:
        stream = console if console is not None else sys.stderr
        span_exporter, log_exporter = ConsoleSpanExporter(out=stream), ConsoleLogRecordExporter(out=stream)
        destination = f"the console (stderr); set {ENDPOINT_VARIABLE} to export over OTLP"
    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", "ragmetrics-demo")})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(log_exporter))
    return Telemetry(tracer_provider, logger_provider, destination)
