"""Online evaluation of production traffic: sampling, background scoring, telemetry."""

from ragmetrics_core.online.types import ContextDraft, Origin, SampleDraft, SampleSink

__all__ = ["ContextDraft", "Origin", "SampleDraft", "SampleSink"]
