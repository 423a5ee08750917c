"""Live run state: one record per root run, found from any descendant in one dict lookup; and, when a root run
ends, the hand-off records built from it (:func:`build`).

A child is registered under its parent's root when it starts (a parent always starts before its children),
so finding the root of a retriever nested at any depth never walks a chain of parents later. Runs are keyed
by ``UUID.int``: a ``UUID`` hashes in Python code, an ``int`` in C, and these dicts are touched several
times per event.
Every operation holds one small lock for a few dict operations; records are freed when their root ends
or errors, when they outlive ``run_ttl_s``, or, oldest first, when more than ``max_runs`` are live.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ragmetrics_core.online.types import Origin, SampleDraft, SpanRef
from ragmetrics_langchain.extract import contexts_from_documents, describe, output_text

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


@dataclass(slots=True, eq=False)
class RootRun:
    """What the handler keeps of one top-level run until it ends: ids and references, no copies."""

    run_id: UUID
    name: str | None
    user_input: str | None
    input_note: str | None
    reference: Any
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    thread_id: str | None
    span: SpanRef | None
    span_is_run_own: bool
    start_ns: int
    started_at: float
    retrievals: list[Sequence[Any] | None] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    # Children started and not yet ended: a root that ends with some still open was cut short (a stream the caller
    # stopped reading), since a run that completes ends every child before itself.
    open_children: set[int] = field(default_factory=set)
    interrupted: bool = False
    resumed: bool = False


@dataclass(slots=True, frozen=True)
class RunTableStats:
    """The run table's live state and what it let go: runs started (and LangGraph runs resumed), runs and children
    tracked now, interrupted runs waiting for their resume, runs evicted by age or by the ``max_runs`` bound, and
    retrievers ignored because they ran outside any tracked run. ``HandlerStats.runs`` holds it."""

    runs_started: int
    runs_resumed: int
    live_runs: int
    tracked_children: int
    parked_interrupted: int
    evicted_expired: int
    evicted_overflow: int
    ignored_orphans: int


class RunTable:
    """Thread-safe registry of live root runs and of the children that point to them."""

    def __init__(self, max_runs: int, run_ttl_s: float) -> None:
        self._max_runs = max_runs
        self._ttl = run_ttl_s
        self._lock = threading.Lock()
        self._roots: dict[int, RootRun] = {}
        # child run id -> (its root, its retrieval slot or -1)
        self._owner: dict[int, tuple[RootRun, int]] = {}
        # ids of evicted runs, so that their late children are ignored instead of becoming new roots
        self._evicted: OrderedDict[int, None] = OrderedDict()
        # interrupted LangGraph runs waiting for their resume, by thread id
        self._parked: OrderedDict[str, tuple[RootRun, float]] = OrderedDict()
        self._runs_started = 0
        self._runs_resumed = 0
        self._evicted_expired = 0
        self._evicted_overflow = 0
        self._ignored_orphans = 0

    # -- starts -------------------------------------------------------------------------------------

    def start_root(self, record: RootRun) -> None:
        with self._lock:
            self._expire(record.started_at)
            while len(self._roots) >= self._max_runs:
                self._evict(next(iter(self._roots.values())))
                self._evicted_overflow += 1
            if record.thread_id is not None:
                parked = self._parked.pop(record.thread_id, None)
                if parked is not None:
                    self._resume(record, parked[0])
                    self._runs_resumed += 1
            self._roots[record.run_id.int] = record
            self._runs_started += 1

    def start_child(self, run_id: int, parent_run_id: int, retriever: bool) -> bool:
        """Register a run under its parent's root; ``False`` when the parent is not ours."""
        with self._lock:
            root = self._roots.get(parent_run_id)
            if root is None:
                owner = self._owner.get(parent_run_id)
                if owner is None:
                    if parent_run_id in self._evicted:
                        self._remember_evicted(run_id)
                        return True
                    return False
                root = owner[0]
            slot = -1
            if retriever:
                slot = len(root.retrievals)
                root.retrievals.append(None)
            self._owner[run_id] = (root, slot)
            root.children.append(run_id)
            root.open_children.add(run_id)
            return True

    def note_orphan(self) -> None:
        with self._lock:
            self._ignored_orphans += 1

    # -- events inside a run ------------------------------------------------------------------------

    def end_retriever(self, run_id: int, documents: Sequence[Any]) -> None:
        owner = self._owner.get(run_id)
        if owner is not None and owner[1] >= 0:
            # A copy of the list (not of the documents): a later step that reranks or filters the
            # retriever's list in place must not change what was retrieved.
            owner[0].retrievals[owner[1]] = list(documents)
            owner[0].open_children.discard(run_id)

    def end_child(self, run_id: int) -> None:
        """A child run ended (or failed); ``set.discard`` is atomic, so no lock."""
        owner = self._owner.get(run_id)
        if owner is not None:
            owner[0].open_children.discard(run_id)

    def mark_interrupted(self, run_id: int) -> None:
        root = self._roots.get(run_id)
        if root is None:
            owner = self._owner.get(run_id)
            root = owner[0] if owner is not None else None
        if root is not None:
            root.interrupted = True

    # -- ends ---------------------------------------------------------------------------------------

    def finish_root(self, run_id: int) -> RootRun | None:
        """Remove and return the root record if ``run_id`` is a live root (``None`` for anything else)."""
        if run_id not in self._roots:  # the common case: a child ending, no lock taken
            return None
        with self._lock:
            record = self._roots.pop(run_id, None)
            if record is not None:
                self._forget_children(record)
            return record

    def park(self, record: RootRun) -> bool:
        """Keep an interrupted run until its thread resumes; ``False`` when it has no thread id."""
        if record.thread_id is None:
            return False
        with self._lock:
            self._parked.pop(record.thread_id, None)
            self._parked[record.thread_id] = (record, time.monotonic())
            while len(self._parked) > self._max_runs:
                self._parked.popitem(last=False)
                self._evicted_overflow += 1
        return True

    def stats(self) -> RunTableStats:
        with self._lock:
            return RunTableStats(
                runs_started=self._runs_started,
                runs_resumed=self._runs_resumed,
                live_runs=len(self._roots),
                tracked_children=len(self._owner),
                parked_interrupted=len(self._parked),
                evicted_expired=self._evicted_expired,
                evicted_overflow=self._evicted_overflow,
                ignored_orphans=self._ignored_orphans,
            )

    # -- internals (lock held) ----------------------------------------------------------------------

    @staticmethod
    def _resume(record: RootRun, parked: RootRun) -> None:
        """A resumed LangGraph run continues the interrupted one: same question, earlier retrievals first."""
        record.retrievals[:0] = parked.retrievals
        if record.user_input is None:
            record.user_input = parked.user_input
            record.input_note = parked.input_note
        if record.reference is None:
            record.reference = parked.reference
        record.resumed = True

    def _expire(self, now: float) -> None:
        cutoff = now - self._ttl
        # Roots are kept in start order, so the expired ones are at the head.
        while self._roots:
            oldest = next(iter(self._roots.values()))
            if oldest.started_at > cutoff:
                break
            self._evict(oldest)
            self._evicted_expired += 1
        while self._parked:
            _thread, (_record, parked_at) = next(iter(self._parked.items()))
            if parked_at > cutoff:
                break
            self._parked.popitem(last=False)
            self._evicted_expired += 1

    def _evict(self, record: RootRun) -> None:
        del self._roots[record.run_id.int]
        self._forget_children(record)
        self._remember_evicted(record.run_id.int)
        for child in record.children:
            self._remember_evicted(child)

    def _forget_children(self, record: RootRun) -> None:
        owner = self._owner
        for child in record.children:
            owner.pop(child, None)

    def _remember_evicted(self, run_id: int) -> None:
        self._evicted[run_id] = None
        while len(self._evicted) > 4 * self._max_runs:
            self._evicted.popitem(last=False)


# ---------------------------------------------------------------- hand-off

FRAMEWORK = "langchain"
CAPTURE_NOTES_KEY = "ragmetrics.capture_notes"


@dataclass(slots=True, frozen=True)
class CaptureOptions:
    input_key: str | None
    answer_key: str | None
    reference_metadata_key: str
    max_text_chars: int


def build(record: RootRun, outputs: Any, options: CaptureOptions) -> tuple[SampleDraft, Origin]:
    """The sample of a finished run and where it came from.

    Anything that could not be read is left empty (so the metrics that need it come out undetermined)
    and explained in the sample's ``ragmetrics.capture_notes`` metadata.
    """
    notes: list[str] = []
    limit = options.max_text_chars

    user_input = _capped(record.user_input, "user_input", limit, notes)
    if user_input is None:
        notes.append(f"no user input text found in {record.input_note or 'the run input'}; set input_key")
    response = _capped(output_text(outputs, options.answer_key), "response", limit, notes)
    if response is None:
        notes.append(f"no response text found in {describe(outputs)}; set answer_key")
    reference = record.reference
    if reference is not None and not isinstance(reference, str):
        notes.append(f"metadata {options.reference_metadata_key!r} is a {type(reference).__name__}, not a string")
        reference = None
    reference = _capped(reference, "reference", limit, notes)

    contexts = contexts_from_documents(record.retrievals, limit, notes)
    metadata = dict(record.metadata)
    if notes:
        metadata[CAPTURE_NOTES_KEY] = notes
    draft = SampleDraft(
        user_input=user_input or "", contexts=contexts, response=response or "", reference=reference,
        metadata=metadata,
    )
    origin = Origin(
        framework=FRAMEWORK,
        chain_name=record.name,
        run_id=str(record.run_id),
        span=record.span,
        tags=record.tags,
        metadata=dict(record.metadata),
        start_time_ns=record.start_ns,
        end_time_ns=time.time_ns(),
    )
    return draft, origin


def _capped(text: str | None, field: str, limit: int, notes: list[str]) -> str | None:
    """``text`` cut to ``limit`` characters, noting the cut."""
    if text is None or len(text) <= limit:
        return text
    notes.append(f"{field} truncated to {limit} characters")
    return text[:limit]
