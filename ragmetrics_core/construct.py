"""Building pydantic models on hot paths without their Python-level ``__init__``.

``Model(**fields)`` wraps the model's compiled validator in a Python frame; calling the validator on the fields
runs the same validation (field validators included) and returns the same instance, ≈ 0.5 µs sooner. The
embedded judge and the engine build dozens of models per sample (claims, metric scores, explanations).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import BaseModel

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

M = TypeVar("M", bound=BaseModel)


def builder(model: type[M]) -> Callable[[dict[str, Any]], M]:
    """``builder(Model)(fields)`` is ``Model(**fields)``: validated, with ``model_fields_set`` the keys given."""
    return cast(Callable[[dict[str, Any]], M], model.__pydantic_validator__.validate_python)
