"""What integrations hand to the online pipeline.

Integrations run on the user's hot path, so they hand over cheap plain records (:class:`SampleDraft`,
:class:`Origin`, :class:`SpanRef`); validation into a :class:`~ragmetrics_core.sample.RagSample` happens on
the worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ragmetrics_core.sample import Context, RagSample


@dataclass(slots=True, frozen=True)
class ContextDraft:
    text: str
    id: str | None = None
    score: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SampleDraft:
    """A sample as captured from a framework, not yet validated."""

    user_input: Any = ""
    contexts: list[ContextDraft] = field(default_factory=list)
    response: Any = ""
    reference: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_sample(self, sample_id: str | None = None) -> RagSample:
        """Validate into a :class:`RagSample` (raises pydantic's ``ValidationError`` on bad types)."""
        return RagSample(
            id=sample_id,
            user_input=self.user_input,
            retrieved_contexts=[
                Context(text=c.text, id=c.id, score=c.score, metadata=dict(c.metadata)) for c in self.contexts
            ],
            response=self.response,
            reference=self.reference,
            metadata=dict(self.metadata),
        )


class SpanRef(NamedTuple):
    """An OpenTelemetry span by its ids, as the API gives them (ints), without holding the span itself.

    The one span reference of the project: integrations read it when a run starts, :class:`Origin` carries
    it, and the emitters parent their telemetry to it. ``created`` is set when ragmetrics made the span
    because the app had none. A tuple, not a dataclass: it is built on the app's hot path, where a tuple is
    the cheapest record Python makes.
    """

    trace_id: int
    span_id: int
    trace_flags: int = 1
    created: bool = False

    @property
    def trace_id_hex(self) -> str:
        return f"{self.trace_id:032x}"

    @property
    def span_id_hex(self) -> str:
        return f"{self.span_id:016x}"

    @property
    def valid(self) -> bool:
        """OpenTelemetry's rule: an all-zero trace or span id names no span."""
        return self.trace_id != 0 and self.span_id != 0


@dataclass(slots=True, frozen=True)
class Origin:
    """Where a sample came from: the span it belongs to and the run that produced it.

    ``span`` is the OpenTelemetry span that was active when the user's run started (``None`` when the app
    has no tracing; the pipeline then creates the RAG span itself).
    ``start_time_ns``/``end_time_ns`` bound the run, for that created span.
    """

    framework: str = "manual"
    chain_name: str | None = None
    run_id: str | None = None
    span: SpanRef | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    start_time_ns: int | None = None
    end_time_ns: int | None = None


class SampleSink(Protocol):
    """Where integrations send what they captured; the :class:`OnlineEvaluator` is one."""

    def submit(self, sample: RagSample | SampleDraft, origin: Origin | None = None) -> object:
        """Take the sample and return at once; never raise into the caller."""
        ...
