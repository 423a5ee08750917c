"""What of the user's text may leave the process, and in what shape.

Every text bound for telemetry goes through one :class:`Redactor`: secrets that look like credentials are
masked, then the user's hook runs, then the text is cut to the size cap. A hook that raises fails closed
(the text is replaced, never sent unredacted). Error messages go through the same scrubbing even when
texts are not captured, because exception messages from HTTP clients can quote headers and keys.

Explanations are read from the real result first (:func:`explain_for_telemetry`), and only then is the result
stripped of its evidence (:func:`sanitize_result`): the other order would explain an empty evidence table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from ragmetrics_core.evidence import Evidence
from ragmetrics_core.explain import metric_explanations
from ragmetrics_core.results import ClaimExplanation, EvaluationResult
from ragmetrics_core.scrub import mask_known_secrets, scrub_secrets
from ragmetrics_core.text import repair_surrogates, truncate

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_log = logging.getLogger("ragmetrics.online")

REDACTION_FAILED = "[redaction failed]"

@dataclass(frozen=True, slots=True)
class PrivacyOptions:
    """How user text is treated before any emitter sees it.

    ``capture_texts=False`` keeps questions, responses, contexts, claims and rationales out of telemetry
    entirely (scores, labels, counts and ids still go out). ``redact`` is applied to every captured text.
    ``max_text_chars`` caps each text, ``max_contexts`` the number of contexts and ``max_claims`` the number
    of per-claim explanations carried.
    """

    capture_texts: bool = True
    redact: Callable[[str], str] | None = None
    scrub_secrets: bool = True
    max_text_chars: int = 2000
    max_contexts: int = 20
    max_claims: int = 50
    max_error_chars: int = 500

    def __post_init__(self) -> None:
        for name in ("max_text_chars", "max_contexts", "max_claims", "max_error_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"PrivacyOptions.{name} must be a non-negative int, got {value!r}")
        if self.redact is not None and not callable(self.redact):
            raise TypeError("PrivacyOptions.redact must be a callable taking and returning a str")


class Redactor:
    """Applies :class:`PrivacyOptions` to texts."""

    def __init__(self, options: PrivacyOptions) -> None:
        self.options = options

    def text(self, value: str | None) -> str | None:
        """A captured user text, or ``None`` when texts are not captured."""
        if value is None or not self.options.capture_texts:
            return None
        return self._clean(value, self.options.max_text_chars)

    def error(self, message: str) -> str:
        """Our own error messages: always scrubbed and capped, kept even when texts are not captured (and encodable:
        a judge's exception may quote a text as it got it)."""
        return truncate(scrub_secrets(repair_surrogates(message)), self.options.max_error_chars)

    def label(self, value: str | None) -> str | None:
        """An id or a name (document id, run id, tag, chain name): kept even when texts are not captured, so runs
        can still be found, but with secrets masked (a signed URL as a document id, a key in a tag) and capped, and
        encodable (a file name decoded with ``surrogateescape`` would fail the OTLP export of a whole batch)."""
        if value is None:
            return None
        return truncate(repair_surrogates(self._masked(value)), self.options.max_text_chars)

    def _masked(self, value: object) -> str:
        text = value if isinstance(value, str) else str(value)
        # Secrets the process was given are masked by value even with scrub_secrets=False (which turns off only
        # the guessing by shape, for texts where it masks too much).
        return scrub_secrets(text) if self.options.scrub_secrets else mask_known_secrets(text)

    def _clean(self, value: str, limit: int) -> str:
        text = self._masked(value)
        if self.options.redact is not None:
            try:
                redacted = self.options.redact(text)
            except BaseException as exc:  # a broken hook must not leak the text it failed on (nor end our thread)
                _log.debug("ragmetrics redaction hook raised %s; text withheld", type(exc).__name__)
                return REDACTION_FAILED
            if not isinstance(redacted, str):
                return REDACTION_FAILED
            text = redacted
        return truncate(text, limit)


def explain_for_telemetry(result: EvaluationResult, redactor: Redactor) -> dict[str, str]:
    """Per metric, the line an emitter shows beside the score, read from the *unredacted* result (counts, entities,
    generated questions) with only the texts it quotes redacted; call it before :func:`sanitize_result` drops the
    evidence. A metric's own reason (why it is undetermined) comes first, scrubbed like an error message."""
    lines = metric_explanations(result, quote=redactor.text)
    return {
        metric: redactor.error(entry.reason) if entry.reason else lines.get(metric, "")
        for metric, entry in result.scores.items()
    }


def sanitize_result(result: EvaluationResult, redactor: Redactor) -> EvaluationResult:
    """The result as telemetry may carry it: no evidence matrices, redacted and capped texts."""
    options = redactor.options
    explanations = [_sanitize_claim(e, redactor) for e in result.explanations[: options.max_claims]]
    scores = {
        metric: entry.model_copy(update={"reason": redactor.error(entry.reason)}) if entry.reason else entry
        for metric, entry in result.scores.items()
    }
    return result.model_copy(
        update={
            "scores": scores,
            "explanations": explanations,
            "evidence": Evidence(),
            "error": None if result.error is None else redactor.error(result.error),
            "metadata": {
                key: redactor.error(value) if isinstance(value, str) else value
                for key, value in result.metadata.items()
                if isinstance(value, str | int | float | bool)
            },
        }
    )


def _sanitize_claim(explanation: ClaimExplanation, redactor: Redactor) -> ClaimExplanation:
    text = redactor.text(explanation.text)
    rationale = None if explanation.rationale is None else redactor.text(explanation.rationale)
    return explanation.model_copy(update={"text": text or "", "rationale": rationale})
