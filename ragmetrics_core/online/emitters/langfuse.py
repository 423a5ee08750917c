"""Langfuse output: each metric as a Langfuse score on the trace and observation of the evaluated span.

Langfuse ingests OpenTelemetry spans (``/api/public/otel``) under their own ids: the trace id as 32 lowercase hex
characters is the Langfuse trace id, the span id as 16 is the observation id. No span attribute becomes a score
there, so scores go through the scores API (``POST /api/public/scores``, a list per request) with those ids,
sent by the official SDK's REST client (``langfuse.api.LangfuseAPI``: no tracer provider, no global state, unlike
the full ``Langfuse`` client, which registers a global tracer provider when the app has none).

Per metric: a ``NUMERIC`` score with the explanation as its comment, and a ``CATEGORICAL`` one named
``<metric>_label`` with the label (``pass``/``fail``, or ``undetermined`` with the reason as comment). Every
score's id and timestamp derive from the record, so a retried request upserts instead of duplicating.

``emit`` only queues the scores; one sender thread posts them in batches (``batch_size`` scores, or whatever has
waited ``max_delay_s``, and at most :data:`MAX_BODY_BYTES` per request), retrying transport errors, 429 and 5xx
with backoff. The keys are read from ``LANGFUSE_PUBLIC_KEY`` / ``LANGFUSE_SECRET_KEY`` and the host from
``LANGFUSE_BASE_URL`` (or the older ``LANGFUSE_HOST``); they are never logged or shown in ``repr``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import httpx
from langfuse.api import LangfuseAPI
from langfuse.api.core import ApiError

from ragmetrics_core.online.types import EvaluationRecord
from ragmetrics_core.ratelog import RateLimitedLog
from ragmetrics_core.results import MetricScore

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics.online")

DEFAULT_BASE_URL = "https://cloud.langfuse.com"
MAX_BODY_BYTES = 1_000_000
"""Langfuse's scores endpoint takes bodies up to 1 MiB (the Next.js default); we stay under it."""
MAX_COMMENT_CHARS = 4000
LABEL_SUFFIX = "_label"
PROBABILITY_SUFFIX = "_probability"
"""A calibrated score's P(label = yes) goes out as a numeric score of its own, ``<metric>_probability``."""
UNDETERMINED = "undetermined"
_ID_NAMESPACE = uuid.UUID("5b0f3c5e-8f43-4b8e-9d0c-2a61c6f0e7a1")
"""Fixed, so that the same record always yields the same score ids (uuid5)."""

Score = dict[str, Any]


class NoSubjectSpanError(RuntimeError):
    """The record has no span to attach scores to (the app had no tracing and no OtelEmitter created one)."""


class LangfuseEmitter:
    """Posts scores to Langfuse for the evaluated span's trace and observation.

    Args:
        public_key / secret_key / base_url: ``None`` reads ``LANGFUSE_PUBLIC_KEY``, ``LANGFUSE_SECRET_KEY`` and
            ``LANGFUSE_BASE_URL`` (then ``LANGFUSE_HOST``, then Langfuse Cloud).
        environment: Langfuse's environment for the scores (e.g. ``production``); ``None`` leaves Langfuse's default.
        name_prefix: prepended to each metric id to form the score name.
        batch_size / max_delay_s: send when this many scores wait, or when the oldest has waited this long.
        max_pending: scores held while Langfuse is slow or down; beyond it new ones are dropped and counted.
        max_retries: attempts after the first for transport errors, 429 and 5xx answers.
        timeout_s: per request.
    """

    def __init__(
        self,
        *,
        public_key: str | None = None,
        secret_key: str | None = None,
        base_url: str | None = None,
        environment: str | None = None,
        name_prefix: str = "",
        batch_size: int = 100,
        max_delay_s: float = 1.0,
        max_pending: int = 10_000,
        max_retries: int = 3,
        timeout_s: float = 10.0,
        environ: Mapping[str, str] | None = None,
        name: str = "langfuse",
    ) -> None:
        env = os.environ if environ is None else environ
        public_key = public_key or env.get("LANGFUSE_PUBLIC_KEY")
        secret_key = secret_key or env.get("LANGFUSE_SECRET_KEY")
        if not public_key or not secret_key:
            raise ValueError("Langfuse needs a public and a secret key: set LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY")
        for label, value in (("batch_size", batch_size), ("max_pending", max_pending)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative int, got {max_retries!r}")
        if not max_delay_s > 0 or not timeout_s > 0:
            raise ValueError("max_delay_s and timeout_s must be positive")
        self._public_key = public_key
        self._secret_key = secret_key
        host = base_url or env.get("LANGFUSE_BASE_URL") or env.get("LANGFUSE_HOST") or DEFAULT_BASE_URL
        self.base_url = host.rstrip("/")
        self._environment = environment
        self._name_prefix = name_prefix
        self._batch_size = batch_size
        self._max_delay_s = max_delay_s
        self._max_pending = max_pending
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._name = name
        self._warn = RateLimitedLog(_log)
        self.sent = 0
        """Scores Langfuse accepted."""
        self.rejected = 0
        """Scores Langfuse refused (a 207 answer, not retried: they would be refused again)."""
        self.failed = 0
        """Scores lost to requests that failed after every retry."""
        self.dropped = 0
        """Scores dropped because ``max_pending`` were waiting, or offered after shutdown."""
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._pending: list[Score] = []
        self._oldest = 0.0
        self._closed = False
        self._sender: threading.Thread | None = None
        self._client: LangfuseAPI | None = None
        self._http: httpx.Client | None = None

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:  # never show the keys
        return f"LangfuseEmitter(base_url={self.base_url!r}, name={self._name!r})"

    # ------------------------------------------------------------------ payloads

    def scores(self, record: EvaluationRecord) -> list[Score]:
        """The request items for ``record``, with the API's field names (empty when it has no scores)."""
        subject = record.subject
        if subject is None or not subject.valid:
            raise NoSubjectSpanError("no span to score: the run had no trace and no OtelEmitter created one")
        timestamp = datetime.fromtimestamp(record.finished_ns / 1e9, tz=UTC).isoformat()
        metadata: dict[str, Any] = {"record_id": record.record_id, "route": record.route, "rate": record.rate}
        if record.judge is not None:
            metadata["judge"] = record.judge
        common: Score = {"traceId": subject.trace_id_hex, "observationId": subject.span_id_hex, "timestamp": timestamp}
        if self._environment is not None:
            common["environment"] = self._environment
        items: list[Score] = []
        for metric, entry in record.scores.items():
            name = f"{self._name_prefix}{metric}"
            comment = _comment(entry, record.explanation(metric))  # read once, from the real evidence
            extra = {**metadata, "direction": entry.direction.value, "threshold": entry.threshold}
            if entry.score is not None:
                items.append(self._item(record, common, name, entry.score, "NUMERIC", comment, extra))
            if entry.probability is not None:
                items.append(self._item(
                    record, common, name + PROBABILITY_SUFFIX, entry.probability, "NUMERIC", comment, extra
                ))
            label = entry.label if entry.label is not None else (UNDETERMINED if entry.score is None else None)
            if label is not None:
                items.append(self._item(record, common, name + LABEL_SUFFIX, label, "CATEGORICAL", comment, extra))
        return items

    def _item(
        self, record: EvaluationRecord, common: Score, name: str, value: float | str, data_type: str,
        comment: str, metadata: dict[str, Any],
    ) -> Score:
        key = f"{record.record_id}/{common['traceId']}/{common['observationId']}/{name}/{data_type}"
        item: Score = {
            "id": str(uuid.uuid5(_ID_NAMESPACE, key)), **common, "name": name, "value": value, "dataType": data_type,
            "metadata": metadata,
        }
        if comment:
            item["comment"] = comment
        return item

    # ------------------------------------------------------------------ emitter

    def emit(self, record: EvaluationRecord) -> None:
        """Queue the record's scores for the sender thread (no network here)."""
        if not record.scores:
            return
        items = self.scores(record)
        self._check_fork()
        with self._cond:
            if self._closed:
                self.dropped += len(items)
                return
            room = self._max_pending - len(self._pending)
            if room < len(items):
                self.dropped += len(items) - max(0, room)
                items = items[: max(0, room)]
            was_empty = not self._pending
            if items and was_empty:
                self._oldest = time.monotonic()
            self._pending.extend(items)
            if was_empty or len(self._pending) >= self._batch_size:  # start the delay, or send a full batch
                self._cond.notify_all()
            if self._sender is None:
                self._sender = threading.Thread(target=self._run, name=f"ragmetrics-{self._name}-sender", daemon=True)
                self._sender.start()

    def force_flush(self, timeout_s: float) -> bool:
        """Send everything queued so far; ``False`` when some of it could not be sent in time."""
        self._check_fork()
        deadline = time.monotonic() + max(0.0, timeout_s)
        if not self._send_lock.acquire(timeout=max(0.0, timeout_s)):
            return False
        try:
            ok = True
            while True:
                if time.monotonic() >= deadline:
                    return not self._pending
                batch = self._take(everything=True)
                if not batch:
                    return ok
                ok = self._send(batch, deadline) and ok
        finally:
            self._send_lock.release()

    def shutdown(self, timeout_s: float) -> None:
        deadline = time.monotonic() + max(0.0, timeout_s)
        self.force_flush(timeout_s)
        with self._cond:
            self._closed = True
            self.dropped += len(self._pending)  # what the time given could not send
            self._pending.clear()
            self._cond.notify_all()
            sender = self._sender
        if sender is not None:
            sender.join(max(0.0, deadline - time.monotonic()))
        http, self._http, self._client = self._http, None, None
        if http is not None:
            http.close()

    # ------------------------------------------------------------------ sending

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and not self._due():
                    wait = None if not self._pending else self._max_delay_s - (time.monotonic() - self._oldest)
                    self._cond.wait(timeout=wait)
                if self._closed:
                    return
            with self._send_lock:
                batch = self._take(everything=False)
                if batch:
                    self._send(batch, time.monotonic() + self._timeout_s * (self._max_retries + 1))

    def _due(self) -> bool:
        if not self._pending:
            return False
        return len(self._pending) >= self._batch_size or time.monotonic() - self._oldest >= self._max_delay_s

    def _take(self, *, everything: bool) -> list[Score]:
        """The next batch: at most ``batch_size`` scores and :data:`MAX_BODY_BYTES` of JSON (one too-large score
        alone is dropped). With ``everything`` false, only when one is due."""
        with self._cond:
            if not self._pending or (not everything and not self._due()):
                return []
            batch: list[Score] = []
            size = 2
            while self._pending and len(batch) < self._batch_size:
                # ASCII escapes and default separators: an upper bound of however the client serialises it.
                item_size = len(json.dumps(self._pending[0], ensure_ascii=True)) + 2
                if size + item_size > MAX_BODY_BYTES:
                    if batch:
                        break
                    self._pending.pop(0)
                    self.dropped += 1
                    continue
                batch.append(self._pending.pop(0))
                size += item_size
            self._oldest = time.monotonic()
            return batch

    def _send(self, batch: list[Score], deadline: float) -> bool:
        delay = 0.5
        for attempt in range(self._max_retries + 1):
            try:
                response = self._get_client().scores.create(
                    request=batch,  # API-named dicts, as the SDK's own score consumer sends them
                    request_options={"max_retries": 0},  # retried here, transport errors included
                )
            except Exception as exc:
                retry = _retryable(exc) and attempt < self._max_retries and time.monotonic() + delay < deadline
                if retry:
                    time.sleep(delay)
                    delay *= 2
                    continue
                self.failed += len(batch)
                self._warn.warning(
                    "langfuse:send", "ragmetrics could not send %d scores to Langfuse: %s", len(batch), _describe(exc)
                )
                return False
            rejected = int(getattr(response, "rejected", 0) or 0)
            if rejected:
                messages = "; ".join(str(getattr(e, "message", "")) for e in getattr(response, "errors", []) or [])
                self._warn.warning(
                    "langfuse:rejected", "Langfuse rejected %d of %d scores: %s", rejected, len(batch), messages[:500]
                )
            self.rejected += rejected
            self.sent += len(batch) - rejected
            return rejected == 0
        return False  # pragma: no cover - the loop always returns

    def _get_client(self) -> LangfuseAPI:
        if self._client is None:
            self._http = httpx.Client(timeout=self._timeout_s, follow_redirects=True)
            self._client = LangfuseAPI(
                base_url=self.base_url,
                username=self._public_key,
                password=self._secret_key,
                x_langfuse_public_key=self._public_key,
                x_langfuse_sdk_name="ragmetrics",
                x_langfuse_sdk_version=_version(),
                httpx_client=self._http,
            )
        return self._client

    def _check_fork(self) -> None:
        """In a forked child, start afresh: the parent's thread is gone, and its queued scores are the parent's."""
        if self._pid != os.getpid():
            self._reset()


def _comment(entry: MetricScore, explanation: str) -> str:
    text = entry.reason or explanation
    return text if len(text) <= MAX_COMMENT_CHARS else text[: MAX_COMMENT_CHARS - 1] + "…"


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, httpx.TransportError):
        return True
    if isinstance(exc, ApiError):
        return exc.status_code is None or exc.status_code >= 500 or exc.status_code == 429
    return False


def _describe(exc: Exception) -> str:
    """The class and the status: an ``ApiError``'s text quotes response headers and bodies, which we do not log."""
    if isinstance(exc, ApiError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmetrics")
    except PackageNotFoundError:
        return "0"
