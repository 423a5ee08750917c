"""What an evaluation returns: scores with reasons and labels, per-claim explanations, judge usage."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragmetrics_core.evidence import Evidence, Verdict


class Usage(BaseModel):
    """What judging cost: LLM calls, embeddings calls, tokens, wall time and (with a price table) money."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    embedding_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost_usd is None and other.cost_usd is None
            else (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        )
        return Usage(
            calls=self.calls + other.calls,
            embedding_calls=self.embedding_calls + other.embedding_calls,
            cache_hits=self.cache_hits + other.cache_hits,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=cost,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def _is_none(value: object) -> bool:
    return value is None


class Direction(StrEnum):
    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"


class MetricScore(BaseModel):
    """One metric on one sample. ``score is None`` means undetermined, and ``reason`` says why."""

    model_config = ConfigDict(frozen=True)

    metric: str
    score: float | None
    direction: Direction
    reason: str = ""
    label: str | None = Field(default=None, description="'pass' or 'fail' against the configured threshold.")
    threshold: float | None = None
    probability: float | None = Field(
        default=None,
        exclude_if=_is_none,  # uncalibrated results serialise exactly as before the field existed
        description="P(the user's label says yes | this score), from a calibration fitted on the user's labels "
        "(ragmetrics calibrate); None without a calibration for this metric, or when the score is undetermined.",
    )

    @property
    def determined(self) -> bool:
        return self.score is not None


class ClaimExplanation(BaseModel):
    """Why one claim counted the way it did: its verdicts against the reference and the chunks."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="'response' or 'reference'.")
    index: int
    text: str
    against_reference: Verdict | None = Field(
        default=None, description="For response claims: the reference's verdict; for reference claims: the response's."
    )
    supporting_chunks: list[int] = Field(default_factory=list)
    contradicting_chunks: list[int] = Field(default_factory=list)
    supported_by_contexts_jointly: bool | None = None
    grounding: float | None = Field(
        default=None,
        description="How strongly the contexts support the claim: the best graded support of a chunk or of all "
        "chunks together (1/0 from plain verdicts); graded scores count the claim by it.",
    )
    category: str | None = Field(
        default=None,
        description="For response claims: correct_grounded, correct_self_knowledge, noise_relevant, "
        "noise_irrelevant or hallucination.",
    )
    category_shares: dict[str, float] | None = Field(
        default=None,
        description="For response claims: how graded scores count the claim, as the share of the judge's strictness "
        "levels at which it falls in each category (they sum to 1; plain verdicts put 1 on `category`). Each "
        "generator metric is the mean of its categories' shares over the claims.",
    )
    rationale: str | None = None
    set_aside: str | None = Field(
        default=None,
        description="Set when the judge read this piece of the text as no claim, and why (a greeting, an offer of "
        "help, a remark about the sources, a hedge): it counts in no metric.",
    )


class EvaluationResult(BaseModel):
    """All requested metrics for one sample, with the evidence they were read from."""

    sample_id: str | None = None
    judge: str
    scores: dict[str, MetricScore]
    explanations: list[ClaimExplanation] = Field(default_factory=list)
    evidence: Evidence = Field(default_factory=Evidence)
    usage: Usage = Field(default_factory=Usage)
    error: str | None = Field(default=None, description="Set when the whole evaluation failed.")
    per_judge: dict[str, dict[str, float | None]] | None = Field(
        default=None, description="With an ensemble judge: each member's scores."
    )
    spread: dict[str, float] | None = Field(
        default=None, description="With an ensemble judge: max - min of the members' scores per metric."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    def score(self, metric: str) -> float | None:
        entry = self.scores.get(metric)
        return None if entry is None else entry.score

    def values(self) -> dict[str, float | None]:
        return {metric: entry.score for metric, entry in self.scores.items()}

    def slim(self) -> EvaluationResult:
        """This result without the verdict matrices and claims of its evidence (the judge's errors kept): what a
        batch run keeps in memory once the full record is written to its results file."""
        return self.model_copy(update={"evidence": Evidence(errors=dict(self.evidence.errors))})
