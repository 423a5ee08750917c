"""The emitter protocol: where evaluation records go (OpenTelemetry, Phoenix, JSONL, a callback).

An emitter runs on its own thread behind a bounded queue (see ``ragmetrics_core.online.dispatch``), so
``emit`` may block on I/O; a slow, failing or hung emitter delays nobody but itself. The exception is a
:class:`DirectEmitter` whose ``emit`` cannot block: it is called on the scoring worker's thread.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ragmetrics_core.online.records import EvaluationRecord, SampleView
from ragmetrics_core.online.types import Origin, SpanRef


@runtime_checkable
class Emitter(Protocol):
    @property
    def name(self) -> str:
        """A short label for stats and logs, e.g. ``otel`` or ``phoenix``."""
        ...

    def emit(self, record: EvaluationRecord) -> None:
        """Send one record; raise on failure (the caller counts and logs it)."""
        ...

    def force_flush(self, timeout_s: float) -> bool:
        """Push out anything buffered; ``False`` when that did not finish in time."""
        ...

    def shutdown(self, timeout_s: float) -> None:
        """Release resources; later ``emit`` calls may be ignored."""
        ...


@runtime_checkable
class DirectEmitter(Protocol):
    """An emitter that may know its ``emit`` never blocks (the OTel emitter in front of batch processors)."""

    def hands_off_without_blocking(self) -> bool:
        """``True`` when ``emit`` only appends to bounded queues drained by someone else's thread."""
        ...

    @property
    def dropped(self) -> int:
        """Records those queues dropped."""
        ...


@runtime_checkable
class SubjectSpanFactory(Protocol):
    """Creates the RAG span for a run the app did not trace, so the scores have a span to attach to."""

    def create_subject_span(self, origin: Origin, sample: SampleView | None) -> SpanRef | None: ...
