"""An optional price table turning token counts into an estimated cost.

Prices change often and differ per provider, so none are built in: the user supplies them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_per_million: float = Field(ge=0.0)
    completion_per_million: float = Field(ge=0.0)
    embedding_per_million: float = Field(default=0.0, ge=0.0)


class PriceTable(BaseModel):
    """Model name → price; a model missing from the table has no cost estimate (``None``), not 0."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, ModelPrice] = Field(default_factory=dict)

    def chat_cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.models.get(model)
        if price is None:
            return None
        return (prompt_tokens * price.prompt_per_million + completion_tokens * price.completion_per_million) / 1e6

    def embedding_cost(self, model: str, tokens: int) -> float | None:
        price = self.models.get(model)
        return None if price is None else tokens * price.embedding_per_million / 1e6
