"""The user's labels: read one per sample (yes/no, true/false, 1/0, pass/fail), paired with the judge's scores."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ragmetrics_core.calibration.fit import CalibrationDataError
from ragmetrics_core.formats.errors import describe_value
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

LABEL_COLUMNS = ("label", "faithful", "human_label", "is_faithful")
"""Where a label is looked for when no column is named (the first one a sample has)."""

_YES = frozenset({"1", "yes", "y", "true", "t", "pass"})
_NO = frozenset({"0", "no", "n", "false", "f", "fail"})
_SHOWN_PROBLEMS = 5


def parse_label(value: object) -> int | None:
    """1 for yes, 0 for no, ``None`` for no label (missing or empty); :class:`ValueError` for anything else."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            return None  # pandas writes a missing cell as NaN
        if value in (0, 1):
            return int(value)
        raise ValueError(f"expected 1 or 0, got {value!r}")
    if isinstance(value, str):
        text = value.strip().lower()
        if not text:
            return None
        if text in _YES:
            return 1
        if text in _NO:
            return 0
        raise ValueError(f"expected yes/no, true/false, 1/0 or pass/fail, got {value!r}")
    raise ValueError(f"expected yes/no, true/false, 1/0 or pass/fail, got {describe_value(value)}")


@dataclass(slots=True)
class LabelledScores:
    """Per metric, the determined scores of labelled samples and their labels, with what was skipped and why."""

    label: str
    scores: dict[str, list[float]] = field(default_factory=dict)
    labels: dict[str, list[int]] = field(default_factory=dict)
    undetermined: dict[str, int] = field(default_factory=dict)
    rows: int = 0
    labelled: int = 0
    unlabelled: int = 0
    failed: int = 0
    judges: set[str] = field(default_factory=set)


def pair_labels(
    results: Iterable[EvaluationResult],
    samples: Mapping[str, RagSample],
    metrics: Sequence[str],
    label: str | None = None,
) -> LabelledScores:
    """Pair each result's scores of ``metrics`` with its sample's label (``sample.metadata[label]``, or the first
    of :data:`LABEL_COLUMNS` found when ``label`` is ``None``).

    Samples without a label, failed evaluations and undetermined scores are skipped and counted. A label that is
    not yes/no raises :class:`CalibrationDataError` naming the samples (up to five) and what they hold.
    """
    pairs = LabelledScores(label=label or "")
    for metric in metrics:
        pairs.scores[metric], pairs.labels[metric], pairs.undetermined[metric] = [], [], 0
    problems = _LabelProblems()
    for result in results:
        pairs.rows += 1
        value = _label_of(result, samples, label, pairs, problems)
        if value is not None:
            _pair_scores(result, value, metrics, pairs)
    problems.raise_if_any()
    if not pairs.label:
        pairs.label = label or LABEL_COLUMNS[0]
    return pairs


@dataclass(slots=True)
class _LabelProblems:
    """Labels that are not yes/no: all counted, the first few described."""

    shown: list[str] = field(default_factory=list)
    count: int = 0

    def add(self, problem: str) -> None:
        self.count += 1
        if len(self.shown) < _SHOWN_PROBLEMS:
            self.shown.append(problem)

    def raise_if_any(self) -> None:
        if self.shown:
            more = f" (and {self.count - len(self.shown)} more)" if self.count > len(self.shown) else ""
            raise CalibrationDataError("labels that are not yes/no: " + "; ".join(self.shown) + more)


def _label_of(
    result: EvaluationResult,
    samples: Mapping[str, RagSample],
    label: str | None,
    pairs: LabelledScores,
    problems: _LabelProblems,
) -> int | None:
    """The label of the result's sample (1 or 0); ``None`` when it has none (counted) or an unreadable one (noted)."""
    sample = samples.get(result.sample_id or "")
    metadata = sample.metadata if sample is not None else {}
    column = label or next((name for name in LABEL_COLUMNS if name in metadata), None)
    if column is None or column not in metadata:
        pairs.unlabelled += 1
        return None
    if not pairs.label:
        pairs.label = column
    try:
        value = parse_label(metadata[column])
    except ValueError as error:
        problems.add(f"sample {result.sample_id}: {column} {error}")
        return None
    if value is None:
        pairs.unlabelled += 1
    return value


def _pair_scores(result: EvaluationResult, value: int, metrics: Sequence[str], pairs: LabelledScores) -> None:
    """A labelled sample's determined scores, each paired with its label; a failed evaluation pairs none."""
    pairs.labelled += 1
    if result.error is not None:
        pairs.failed += 1
        return
    if result.judge:
        pairs.judges.add(result.judge)
    for metric in metrics:
        entry = result.scores.get(metric)
        if entry is None or entry.score is None:
            pairs.undetermined[metric] += 1
            continue
        if not math.isfinite(entry.score):
            raise CalibrationDataError(f"sample {result.sample_id}: {metric} score is {entry.score}, not a number")
        pairs.scores[metric].append(entry.score)
        pairs.labels[metric].append(value)
