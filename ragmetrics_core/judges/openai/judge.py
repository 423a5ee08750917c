"""The LLM judge: evidence for all fifteen metrics in 3 chat calls and 1 embeddings call per sample.

Joint mode (default): one extraction call; one call checking response claims against the reference and
reference claims against the response; one call checking every claim against every chunk, against all
chunks together, and the reference entities against the chunks. Per-chunk mode replaces the last call
by one call per chunk (K + 2 chat calls), for contexts too long to send together. A call whose answer is
unusable is asked once more; verdicts that came back missing are asked for once in a follow-up limited to
those ids; what still fails raises :class:`JudgeError` naming the endpoint and the missing ids.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import math
import operator
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from pydantic import SecretStr

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import (
    CHECK_PARTS,
    EXTRACTION_PARTS,
    Check,
    Claim,
    EvidencePart,
    GeneratedQuestion,
    SkippedPiece,
    Verdict,
)
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
from ragmetrics_core.judges.cache import JudgeCache
from ragmetrics_core.judges.openai.answers import (
    Row,
    TextCheck,
    combine_rows,
    read_chunk_check,
    read_extraction,
    read_text_check,
)
from ragmetrics_core.judges.openai.client import ChatAnswer, ChatAsk, Clock, EndpointError, OpenAIEndpoint, Sleep
from ragmetrics_core.judges.openai.config import OpenAIJudgeConfig
from ragmetrics_core.judges.openai.parsing import (
    Alignment,
    AnswerFormatError,
)
from ragmetrics_core.judges.openai.prompts import (
    Message,
    chunk_check_messages,
    extraction_messages,
    text_check_messages,
    with_retry_note,
)
from ragmetrics_core.judges.openai.schemas import (
    CHUNK_CHECK_SCHEMA,
    EXTRACTION_SCHEMA,
    TEXT_CHECK_SCHEMA,
    ExtractionAnswer,
)
from ragmetrics_core.judges.quota import RequestGate

logger = logging.getLogger("ragmetrics.judges.openai")

T = TypeVar("T")
Part = EvidencePart


class OpenAIJudge:
    """A :class:`~ragmetrics_core.judges.base.Judge` backed by any OpenAI-compatible chat endpoint.

    ``OpenAIJudge(model="gpt-4o-mini")`` reads the rest from the environment (``RAGMETRICS_JUDGE_*``,
    falling back to ``OPENAI_*``); ``OpenAIJudge(OpenAIJudgeConfig(...))`` takes everything explicitly.
    ``sleep`` and ``now`` replace the backoff's clock in tests. ``gate``: a rate limit and budget shared with
    other judges or processes (:mod:`ragmetrics_core.judges.quota`), consulted before every attempt.
    """

    def __init__(
        self,
        config: OpenAIJudgeConfig | None = None,
        *,
        cache: JudgeCache | None = None,
        similarity_fallback: Judge | None = None,
        sleep: Sleep | None = None,
        now: Clock | None = None,
        gate: RequestGate | None = None,
        **overrides: Any,
    ) -> None:
        if config is None:
            config = OpenAIJudgeConfig.from_env(**overrides)
        elif not isinstance(config, OpenAIJudgeConfig):
            raise TypeError(f"config must be an OpenAIJudgeConfig, got {type(config).__name__}")
        elif overrides:
            config = OpenAIJudgeConfig.model_validate({**dict(config), **overrides})
        self.config = config
        if cache is None and config.cache_path is not None:
            cache = JudgeCache(config.cache_path)
        self.cache = cache

        def endpoint(base_url: str, api_key: SecretStr | None) -> OpenAIEndpoint:
            # Chat and embeddings may live at different endpoints; everything else they share.
            return OpenAIEndpoint(
                base_url=base_url,
                api_key=api_key,
                timeout_s=config.timeout_s,
                concurrency=config.concurrency,
                retry=config.retry,
                cache=cache,
                default_headers=config.default_headers,
                default_query=config.default_query,
                sleep=sleep,
                now=now,
                gate=gate,
                sample_timeout_s=config.sample_deadline_s,
            )

        self._chat = endpoint(config.base_url, config.api_key)
        self._embeddings: OpenAIEndpoint | None = None
        if config.embedding_model is not None:
            embedding_url = config.embedding_base_url or config.base_url
            embedding_key = config.embedding_api_key or config.api_key
            same = embedding_url == config.base_url and embedding_key == config.api_key
            # One endpoint, one client and connection pool, when embeddings come from the chat endpoint.
            self._embeddings = self._chat if same else endpoint(embedding_url, embedding_key)
        self._similarity_fallback = similarity_fallback
        self._params: dict[str, Any] = {"temperature": config.temperature, "max_tokens": config.max_tokens}
        if config.seed is not None:
            self._params["seed"] = config.seed
        self._usage = Usage()
        self._usage_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIJudge(model={self.config.model!r}, endpoint={self.config.endpoint!r})"

    async def aclose(self) -> None:
        """Close the judge's connections on the running loop (they also close when that loop shuts down)."""
        await self._chat.aclose()
        if self._embeddings is not None and self._embeddings is not self._chat:
            await self._embeddings.aclose()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def usage(self) -> Usage:
        """Everything this judge has spent so far, across samples (failed calls included)."""
        with self._usage_lock:
            return self._usage

    # -- extraction -------------------------------------------------------------------------------------

    async def extract(self, request: ExtractionRequest) -> Extraction:
        want = request.want & EXTRACTION_PARTS
        response = request.response.strip()
        reference = (request.reference or "").strip()
        sources = {
            Part.RESPONSE_CLAIMS: ("response_claims", response),
            Part.REFERENCE_CLAIMS: ("reference_claims", reference),
            Part.REFERENCE_ENTITIES: ("reference_entities", reference),
            Part.GENERATED_QUESTIONS: ("questions", response),
        }
        empty: dict[str, Any] = {}
        tasks: list[str] = []
        for part in sorted(want):
            task, source = sources[part]
            if source:
                tasks.append(task)
            else:
                empty[part.value] = []
        if not tasks:
            return Extraction(**empty)
        messages = extraction_messages(
            user_input=request.user_input,
            response=response,
            reference=reference,
            tasks=tasks,
            n_questions=request.n_questions,
        )
        answer, usage = await self._ask(
            "extraction",
            messages,
            "extraction",
            EXTRACTION_SCHEMA,
            lambda reply: read_extraction(reply, tasks),
        )
        return Extraction(**empty, **_extracted(answer, tasks, request.n_questions), usage=usage)

    # -- checking ---------------------------------------------------------------------------------------

    async def check(self, request: CheckRequest) -> CheckResult:
        """Plan what to ask (claims against a text; claims and entities against the chunks), ask both at once, and
        read the verdicts into the evidence parts the request wants."""
        asks = _CheckAsks.of(request)
        text_job = self._check_texts(asks.response_text, asks.reference_text, asks.text_claims)
        chunk_job = self._check_chunks(asks.chunks, asks.chunk_claims, asks.entities)
        (text_verdicts, text_usage), (rows, found, chunk_usage) = await _all_or_charged(text_job, chunk_job)
        return asks.result(text_verdicts, rows, found, text_usage + chunk_usage)

    async def _check_texts(
        self, response: str, reference: str, claims: list[tuple[str, str, str]]
    ) -> tuple[dict[str, TextCheck], Usage]:
        if not claims:
            return {}, Usage()
        by_id = {claim[0]: claim for claim in claims}

        def build(claim_ids: Sequence[str], _: Sequence[str]) -> list[Message]:
            return text_check_messages(response=response, reference=reference, claims=[by_id[i] for i in claim_ids])

        verdicts, _, usage = await self._ask_aligned(
            "reference/response check", build, "text_check", TEXT_CHECK_SCHEMA, read_text_check, list(by_id), []
        )
        return verdicts, usage

    async def _check_chunks(
        self,
        chunks: list[tuple[str, str]],
        claims: list[tuple[str, str]],
        entities: list[tuple[str, str]],
    ) -> tuple[dict[str, Row], dict[str, bool], Usage]:
        """Claims and entities are (id, text) pairs; one call for all chunks, or one per chunk."""
        if not claims and not entities:
            return {}, {}, Usage()
        claim_texts = dict(claims)
        entity_texts = dict(entities)
        entity_ids = list(entity_texts)

        async def check_against(
            subset: list[tuple[str, str]],
        ) -> tuple[dict[str, Row], dict[str, bool], Usage]:
            def build(claim_ids: Sequence[str], wanted_entities: Sequence[str]) -> list[Message]:
                return chunk_check_messages(
                    chunks=subset,
                    claims=[(i, claim_texts[i]) for i in claim_ids],
                    entities=[(e, entity_texts[e]) for e in wanted_entities],
                )

            chunk_ids = [chunk_id for chunk_id, _ in subset]
            label = "chunk check" if len(subset) > 1 else f"chunk check ({chunk_ids[0]})"
            return await self._ask_aligned(
                label,
                build,
                "chunk_check",
                CHUNK_CHECK_SCHEMA,
                lambda reply, c, e: read_chunk_check(reply, c, e, chunk_ids),
                list(claim_texts),
                entity_ids,
            )

        if self.config.check_mode == "joint" or len(chunks) == 1:
            return await check_against(chunks)
        parts = await _all_or_charged(*(check_against([chunk]) for chunk in chunks))
        usage = sum((part[2] for part in parts), Usage())
        rows = {claim_id: combine_rows([part[0][claim_id] for part in parts]) for claim_id in claim_texts}
        found = {entity_id: any(part[1][entity_id] for part in parts) for entity_id in entity_ids}
        return rows, found, usage

    # -- similarity -------------------------------------------------------------------------------------

    async def similarity(self, question: str, candidates: list[str]) -> SimilarityResult:
        """Cosine of embeddings (one request for the question and all candidates), or the lexical fallback."""
        if not candidates:
            return SimilarityResult(similarities=[])
        if self._embeddings is None or self.config.embedding_model is None:
            return await self._fallback().similarity(question, candidates)
        model = self.config.embedding_model
        try:
            vectors, usage = await self._embeddings.embed(model=model, texts=[question, *candidates])
        except EndpointError as error:
            self._record(error.usage)
            raise
        if self.config.prices is not None and usage.cache_hits == 0:
            usage = usage.model_copy(update={"cost_usd": self.config.prices.embedding_cost(model, usage.prompt_tokens)})
        self._record(usage)
        return SimilarityResult(similarities=[_cosine(vectors[0], vector) for vector in vectors[1:]], usage=usage)

    def _fallback(self) -> Judge:
        if self._similarity_fallback is None:
            # Imported on first use: the embedded judge is the offline default and may load resources.
            module = importlib.import_module("ragmetrics_core.judges.embedded")
            self._similarity_fallback = cast(Judge, module.EmbeddedJudge())
        return self._similarity_fallback

    # -- calls ------------------------------------------------------------------------------------------

    async def _ask(
        self,
        what: str,
        messages: list[Message],
        schema_name: str,
        schema: dict[str, Any],
        read: Callable[[ChatAnswer], T],
    ) -> tuple[T, Usage]:
        """One chat call; an unusable answer is asked once more with a note saying what was wrong."""
        config = self.config
        ask = ChatAsk(config.model, messages, self._params, config.structured_output, schema_name, schema)
        spent = Usage()
        for attempt in (1, 2):
            try:
                value, usage = await self._chat.chat_json(ask, read)
                return value, self._record(self._priced(usage if attempt == 1 else spent + usage))
            except EndpointError as error:
                error.usage = self._record(self._priced(spent + error.usage))  # all this ask spent, on the error
                raise
            except AnswerFormatError as error:
                spent = spent + error.usage
                reason = error.reason
            if attempt == 1:
                logger.warning(
                    "%s (%s): unusable %s answer (%s); asking once more",
                    self.config.endpoint,
                    self.config.model,
                    what,
                    reason,
                )
                ask = replace(ask, messages=with_retry_note(messages, reason))
        raise JudgeError(
            f"{self.config.endpoint} ({self.config.model}) gave no usable {what} answer in 2 tries: {reason}",
            usage=self._record(self._priced(spent)),
        )

    async def _ask_aligned(
        self,
        what: str,
        build: Callable[[Sequence[str], Sequence[str]], list[Message]],
        schema_name: str,
        schema: dict[str, Any],
        read: Callable[[ChatAnswer, Sequence[str], Sequence[str]], tuple[Alignment[T], Alignment[bool]]],
        claim_ids: list[str],
        entity_ids: list[str],
    ) -> tuple[dict[str, T], dict[str, bool], Usage]:
        """Ask for verdicts by id; ids missing from the answer are asked for once more, alone."""
        (claims, entities), usage = await self._ask(
            what,
            build(claim_ids, entity_ids),
            schema_name,
            schema,
            lambda reply: read(reply, claim_ids, entity_ids),
        )
        found_claims, found_entities = dict(claims.items), dict(entities.items)
        if not claims.missing and not entities.missing:
            return found_claims, found_entities, usage
        missing_claims, missing_entities = claims.missing, entities.missing
        logger.warning(
            "%s (%s): %s answer lacked %s; asking for those alone (%s)",
            self.config.endpoint,
            self.config.model,
            what,
            ", ".join(missing_claims + missing_entities),
            "; ".join(claims.notes + entities.notes) or "no notes",
        )
        (more_claims, more_entities), more_usage = await self._ask(
            f"{what} follow-up",
            build(missing_claims, missing_entities),
            schema_name,
            schema,
            lambda reply: read(reply, missing_claims, missing_entities),
        )
        found_claims.update(more_claims.items)
        found_entities.update(more_entities.items)
        still_missing = more_claims.missing + more_entities.missing
        if still_missing:
            raise JudgeError(
                f"{self.config.endpoint} ({self.config.model}): the {what} answer had no usable verdict for "
                f"{', '.join(still_missing)}, even when asked for them alone"
            )
        return found_claims, found_entities, usage + more_usage

    def _priced(self, usage: Usage) -> Usage:
        if self.config.prices is None:
            return usage
        cost = self.config.prices.chat_cost(self.config.model, usage.prompt_tokens, usage.completion_tokens)
        return usage.model_copy(update={"cost_usd": cost})

    def _record(self, usage: Usage) -> Usage:
        """Add ``usage`` to the judge's running total (every call is recorded once, where it is made)."""
        with self._usage_lock:
            self._usage = self._usage + usage
        return usage


def _extracted(answer: ExtractionAnswer, tasks: Sequence[str], n_questions: int) -> dict[str, Any]:
    """The parts an extraction answer gives for the tasks asked, and what it set aside from the texts asked
    about (counted nowhere; explanations show it)."""
    found: dict[str, Any] = {}
    if "response_claims" in tasks:
        found["response_claims"] = [Claim(text=text) for text in _distinct(answer["response_claims"])]
    if "reference_claims" in tasks:
        found["reference_claims"] = [Claim(text=text) for text in _distinct(answer["reference_claims"])]
    if "reference_entities" in tasks:
        found["reference_entities"] = _distinct(answer["reference_entities"])
    if "questions" in tasks:
        found["generated_questions"] = [
            GeneratedQuestion(text=item["question"].strip(), noncommittal=item["noncommittal"])
            for item in answer["questions"][:n_questions]
            if item["question"].strip()
        ]
    sources = {source for source in ("response", "reference") if f"{source}_claims" in tasks}
    if sources:
        found["skipped"] = [
            SkippedPiece(source=piece["source"], text=piece["text"].strip(), reason=piece["reason"].strip())
            for piece in answer.get("set_aside", [])
            if piece["source"] in sources and piece["text"].strip() and piece["reason"].strip()
        ]
    return found


def _distinct(texts: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for text in texts:
        cleaned = text.strip()
        if cleaned and cleaned not in seen:
            seen.add(cleaned)
            kept.append(cleaned)
    return kept


def _cosine(left: Sequence[float], right: Sequence[float]) -> float:
    dot = sum(map(operator.mul, left, right))  # zip's shorter length, in C
    norm = math.hypot(*left) * math.hypot(*right)
    return 0.0 if norm == 0 else max(-1.0, min(1.0, dot / norm))


async def _all_or_charged(*jobs: Awaitable[Any]) -> list[Any]:
    """``asyncio.gather`` of concurrent calls whose results each end in a :class:`Usage`; when one fails, its
    ``JudgeError`` is raised carrying what every call spent, so the sample is charged for the calls that did
    answer too."""
    outcomes = await asyncio.gather(*jobs, return_exceptions=True)
    failure = next((outcome for outcome in outcomes if isinstance(outcome, BaseException)), None)
    if failure is None:
        return list(outcomes)
    if isinstance(failure, JudgeError):
        for outcome in outcomes:
            if isinstance(outcome, JudgeError) and outcome is not failure:
                failure.usage = failure.usage + outcome.usage
            elif isinstance(outcome, tuple) and outcome and isinstance(outcome[-1], Usage):
                failure.usage = failure.usage + outcome[-1]
    raise failure


@dataclass(frozen=True, slots=True)
class _CheckAsks:
    """One check request as the endpoint is asked it: claim and chunk ids (``R1``, ``G1``, ``E1``, ``C1``), the
    claims to check against the response or reference text, and the claims and entities to check against the
    chunks; then :meth:`result` reads the answers into the evidence parts the request wants."""

    want: frozenset[Part]
    response_ids: list[str]
    reference_ids: list[str]
    entity_ids: list[str]
    chunk_ids: list[str]
    response_text: str
    reference_text: str
    text_claims: list[tuple[str, str, str]]
    chunks: list[tuple[str, str]]
    chunk_claims: list[tuple[str, str]]
    entities: list[tuple[str, str]]

    @classmethod
    def of(cls, request: CheckRequest) -> _CheckAsks:
        want = request.want & CHECK_PARTS
        response_ids = [f"R{index + 1}" for index in range(len(request.response_claims))]
        reference_ids = [f"G{index + 1}" for index in range(len(request.reference_claims))]
        entity_ids = [f"E{index + 1}" for index in range(len(request.reference_entities))]
        chunk_ids = [f"C{index + 1}" for index in range(len(request.contexts))]
        texts = {
            **dict(zip(response_ids, (claim.text for claim in request.response_claims), strict=True)),
            **dict(zip(reference_ids, (claim.text for claim in request.reference_claims), strict=True)),
        }
        response_text = request.response.strip()
        reference_text = (request.reference or "").strip()
        text_claims = [
            (claim_id, texts[claim_id], premise)
            for part, claim_ids, premise, text in (
                (Part.RESPONSE_VS_REFERENCE, response_ids, "reference", reference_text),
                (Part.REFERENCE_VS_RESPONSE, reference_ids, "response", response_text),
            )
            if part in want and text
            for claim_id in claim_ids
        ]
        chunks = list(zip(chunk_ids, request.contexts, strict=True))
        chunk_claim_ids = [
            claim_id
            for parts, claim_ids in (
                ({Part.RESPONSE_VS_CHUNKS, Part.RESPONSE_VS_CONTEXTS}, response_ids),
                ({Part.REFERENCE_VS_CHUNKS, Part.REFERENCE_VS_CONTEXTS}, reference_ids),
            )
            if chunks and want & parts
            for claim_id in claim_ids
        ]
        entities = list(zip(entity_ids, request.reference_entities, strict=True))
        return cls(
            want=frozenset(want),
            response_ids=response_ids,
            reference_ids=reference_ids,
            entity_ids=entity_ids,
            chunk_ids=chunk_ids,
            response_text=response_text,
            reference_text=reference_text,
            text_claims=text_claims,
            chunks=chunks,
            chunk_claims=[(claim_id, texts[claim_id]) for claim_id in chunk_claim_ids],
            entities=entities if chunks and Part.ENTITIES_IN_CONTEXTS in want else [],
        )

    def result(
        self, text_verdicts: dict[str, TextCheck], rows: dict[str, Row], found: dict[str, bool], usage: Usage
    ) -> CheckResult:
        check = _CheckMaker()
        parts: dict[Part, Callable[[], object]] = {
            Part.RESPONSE_VS_REFERENCE: lambda: _against_text(
                check, text_verdicts, self.response_ids, self.reference_text, "no reference was given"
            ),
            Part.REFERENCE_VS_RESPONSE: lambda: _against_text(
                check, text_verdicts, self.reference_ids, self.response_text, "the response is empty"
            ),
            Part.RESPONSE_VS_CHUNKS: lambda: self._per_chunk(check, rows, self.response_ids),
            Part.REFERENCE_VS_CHUNKS: lambda: self._per_chunk(check, rows, self.reference_ids),
            Part.RESPONSE_VS_CONTEXTS: lambda: self._together(check, rows, self.response_ids),
            Part.REFERENCE_VS_CONTEXTS: lambda: self._together(check, rows, self.reference_ids),
            Part.ENTITIES_IN_CONTEXTS: lambda: [found.get(e, False) for e in self.entity_ids],
        }
        result = {part.value: read() for part, read in parts.items() if part in self.want}
        return CheckResult(**result, usage=usage)

    def _per_chunk(self, check: _CheckMaker, rows: dict[str, Row], claim_ids: list[str]) -> list[list[Check]]:
        if not self.chunks:
            return [[] for _ in claim_ids]
        table = []
        for claim_id in claim_ids:
            row = rows[claim_id]
            cells, rationale = row.chunks, row.rationale or None  # a neutral cell has no rationale of its own
            table.append([check(cells[c], None if cells[c] is Verdict.NEUTRAL else rationale) for c in self.chunk_ids])
        return table

    def _together(self, check: _CheckMaker, rows: dict[str, Row], claim_ids: list[str]) -> list[Check]:
        if not self.chunks:
            return [check(Verdict.NEUTRAL, "no contexts were retrieved") for _ in claim_ids]
        return [check(rows[i].together, rows[i].rationale or None) for i in claim_ids]


_new_check = builder(Check)


class _CheckMaker:
    """``Check`` objects by (verdict, rationale), each built once per answer: a chunk check repeats a few of them
    many times (a claim's neutral cells), and a check is frozen, so one object serves every cell that says it."""

    def __init__(self) -> None:
        self._made: dict[tuple[Verdict, str | None], Check] = {}

    def __call__(self, verdict: Verdict, rationale: str | None) -> Check:
        made = self._made.get((verdict, rationale))
        if made is None:
            made = self._made[verdict, rationale] = _new_check({"verdict": verdict, "rationale": rationale})
        return made


def _against_text(
    check: _CheckMaker, verdicts: dict[str, TextCheck], claim_ids: list[str], premise: str, missing_premise: str
) -> list[Check]:
    if not premise:
        return [check(Verdict.NEUTRAL, missing_premise) for _ in claim_ids]
    return [check(verdicts[i].verdict, verdicts[i].rationale or None) for i in claim_ids]
