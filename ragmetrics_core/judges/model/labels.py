"""What each output of the model means: which column is entailment, which (if any) contradiction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragmetrics_core.judges.model.files import ModelLoadError

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_ENTAIL = ("entail", "support", "consistent", "faithful", "true")
_CONTRADICT = ("contradict", "refute")
_NEUTRAL = ("neutral", "unsupport", "not_support", "not support", "notsupport", "not_entail", "not entail",
            "non_entail", "non-entail", "hallucinat", "inconsistent", "unfaithful", "false")


@dataclass(frozen=True, slots=True)
class LabelMap:
    """Columns of the model's output: ``entail`` always, ``contradict`` for 3-way models. ``names`` in order."""

    names: tuple[str, ...]
    entail: int
    contradict: int | None

    @property
    def size(self) -> int:
        return len(self.names)


def role(name: str) -> str | None:
    """``entail``, ``contradict`` or ``other`` for a label name; ``None`` when it says nothing (``LABEL_0``)."""
    key = name.strip().casefold()
    # Negated forms first: "not_entailment" and "unsupported" hold the positive words.
    if any(key.startswith(prefix) for prefix in _NEUTRAL):
        return "other"
    if any(key.startswith(prefix) for prefix in _CONTRADICT):
        return "contradict"
    if any(key.startswith(prefix) for prefix in _ENTAIL):
        return "entail"
    return None


def from_config(config: Mapping[str, Any], override: Sequence[str] | None) -> LabelMap:
    """The label map from an explicit ``override`` or ``config.json``'s ``id2label``."""
    if override is not None:
        names = tuple(override)
        source = "the labels given"
    else:
        names = _id2label(config)
        source = "config.json's id2label"
    roles = [role(name) for name in names]
    entail = [index for index, found in enumerate(roles) if found == "entail"]
    contradict = [index for index, found in enumerate(roles) if found == "contradict"]
    unknown = [name for name, found in zip(names, roles, strict=True) if found is None]
    if len(names) not in (2, 3) or unknown or len(entail) != 1 or len(contradict) > 1:
        raise ModelLoadError(
            f"cannot read the labels {list(names)} from {source}: expected 3 labels (entailment, neutral, "
            "contradiction) or 2 (supported, unsupported) in output order"
            + (f"; unnamed: {unknown}" if unknown else "")
            + "; give them explicitly (labels=[...] or --model-labels)"
        )
    return LabelMap(names=names, entail=entail[0], contradict=contradict[0] if contradict else None)


def _id2label(config: Mapping[str, Any]) -> tuple[str, ...]:
    raw = config.get("id2label")
    if not isinstance(raw, Mapping) or not raw:
        raise ModelLoadError("config.json has no id2label: give the labels explicitly (labels=[...])")
    try:
        by_index = {int(key): str(value) for key, value in raw.items()}
    except (TypeError, ValueError):
        raise ModelLoadError(f"config.json's id2label has keys that are not numbers: {list(raw)}") from None
    if sorted(by_index) != list(range(len(by_index))):
        raise ModelLoadError(f"config.json's id2label is not numbered 0..{len(by_index) - 1}: {sorted(by_index)}")
    return tuple(by_index[index] for index in range(len(by_index)))
