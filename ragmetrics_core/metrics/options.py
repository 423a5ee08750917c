"""Per-metric options (the Java suite's configuration knobs, plus pass/fail thresholds)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class ContextPrecisionStrategy(StrEnum):
    """What a chunk must be useful for: the reference, the response, or the reference when there is one."""

    AUTO = "auto"
    REFERENCE = "reference"
    RESPONSE = "response"


class Scoring(StrEnum):
    """How verdicts become scores.

    ``graded``: every claim-level metric is averaged over the judge's strictness τ ∈ (0, 1], a check counting
    as entailed at level τ when its graded support (:attr:`Check.support`) reaches τ; a claim the judge barely
    accepts counts for little, one stated word for word counts fully. For checks without a grade (LLM judges,
    RAGChecker files) this is exactly ``binary``. ``binary``: only the verdicts count (entailed = 1, else 0).
    """

    GRADED = "graded"
    BINARY = "binary"


class MetricOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    context_precision_strategy: ContextPrecisionStrategy = ContextPrecisionStrategy.AUTO
    scoring: Scoring = Field(
        default=Scoring.GRADED, description="'graded' (use the judge's graded support) or 'binary' (verdicts only)."
    )
    n_questions: int = Field(default=3, ge=1, le=20, description="Questions generated for response_relevancy.")
    use_joint_context: bool = Field(
        default=True,
        description="Also ask whether all chunks taken together entail a claim (a claim spread over two chunks).",
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict,
        description="metric id → threshold overriding the metric's default; a score passes when it is at least "
        "the threshold (higher-is-better) or at most it (lower-is-better).",
    )
