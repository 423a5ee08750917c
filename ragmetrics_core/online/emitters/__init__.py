"""Where evaluation records go."""

from ragmetrics_core.online.emitters.base import Emitter, SubjectSpanFactory
from ragmetrics_core.online.emitters.callback import CallbackEmitter
from ragmetrics_core.online.emitters.jsonl import JsonlEmitter

__all__ = ["CallbackEmitter", "Emitter", "JsonlEmitter", "SubjectSpanFactory"]
