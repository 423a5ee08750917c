"""Build the hand-off records (:class:`SampleDraft`, :class:`Origin`) from a finished root run."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ragmetrics_core.online.types import Origin, SampleDraft
from ragmetrics_langchain.extract import contexts_from_documents, describe, output_text
from ragmetrics_langchain.runs import RootRun

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

    user_input = record.user_input
    if user_input is None:
        user_input = ""
        notes.append(f"no user input text found in {record.input_note or 'the run input'}; set input_key")
    elif len(user_input) > limit:
        user_input = user_input[:limit]
        notes.append(f"user_input truncated to {limit} characters")

    response = output_text(outputs, options.answer_key)
    if response is None:
        response = ""
        notes.append(f"no response text found in {describe(outputs)}; set answer_key")
    elif len(response) > limit:
        response = response[:limit]
        notes.append(f"response truncated to {limit} characters")

    reference = record.reference
    if reference is not None:
        if not isinstance(reference, str):
            notes.append(f"metadata {options.reference_metadata_key!r} is a {type(reference).__name__}, not a string")
            reference = None
        elif len(reference) > limit:
            reference = reference[:limit]
            notes.append(f"reference truncated to {limit} characters")

    contexts = contexts_from_documents(record.retrievals, limit, notes)
    metadata = dict(record.metadata)
    if notes:
        metadata[CAPTURE_NOTES_KEY] = notes
    draft = SampleDraft(
        user_input=user_input, contexts=contexts, response=response, reference=reference, metadata=metadata
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
