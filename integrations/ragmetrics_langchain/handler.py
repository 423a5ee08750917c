"""The LangChain callback handler: snapshot a RAG run and hand it to the online pipeline.

The handler runs on the user's hot path. It keeps ids and references per event, builds one
:class:`~ragmetrics_core.online.types.SampleDraft` when the top-level run ends, passes it to the sink and
returns: no scoring, no I/O, no OpenTelemetry context changes. No callback ever raises into the chain.

The OpenTelemetry span a run belongs to is read without ever touching the active context, from two sources,
both optional:

* the span active when the run starts (the app's own span, or one an instrumentation made current);
* OpenInference's span for the run itself. OpenInference's LangChain tracer deliberately never makes its
  spans current (it keeps them in a map by run id), so without asking it the app's LangChain trace would be
  invisible to us whenever the app has no span of its own around the call.

Without OpenTelemetry (or without any valid span) there is no :class:`SpanRef` (``None``) and the online
pipeline creates the RAG span itself.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from ragmetrics_core._lazy import renamed_attribute, renamed_keyword
from ragmetrics_core.online.capture import active_span
from ragmetrics_core.online.types import SampleSink, SpanRef
from ragmetrics_langchain.extract import describe, input_text, plain_run_metadata
from ragmetrics_langchain.runs import CaptureOptions, RootRun, RunTable, RunTableStats, build

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

logger = logging.getLogger("ragmetrics.langchain")

_INTERRUPT_ERRORS = frozenset({"GraphInterrupt", "NodeInterrupt"})
_LOG_INTERVAL_S = 60.0


def _is_interrupt(error: BaseException) -> bool:
    """LangGraph pauses a graph by raising ``GraphInterrupt`` through the node: a pause, not a failure."""
    return any(cls.__name__ in _INTERRUPT_ERRORS for cls in type(error).__mro__)


@dataclass(slots=True, frozen=True)
class HandlerStats:
    """Counters since the handler was created: the handler's own, and in ``runs`` the run table's live state and
    evictions (:class:`~ragmetrics_langchain.runs.RunTableStats`: ``stats.runs.live_runs``, ...)."""

    samples_submitted: int
    skipped_no_retrieval: int
    runs_failed: int
    runs_interrupted: int
    runs_abandoned: int
    submit_failures: int
    callback_failures: int
    runs: RunTableStats


# The run table's counters were fields of HandlerStats itself: each still reads, through ``runs``, for one release.
for _counter in fields(RunTableStats):
    setattr(HandlerStats, _counter.name, renamed_attribute("HandlerStats", _counter.name, f"runs.{_counter.name}"))

_OWN_COUNTERS = tuple(f.name for f in fields(HandlerStats) if f.name != "runs")


class RagMetricsCallbackHandler(BaseCallbackHandler):
    """Captures each top-level LangChain/LangGraph run as a RAG sample for online evaluation.

    Attach it per call (``config={"callbacks": [handler]}``), per chain (``chain.with_config(...)``) or
    for the whole process with :func:`ragmetrics_langchain.instrument`.

    Args:
        pipeline: where samples go (any :class:`~ragmetrics_core.online.types.SampleSink`, usually an
            :class:`~ragmetrics_core.online.OnlinePipeline`); ``None`` uses the process-wide default one.
            ``evaluator=`` is its deprecated old name.
        input_key: the key of the question in dict inputs (default: ``question``, ``input``, ``query``,
            ``user_input``, ``messages``, or the only key).
        answer_key: the key of the answer in dict outputs (default: ``answer``, ``output``, ``result``,
            ``response``, ``generation``, ``text``, ``messages``, or the only key).
        reference_metadata_key: run metadata key holding a reference answer (offline experiments).
        max_text_chars: longest text kept for the question, the answer, the reference and each document.
        max_runs: most top-level runs tracked at once; beyond it the oldest is dropped.
        run_ttl_s: a run that has not ended after this long is dropped (runs that never end).
        require_retrieval: only submit runs in which at least one retriever ran.
    """

    run_inline = True
    raise_error = False
    # Only chain, tool (agent) and retriever events carry what a sample needs; skipping the rest keeps
    # LangChain from calling us for every token and model call.
    ignore_llm = True
    ignore_chat_model = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(
        self,
        pipeline: SampleSink | None = None,
        *,
        input_key: str | None = None,
        answer_key: str | None = None,
        reference_metadata_key: str = "ragmetrics_reference",
        max_text_chars: int = 20_000,
        max_runs: int = 10_000,
        run_ttl_s: float = 3_600.0,
        require_retrieval: bool = True,
        evaluator: SampleSink | None = None,
    ) -> None:
        super().__init__()
        pipeline = renamed_keyword("RagMetricsCallbackHandler", "evaluator", evaluator, "pipeline", pipeline)
        for name, number in (("max_text_chars", max_text_chars), ("max_runs", max_runs)):
            if isinstance(number, bool) or not isinstance(number, int):
                raise TypeError(f"{name} must be an int, got {type(number).__name__}")
        if isinstance(run_ttl_s, bool) or not isinstance(run_ttl_s, int | float):
            raise TypeError(f"run_ttl_s must be a number of seconds, got {type(run_ttl_s).__name__}")
        if not isinstance(reference_metadata_key, str):
            raise TypeError(f"reference_metadata_key must be a string, got {type(reference_metadata_key).__name__}")
        if max_text_chars < 1:
            raise ValueError(f"max_text_chars must be at least 1, got {max_text_chars}")
        if max_runs < 1:
            raise ValueError(f"max_runs must be at least 1, got {max_runs}")
        if not run_ttl_s > 0:
            raise ValueError(f"run_ttl_s must be positive, got {run_ttl_s}")
        for name, key in (("input_key", input_key), ("answer_key", answer_key)):
            if key is not None and not isinstance(key, str):
                raise TypeError(f"{name} must be a string or None, got {type(key).__name__}")
        if pipeline is None:
            from ragmetrics_langchain.defaults import default_sink

            pipeline = default_sink()
        elif not callable(getattr(pipeline, "submit", None)):
            raise TypeError(f"pipeline must have a submit(draft, origin) method, got {type(pipeline).__name__}")
        self.pipeline: SampleSink = pipeline
        self._options = CaptureOptions(
            input_key=input_key,
            answer_key=answer_key,
            reference_metadata_key=reference_metadata_key,
            max_text_chars=max_text_chars,
        )
        self._require_retrieval = require_retrieval
        self._runs = RunTable(max_runs=max_runs, run_ttl_s=run_ttl_s)
        self._counts_lock = threading.Lock()
        self._counts: dict[str, int] = dict.fromkeys(_OWN_COUNTERS, 0)
        self._last_logged: dict[str, float] = {}

    evaluator = renamed_attribute("RagMetricsCallbackHandler", "evaluator", "pipeline")

    # -- chain events -------------------------------------------------------------------------------

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            if parent_run_id is not None and self._runs.start_child(run_id.int, parent_run_id.int, False):
                return
            self._start_root(serialized, inputs, run_id, tags, metadata, kwargs)
        except Exception as error:
            self._callback_failed("on_chain_start", error)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        try:
            record = self._runs.finish_root(run_id.int)
            if record is not None:
                self._finish_root(record, outputs, kwargs.get("inputs"))
            else:
                self._runs.end_child(run_id.int)
        except Exception as error:
            self._callback_failed("on_chain_end", error)

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        try:
            if _is_interrupt(error):
                self._runs.mark_interrupted(run_id.int)
            record = self._runs.finish_root(run_id.int)
            if record is None:
                self._runs.end_child(run_id.int)
                return
            if record.interrupted:
                self._park(record)
            elif isinstance(error, GeneratorExit):  # an async stream the caller stopped reading, now finalised
                self._count("runs_abandoned")
            else:
                self._count("runs_failed")
        except Exception as failure:
            self._callback_failed("on_chain_error", failure)

    # -- retriever and tool events ------------------------------------------------------------------

    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            if parent_run_id is None or not self._runs.start_child(run_id.int, parent_run_id.int, True):
                self._runs.note_orphan()
        except Exception as error:
            self._callback_failed("on_retriever_start", error)

    def on_retriever_end(
        self, documents: Sequence[Any], *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        try:
            self._runs.end_retriever(run_id.int, documents)
        except Exception as error:
            self._callback_failed("on_retriever_end", error)

    def on_retriever_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._child_ended("on_retriever_error", run_id)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # Tools matter only as links: an agent's retriever tool runs its retriever under the tool run.
        try:
            if parent_run_id is not None:
                self._runs.start_child(run_id.int, parent_run_id.int, False)
        except Exception as error:
            self._callback_failed("on_tool_start", error)

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self._child_ended("on_tool_end", run_id)

    def on_tool_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._child_ended("on_tool_error", run_id)

    def _child_ended(self, callback: str, run_id: UUID) -> None:
        """A child run ended or failed: a root that ends with children still open was cut short."""
        try:
            self._runs.end_child(run_id.int)
        except Exception as error:
            self._callback_failed(callback, error)

    # -- reporting ----------------------------------------------------------------------------------

    def stats(self) -> HandlerStats:
        with self._counts_lock:
            counts = dict(self._counts)
        return HandlerStats(**counts, runs=self._runs.stats())

    # -- internals ----------------------------------------------------------------------------------

    def _start_root(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        run_id: UUID,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        user_input = input_text(inputs, self._options.input_key)
        run_metadata = metadata if isinstance(metadata, dict) else {}
        name = kwargs.get("name")
        if not isinstance(name, str) and isinstance(serialized, dict):
            name = serialized.get("name")
        thread_id = run_metadata.get("thread_id")
        own_span = openinference_span(run_id)
        now_mono = time.monotonic()
        record = RootRun(
            run_id=run_id,
            name=name if isinstance(name, str) else None,
            user_input=user_input,
            input_note=None if user_input is not None else describe(inputs),
            reference=run_metadata.get(self._options.reference_metadata_key),
            tags=tuple(tags) if isinstance(tags, list) else (),
            metadata=plain_run_metadata(run_metadata, self._options.reference_metadata_key),
            thread_id=str(thread_id) if thread_id is not None else None,
            span=own_span or active_span(),
            span_is_run_own=own_span is not None,
            start_ns=time.time_ns(),
            started_at=now_mono,
        )
        self._runs.start_root(record)

    def _finish_root(self, record: RootRun, outputs: Any, end_inputs: Any) -> None:
        if record.interrupted:
            self._park(record)
            return
        if record.open_children:
            # LangChain ends a sync stream the caller stopped reading as if it had finished, with the partial
            # output; the runs still streaming below it show the cut. A fragment is not an answer to score.
            self._count("runs_abandoned")
            return
        if self._require_retrieval and not record.retrievals:
            self._count("skipped_no_retrieval")
            return
        # Streaming runs start with a placeholder input; LangChain passes the real one to the end event.
        end_text = input_text(end_inputs, self._options.input_key) if end_inputs is not None else None
        if end_text is not None and (end_text or not record.user_input):
            record.user_input = end_text
        if record.user_input is None and isinstance(outputs, Mapping):
            # A resumed graph gets a Command as input; the question is still in the state it returns.
            record.user_input = input_text(outputs, self._options.input_key)
        if not record.span_is_run_own:
            # OpenInference may open the run's span after our start callback; it is still open now.
            own = openinference_span(record.run_id)
            if own is not None:
                record.span = own
        draft, origin = build(record, outputs, self._options)
        try:
            self.pipeline.submit(draft, origin)
        except Exception as error:  # the sink contract says it never raises; we do not rely on it
            self._count("submit_failures")
            self._log_failure("submit", error)
            return
        self._count("samples_submitted")

    def _park(self, record: RootRun) -> None:
        self._count("runs_interrupted")
        self._runs.park(record)

    def _count(self, name: str) -> None:
        with self._counts_lock:
            self._counts[name] += 1

    def _callback_failed(self, event: str, error: Exception) -> None:
        try:
            self._count("callback_failures")
            self._log_failure(event, error)
        except Exception:  # never let bookkeeping about a failure become one
            return

    def _log_failure(self, event: str, error: Exception) -> None:
        now = time.monotonic()
        with self._counts_lock:
            last = self._last_logged.get(event)
            if last is not None and now - last < _LOG_INTERVAL_S:
                return
            self._last_logged[event] = now
            failures = self._counts["callback_failures"] + self._counts["submit_failures"]
        logger.warning(
            "ragmetrics: %s failed (%s: %s); the run was not captured. %d failure(s) so far; "
            "further messages for this event are suppressed for %.0f s.",
            event,
            type(error).__name__,
            error,
            failures,
            _LOG_INTERVAL_S,
            exc_info=logger.isEnabledFor(logging.DEBUG),
        )


# ---------------------------------------------------------------- the run's span

_OPENINFERENCE_LANGCHAIN = "openinference.instrumentation.langchain"



def openinference_span(run_id: UUID) -> SpanRef | None:
    """The span OpenInference opened for ``run_id``, when the app instrumented LangChain with it.

    Only looks at an instrumentor the app already created; never imports, creates or enables one.
    """
    module = sys.modules.get(_OPENINFERENCE_LANGCHAIN)
    if module is None:
        return None
    # BaseInstrumentor is a singleton kept in ``_instance``; its ``_tracer`` is None unless instrumented.
    instrumentor = getattr(module.LangChainInstrumentor, "_instance", None)
    tracer = getattr(instrumentor, "_tracer", None)
    if tracer is None:
        return None
    span = tracer.get_span(run_id)
    return None if span is None else SpanRef.of(span.get_span_context())
