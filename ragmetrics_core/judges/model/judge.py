"""The model judge: claims checked by an NLI / fact-checking model on ONNX Runtime.

Claims, reference entities and generated questions come from another judge (the embedded one by default, an LLM
judge where given as ``extractor``): an NLI model reads pairs, it does not write. Checking fills every verdict
matrix from the model: each premise (a chunk, the reference, the response) is cut into sentence windows
(:mod:`.windows`), each claim is paired with the windows that share a content term with it, all pairs of the
sample go to the model in one submission (batched with other samples' on the model's thread), and a claim's
verdict against a premise is read from its best window. Which entities the contexts hold is the embedded judge's
lexical check.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ragmetrics_core.budget import checkpoint, metered
from ragmetrics_core.evidence import Check, EvidencePart, Verdict
from ragmetrics_core.judges.base import (
    CheckRequest,
    CheckResult,
    Extraction,
    ExtractionRequest,
    Judge,
    JudgeError,
    SimilarityResult,
    Usage,
)
from ragmetrics_core.judges.model.config import ModelJudgeConfig
from ragmetrics_core.judges.model.embedded_parts import EmbeddedJudge, complete_answer, content_terms
from ragmetrics_core.judges.model.runner import NliModel, Probabilities
from ragmetrics_core.judges.model.windows import Window, pieces, windows

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

P = EvidencePart
MIN_WINDOW_TOKENS = 4
"""A window smaller than this could not hold a sentence: the model's input is too short for its claims."""

@dataclass(slots=True)
class ModelStats:
    """What a judge's checks cost in model inputs: ``pairs_run`` went to the model; ``pairs_screened_out`` were
    (claim, window) pairs without a shared content term, never run; ``pairs_over_cap`` exceeded
    ``max_windows_per_chunk``; ``pairs_shared`` were the same (window, claim) met again in one sample and run once."""

    checks: int = 0
    pairs_run: int = 0
    pairs_screened_out: int = 0
    pairs_over_cap: int = 0
    pairs_shared: int = 0

    @property
    def screened_share(self) -> float:
        considered = self.pairs_run + self.pairs_screened_out + self.pairs_over_cap + self.pairs_shared
        return self.pairs_screened_out / considered if considered else 0.0


_models: dict[ModelJudgeConfig, NliModel] = {}
_loading = threading.Lock()


def load_model(config: ModelJudgeConfig) -> NliModel:
    """The model of ``config``, loaded once per process (every judge built on the same settings shares it: a Ray
    worker building its evaluator, several evaluators in one app)."""
    with _loading:
        model = _models.get(config)
        if model is None:
            model = _models[config] = NliModel(config)
        return model


class ModelJudge:
    """Verdicts from a local model; claims from ``extractor`` (default: the embedded judge).

    Construction loads the model and runs one pair through it, so a missing file, a tokenizer that does not fit
    the graph, or labels that cannot be mapped fail here with one clear
    :class:`~ragmetrics_core.judges.model.files.ModelLoadError`.
    """

    def __init__(self, config: ModelJudgeConfig | str, *, extractor: Judge | None = None) -> None:
        self.config = ModelJudgeConfig(model=config) if isinstance(config, str) else config
        self.model = load_model(self.config)
        self.extractor: Judge = extractor if extractor is not None else EmbeddedJudge()
        self._lexical = EmbeddedJudge()
        self.stats = ModelStats()
        self._stats_lock = threading.Lock()
        suffix = "" if isinstance(self.extractor, EmbeddedJudge) else f"+{self.extractor.name}"
        self._name = f"model:{self.model.name}{suffix}"

    @property
    def name(self) -> str:
        """``model:<name>`` (claims by the embedded judge), or ``model:<name>+<extractor>``."""
        return self._name

    async def extract(self, request: ExtractionRequest) -> Extraction:
        return await self.extractor.extract(request)

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        return await self.extractor.similarity(question, candidates)

    async def check(self, request: CheckRequest) -> CheckResult:
        if not isinstance(request, CheckRequest):
            raise TypeError(f"check expects a CheckRequest, got {type(request).__name__}")
        started = time.perf_counter()
        with metered():
            plan = _Plan(self.model, request)
            encodings = self.model.encode(plan.pairs)
        with self._stats_lock:
            self.stats.checks += 1
            self.stats.pairs_run += len(plan.pairs)
            self.stats.pairs_screened_out += plan.screened_out
            self.stats.pairs_over_cap += plan.over_cap
            self.stats.pairs_shared += plan.shared
        if encodings:
            try:
                probabilities = await asyncio.wrap_future(self.model.submit(encodings))
            except Exception as error:
                raise JudgeError(f"model {self.model.name} failed: {type(error).__name__}: {error}") from None
        else:
            probabilities = None
        with metered():
            result = plan.result(probabilities)
        usage = Usage(latency_s=time.perf_counter() - started)
        if P.ENTITIES_IN_CONTEXTS in request.want:
            entities_only = request.model_copy(update={"want": frozenset({P.ENTITIES_IN_CONTEXTS})})
            lexical = await self._lexical.check(entities_only)
            result.entities_in_contexts = lexical.entities_in_contexts
        result.usage = usage
        return result


@dataclass(slots=True)
class _Cell:
    """One claim against one premise: the windows chosen for the model, and what the screen left out."""

    claim: int
    premise: int
    pairs: list[int]
    """Indices into the plan's pairs, one per window judged."""
    windows: list[int]
    """The windows judged (numbers in the premise's windows), in the order of ``pairs``."""
    skipped: int
    capped: bool
    empty: bool = False
    """The claim has no content term: nothing to check, the model is not asked."""


@dataclass(slots=True)
class _Premise:
    label: str
    windows: list[Window]


class _Plan:
    """The pairs a check request needs (deduplicated), and how to read verdicts back from their probabilities."""

    def __init__(self, model: NliModel, request: CheckRequest) -> None:
        self.model = model
        self.config = model.config
        self.request = request
        want = request.want
        response = [claim.text for claim in request.response_claims]
        reference = [claim.text for claim in request.reference_claims]
        self.claims = response + reference
        self.claim_terms = [frozenset(content_terms(text)) for text in self.claims]
        self.premises: list[_Premise] = []
        self.pairs: list[tuple[str, str]] = []
        self._pair_index: dict[tuple[str, str], int] = {}
        self.screened_out = self.over_cap = self.shared = 0
        self.budget = self._budget()
        self.cells: dict[EvidencePart, list[list[_Cell]]] = {}
        response_ids = range(len(response))
        reference_ids = range(len(response), len(self.claims))
        chunks: list[int] | None = None
        if want & {P.RESPONSE_VS_CHUNKS, P.REFERENCE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS, P.REFERENCE_VS_CONTEXTS}:
            chunks = [self._premise(text, f"chunk {number + 1}") for number, text in enumerate(request.contexts)]
        if P.RESPONSE_VS_REFERENCE in want:
            premise = self._premise(complete_answer(request.user_input, request.reference or ""), "reference")
            self.cells[P.RESPONSE_VS_REFERENCE] = [[self._cell(claim, premise)] for claim in response_ids]
        if P.REFERENCE_VS_RESPONSE in want:
            premise = self._premise(complete_answer(request.user_input, request.response), "response")
            self.cells[P.REFERENCE_VS_RESPONSE] = [[self._cell(claim, premise)] for claim in reference_ids]
        if chunks is not None:
            if want & {P.RESPONSE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS}:
                self.cells[P.RESPONSE_VS_CHUNKS] = [[self._cell(c, p) for p in chunks] for c in response_ids]
            if want & {P.REFERENCE_VS_CHUNKS, P.REFERENCE_VS_CONTEXTS}:
                self.cells[P.REFERENCE_VS_CHUNKS] = [[self._cell(c, p) for p in chunks] for c in reference_ids]
        cap = self.config.max_pairs_per_sample
        if len(self.pairs) > cap:
            raise JudgeError(
                f"the sample needs {len(self.pairs)} model inputs (claims x windows), over the cap of {cap} "
                "(max_pairs_per_sample): its checks are left undetermined"
            )

    def _budget(self) -> int:
        """Premise tokens per window: what the input holds besides the special tokens and the longest claim."""
        longest = max(self.model.token_counts(self.claims), default=0)
        budget = self.model.max_length - self.model.overhead - min(longest, self.config.max_claim_tokens)
        if budget < MIN_WINDOW_TOKENS:
            raise JudgeError(
                f"the model's input ({self.model.max_length} tokens) leaves {budget} for the premise next to a "
                f"claim of {longest} tokens: too short to judge"
            )
        return budget

    def _premise(self, text: str, label: str) -> int:
        checkpoint()
        units = pieces(text, self.model.token_counts, self.model.cut, self.budget)
        self.premises.append(_Premise(label, windows(units, self.budget, self.config.window_overlap)))
        return len(self.premises) - 1

    def _cell(self, claim: int, premise: int) -> _Cell:
        every = self.premises[premise].windows
        terms = self.claim_terms[claim]
        if not terms:  # nothing to check (blank, punctuation, only function words): as the embedded judge says
            return _Cell(claim=claim, premise=premise, pairs=[], windows=[], skipped=0, capped=False, empty=True)
        screen = self.config.skip_unrelated
        related = [number for number, window in enumerate(every) if not screen or window.terms & terms]
        limit = self.config.max_windows_per_chunk
        chosen = related
        if len(related) > limit:  # keep the windows sharing most terms with the claim, in text order
            chosen = sorted(sorted(related, key=lambda number: -len(every[number].terms & terms))[:limit])
        claim_text = self.claims[claim]
        self.screened_out += len(every) - len(related)
        self.over_cap += len(related) - len(chosen)
        return _Cell(
            claim=claim, premise=premise, pairs=[self._pair(every[number].text, claim_text) for number in chosen],
            windows=chosen, skipped=len(every) - len(related), capped=len(chosen) < len(related),
        )

    def _pair(self, premise: str, claim: str) -> int:
        key = (premise, claim)
        found = self._pair_index.get(key)
        if found is not None:
            self.shared += 1
        else:
            found = self._pair_index[key] = len(self.pairs)
            self.pairs.append(key)
        return found

    # ------------------------------------------------------------------ verdicts

    def result(self, probabilities: Probabilities | None) -> CheckResult:
        result = CheckResult()
        want = self.request.want
        for part in (P.RESPONSE_VS_REFERENCE, P.REFERENCE_VS_RESPONSE):
            if part in want:
                setattr(result, part.value, [self._verdict(row[0], probabilities) for row in self.cells[part]])
        for rows, joint in ((P.RESPONSE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS), (P.REFERENCE_VS_CHUNKS,
                                                                             P.REFERENCE_VS_CONTEXTS)):
            if rows not in self.cells:
                continue
            checkpoint()
            matrix = [[self._verdict(cell, probabilities) for cell in row] for row in self.cells[rows]]
            if rows in want:
                setattr(result, rows.value, matrix)
            if joint in want:
                setattr(result, joint.value, [_best_of_chunks(row) for row in matrix])
        return result

    def _verdict(self, cell: _Cell, probabilities: Probabilities | None) -> Check:
        premise = self.premises[cell.premise]
        label = premise.label
        if not premise.windows:
            return Check(verdict=Verdict.NEUTRAL, confidence=1.0, support=0.0, rationale=f"{label} is empty")
        if cell.empty:
            return Check(verdict=Verdict.NEUTRAL, confidence=0.5, support=0.0,
                         rationale=f"claim has no content to check against {label} ({self._tag()})")
        if not cell.pairs or probabilities is None:
            return Check(verdict=Verdict.NEUTRAL, confidence=1.0, support=0.0,
                         rationale=f"no content term of the claim in {label}: model not run ({self._tag()})")
        rows = [(number, [round(float(value), 4) for value in probabilities[pair]])
                for number, pair in zip(cell.windows, cell.pairs, strict=True)]
        best_window, best = max(rows, key=lambda row: row[1][0])
        entail = best[0]
        contradicting = [row for row in rows if row[1][2] > row[1][0] and row[1][2] > row[1][1]]
        notes = []
        confidence: float | None
        if cell.skipped:
            notes.append(f"{cell.skipped} window(s) without a content term of the claim not run")
        if entail >= 0.5:
            verdict, window, values, confidence = Verdict.ENTAILED, best_window, best, entail
        elif contradicting:
            window, values = max(contradicting, key=lambda row: row[1][2])
            verdict, confidence = Verdict.CONTRADICTED, values[2]
        else:
            verdict, window, values, confidence = Verdict.NEUTRAL, best_window, best, round(1.0 - entail, 4)
        if cell.capped and verdict is not Verdict.ENTAILED:
            confidence = None
            notes.append(f"undetermined beyond the cap: {len(cell.windows)} of the windows sharing terms with the "
                         f"claim judged (max_windows_per_chunk)")
        where = _where(premise.windows, window)
        rationale = f"{label}, {where}: {self._probabilities(values)} ({self._tag()})"
        if notes:
            rationale += "; " + "; ".join(notes)
        return Check(verdict=verdict, confidence=confidence, support=entail, rationale=rationale)

    def _probabilities(self, values: Sequence[float]) -> str:
        labels = self.model.labels
        shown = [f"P({labels.names[labels.entail]}) {values[0]:.2f}"]
        if labels.contradict is not None:
            shown.append(f"P({labels.names[labels.contradict]}) {values[2]:.2f}")
        return ", ".join(shown)

    def _tag(self) -> str:
        return f"model {self.model.name}"


def _where(windows: Sequence[Window], number: int) -> str:
    window = windows[number]
    sentences = (f"sentence {window.first + 1}" if window.first == window.last
                 else f"sentences {window.first + 1}-{window.last + 1}")
    return f"window {number + 1} of {len(windows)} ({sentences})"


def _best_of_chunks(row: Sequence[Check]) -> Check:
    """All chunks together: the chunk that supports the claim best; else one that contradicts it; else the
    strongest neutral. (Windows do not span chunks: a claim resting on two chunks at once is not joined.)"""
    if not row:
        return Check(verdict=Verdict.NEUTRAL, confidence=1.0, support=0.0, rationale="no contexts")
    numbered = list(enumerate(row))
    chunk, best = max(numbered, key=lambda item: item[1].strength)
    if not best.entailed:
        contradicting = [item for item in numbered if item[1].verdict is Verdict.CONTRADICTED]
        if contradicting:
            chunk, best = max(contradicting, key=lambda item: item[1].confidence or 0.0)
    rationale = best.rationale or ""
    if not rationale.startswith(f"chunk {chunk + 1}"):
        rationale = f"chunk {chunk + 1}: {rationale}"
    return best.model_copy(update={"rationale": rationale})
