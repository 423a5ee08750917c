"""A local stand-in for Langfuse's scores API that checks every request against the published request shape.

The model follows Langfuse's public API reference for ``POST /api/public/scores`` (a JSON list of
``CreateScoreRequest``; basic auth with the public key as user and the secret key as password; ``202`` when all
are accepted, ``207`` with accepted/rejected counts and errors otherwise). It is stricter than the server in one
way on purpose: unknown fields are refused, since Langfuse would silently drop a misspelt ``trace_id`` and leave
the score unattached. Scores are stored by id, as Langfuse upserts a score sent again with the same id.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, model_validator

SCORES_PATH = "/api/public/scores"
OTEL_TRACE_ID = r"^[0-9a-f]{32}$"
OTEL_SPAN_ID = r"^[0-9a-f]{16}$"


class ScoreDataType(StrEnum):
    NUMERIC = "NUMERIC"
    BOOLEAN = "BOOLEAN"
    CATEGORICAL = "CATEGORICAL"
    TEXT = "TEXT"
    CORRECTION = "CORRECTION"


class CreateScoreRequest(BaseModel):
    """One item of the request body (Langfuse API reference, ``CreateScoreRequest``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: StrictStr | None = None
    traceId: StrictStr | None = None
    sessionId: StrictStr | None = None
    observationId: StrictStr | None = None
    datasetRunId: StrictStr | None = None
    name: StrictStr = Field(min_length=1)
    value: StrictFloat | StrictInt | StrictStr
    comment: StrictStr | None = None
    metadata: dict[str, Any] | None = None
    environment: StrictStr | None = Field(default=None, pattern=r"^[a-z0-9_-]{1,40}$")
    queueId: StrictStr | None = None
    dataType: ScoreDataType | None = None
    configId: StrictStr | None = None
    source: Literal["API", "ANNOTATION"] | None = None
    timestamp: AwareDatetime | None = None

    @model_validator(mode="after")
    def _value_matches_type(self) -> CreateScoreRequest:
        numeric = isinstance(self.value, int | float)
        kind = self.dataType or ScoreDataType.NUMERIC
        if kind in (ScoreDataType.NUMERIC, ScoreDataType.BOOLEAN) and not numeric:
            raise ValueError(f"a {kind} score needs a numeric value")
        if kind is ScoreDataType.BOOLEAN and self.value not in (0, 1):
            raise ValueError("a BOOLEAN score is 0 or 1")
        if kind in (ScoreDataType.CATEGORICAL, ScoreDataType.TEXT) and numeric:
            raise ValueError(f"a {kind} score needs a string value")
        if kind is ScoreDataType.TEXT and not 1 <= len(str(self.value)) <= 500:
            raise ValueError("a TEXT score is 1 to 500 characters")
        if self.observationId is not None and self.traceId is None:
            raise ValueError("observationId needs traceId")
        if self.traceId is None and self.sessionId is None and self.datasetRunId is None:
            raise ValueError("a score belongs to a trace, a session or a dataset run")
        if self.environment is not None and self.environment.startswith("langfuse"):
            raise ValueError("an environment may not start with 'langfuse'")
        if self.source == "ANNOTATION" and self.configId is None and kind is not ScoreDataType.CORRECTION:
            raise ValueError("an ANNOTATION score needs a configId")
        return self


class OtelAttachedScore(CreateScoreRequest):
    """What our scores must also be to land on OTLP-ingested data: W3C ids, as Langfuse stores OTel spans."""

    id: StrictStr
    traceId: StrictStr = Field(pattern=OTEL_TRACE_ID)
    observationId: StrictStr = Field(pattern=OTEL_SPAN_ID)
    timestamp: AwareDatetime


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class LangfuseStandIn:
    public_key: str
    secret_key: str
    requests: list[Received] = field(default_factory=list)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    invalid: list[str] = field(default_factory=list)
    fail_next: list[int] = field(default_factory=list)
    """Statuses to answer the next requests with, after storing their scores (a response lost on the way back)."""
    reject_names: set[str] = field(default_factory=set)
    """Score names answered as rejected (207)."""
    delay_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(Received(path, headers, body))
        if self.delay_s:
            time.sleep(self.delay_s)
        if path != SCORES_PATH:
            return 404, {"message": "not found"}
        expected = base64.b64encode(f"{self.public_key}:{self.secret_key}".encode()).decode()
        if headers.get("authorization") != f"Basic {expected}":
            return 401, {"message": "Invalid credentials"}
        if headers.get("content-type", "").split(";")[0] != "application/json":
            return self._invalid("content-type is not application/json")
        try:
            items = json.loads(body)
        except ValueError:
            return self._invalid("body is not JSON")
        if not isinstance(items, list) or not items:
            return self._invalid("body is not a non-empty list of scores")
        accepted, errors = [], []
        for item in items:
            try:
                OtelAttachedScore.model_validate_json(json.dumps(item))  # as the server reads it: JSON, strictly
            except ValueError as exc:
                return self._invalid(str(exc))
            if item["name"] in self.reject_names:
                errors.append({"message": f"score {item['name']} rejected"})
            else:
                accepted.append(item)
        with self.lock:
            for item in accepted:
                self.scores[item["id"]] = item  # an upsert by id, as Langfuse does
            status = self.fail_next.pop(0) if self.fail_next else None
        if status is not None:
            return status, {"message": "upstream error"}
        if errors:
            return 207, {"accepted": len(accepted), "rejected": len(errors), "errors": errors}
        return 202, {"message": "Accepted"}

    def _invalid(self, message: str) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.invalid.append(message)
        return 400, {"message": message}

    def sent_ids(self) -> list[str]:
        """Every score id in every request, repeats included."""
        with self.lock:
            bodies = [r.body for r in self.requests]
        return [item["id"] for body in bodies for item in json.loads(body)]


def serve(stand_in: LangfuseStandIn) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            headers = {key.lower(): value for key, value in self.headers.items()}
            status, answer = stand_in.handle(self.path, headers, body)
            payload = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, name="langfuse-stand-in", daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
