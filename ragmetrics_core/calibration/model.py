"""A calibration file, and applying it: a score turned into P(the user's label says yes), in plain Python.

The file is what ``ragmetrics calibrate`` writes (schema below, versioned). Applying it needs nothing beyond the
standard library: an isotonic map is its breakpoints, read with linear interpolation between them (what
scikit-learn's ``IsotonicRegression.predict`` does, clipped at both ends); a Platt map is a logistic function of the
score. So the online path, which applies a calibration to every scored sample, never imports scikit-learn or numpy.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
from bisect import bisect_right
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ragmetrics_core.ratelog import RateLimitedLog
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

SCHEMA: Final = "ragmetrics.calibration"
SCHEMA_VERSION: Final = 1
"""The file layout this ragmetrics writes and reads; a file of a higher version is refused, not guessed at."""

_log = RateLimitedLog(logging.getLogger(__name__))


class CalibrationError(ValueError):
    """A calibration file that cannot be used (unreadable, of another schema or version, or malformed)."""


class IsotonicMap(BaseModel):
    """A monotone step-and-ramp function: ``y[i]`` at ``x[i]``, linear in between, flat beyond the ends."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["isotonic"] = "isotonic"
    x: list[float] = Field(min_length=1, description="Breakpoint scores, strictly increasing.")
    y: list[float] = Field(min_length=1, description="The probability at each breakpoint, monotone, in [0, 1].")

    @model_validator(mode="after")
    def _check(self) -> IsotonicMap:
        if len(self.x) != len(self.y):
            raise ValueError(f"x and y must have the same length, got {len(self.x)} and {len(self.y)}")
        if not all(math.isfinite(value) for value in self.x):
            raise ValueError("x must be finite numbers")
        if any(b <= a for a, b in itertools.pairwise(self.x)):
            raise ValueError("x must be strictly increasing")
        if not all(0.0 <= value <= 1.0 for value in self.y):
            raise ValueError("y must be probabilities in [0, 1]")
        rising = all(b >= a for a, b in itertools.pairwise(self.y))
        falling = all(b <= a for a, b in itertools.pairwise(self.y))
        if not (rising or falling):
            raise ValueError("y must be monotone (an isotonic map never goes up and down)")
        return self

    def __call__(self, score: float) -> float:
        x, y = self.x, self.y
        if score <= x[0]:
            return y[0]
        if score >= x[-1]:
            return y[-1]
        right = bisect_right(x, score)
        left = right - 1
        share = (score - x[left]) / (x[right] - x[left])
        return y[left] + share * (y[right] - y[left])


class PlattMap(BaseModel):
    """Platt scaling: ``1 / (1 + exp(-(slope * score + intercept)))``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["platt"] = "platt"
    slope: float = Field(allow_inf_nan=False)
    intercept: float = Field(allow_inf_nan=False)

    def __call__(self, score: float) -> float:
        z = self.slope * score + self.intercept
        # The two forms keep exp() from overflowing at either end.
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


ScoreMap = Annotated[IsotonicMap | PlattMap, Field(discriminator="method")]

Interval = tuple[float, float, float]
"""A figure with its 95 % bootstrap interval: (value, low, high)."""


class Quality(BaseModel):
    """How well a map's probabilities match the labels: the Brier score and the expected calibration error."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    brier: Interval
    ece: Interval


class MetricCalibration(BaseModel):
    """One metric's map, with what it was fitted on and how it did under cross-validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    map: ScoreMap
    direction: Direction
    n: int = Field(ge=1, description="Labelled samples with a determined score the map was fitted on.")
    positives: int = Field(ge=0, description="Of those, the ones labelled yes.")
    undetermined: int = Field(default=0, ge=0, description="Labelled samples skipped: the score was undetermined.")
    folds: int = Field(ge=2)
    cv_brier: dict[str, float] = Field(description="Out-of-fold Brier score of each candidate method.")
    raw: Quality = Field(description="The score read as a probability (1 - score for a lower-is-better metric).")
    calibrated: Quality = Field(description="The chosen method's out-of-fold probabilities (not in-sample).")
    base_rate_brier: float = Field(description="Brier score of answering the base rate for every sample.")
    notes: list[str] = Field(default_factory=list)

    @property
    def method(self) -> str:
        return self.map.method

    @property
    def base_rate(self) -> float:
        return self.positives / self.n


class FittedOn(BaseModel):
    """Where the labels came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    sha256: str | None = None
    rows: int = Field(ge=0, description="Samples read from the source.")
    labelled: int = Field(ge=0)
    unlabelled: int = Field(default=0, ge=0, description="Samples without a label, skipped.")
    failed: int = Field(default=0, ge=0, description="Samples whose evaluation failed, skipped.")


class Calibration(BaseModel):
    """A calibration: per metric, a monotone map from the judge's score to P(label = yes).

    Load one with :meth:`load` (or :func:`as_calibration`); apply it with :meth:`probability` or :meth:`apply`.
    The maps hold for the judge and scoring they were fitted with (``judge``, ``scoring``) and for traffic like the
    labelled sample: the share of yes-labels behind a score depends on the deployment.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: Literal["ragmetrics.calibration"] = Field(default=SCHEMA, alias="schema")
    version: Literal[1] = SCHEMA_VERSION
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    ragmetrics_version: str = ""
    judge: str = Field(description="The judge whose scores were calibrated (EvaluationResult.judge).")
    scoring: str = "graded"
    label: str = Field(default="label", description="The column the labels were read from: what yes means.")
    fitted_on: FittedOn | None = None
    metrics: dict[str, MetricCalibration] = Field(min_length=1)

    # ------------------------------------------------------------------ applying

    def probability(self, metric: str, score: float | None) -> float | None:
        """P(label = yes) for ``score`` of ``metric``; ``None`` for an uncalibrated metric or a missing score."""
        entry = self.metrics.get(metric)
        if entry is None or score is None or not math.isfinite(score):
            return None
        return entry.map(score)

    def apply_score(self, entry: MetricScore) -> MetricScore:
        """``entry`` with its ``probability`` (unchanged when the metric is not calibrated)."""
        probability = self.probability(entry.metric, entry.score)
        if probability is None or probability == entry.probability:
            return entry
        return entry.model_copy(update={"probability": probability})

    def apply(self, result: EvaluationResult) -> EvaluationResult:
        """``result`` with a ``probability`` beside each calibrated score. A result of another judge is returned as
        it is (its scores mean something else), with a warning now and then."""
        if not self.applies_to(result.judge):
            _log.warning(
                f"judge:{result.judge}",
                "calibration fitted on judge %r not applied to a result of judge %r: fit it again with that judge",
                self.judge, result.judge,
            )
            return result
        if not any(metric in self.metrics for metric in result.scores):
            return result
        scores = {metric: self.apply_score(entry) for metric, entry in result.scores.items()}
        return result.model_copy(update={"scores": scores})

    def applies_to(self, judge: str) -> bool:
        """Whether results of ``judge`` are what the maps were fitted on (a failed result has no judge to check)."""
        return not judge or judge == self.judge

    # ------------------------------------------------------------------ the file

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2) + "\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the file (to a temporary name first, so a reader never sees half of it)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_text(self.to_json(), encoding="utf-8")
        partial.replace(target)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        """Read a calibration file, refusing one of another schema or of a version this ragmetrics does not read."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise CalibrationError(f"{path}: cannot read the calibration file ({error.strerror or error})") from None
        except UnicodeDecodeError:
            raise CalibrationError(f"{path}: not a calibration file (not UTF-8 text)") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CalibrationError(f"{path}: not a calibration file (invalid JSON: {error.msg})") from None
        return cls.from_dict(data, where=str(path))

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "calibration") -> Calibration:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise CalibrationError(f"{where}: not a ragmetrics calibration file (no \"schema\": \"{SCHEMA}\")")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise CalibrationError(f"{where}: the calibration file has no integer version (got {version!r})")
        if version > SCHEMA_VERSION:
            raise CalibrationError(
                f"{where}: calibration file version {version} was written by a newer ragmetrics; this one reads "
                f"version {SCHEMA_VERSION}: upgrade ragmetrics, or fit again with this one"
            )
        if version != SCHEMA_VERSION:
            raise CalibrationError(
                f"{where}: unknown calibration file version {version} (this ragmetrics reads version {SCHEMA_VERSION})"
            )
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            location = ".".join(str(part) for part in first["loc"])
            raise CalibrationError(f"{where}: malformed calibration file at {location}: {first['msg']}") from None


def as_calibration(value: Calibration | str | os.PathLike[str]) -> Calibration:
    """A :class:`Calibration` as given, or loaded from a path."""
    if isinstance(value, Calibration):
        return value
    if isinstance(value, str | os.PathLike):
        return Calibration.load(value)
    raise TypeError(f"calibration must be a Calibration or the path of a calibration file, got {type(value).__name__}")
