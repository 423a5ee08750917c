"""A calibration in front of any evaluator: what the online pipeline scores with when it is given one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragmetrics_core.calibration.model import Calibration
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample

if TYPE_CHECKING:
    from ragmetrics_core.engine import AsyncEvaluator

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


class CalibratedEvaluator:
    """Scores with ``evaluator`` and adds ``calibration``'s probabilities to each result (results of a judge the
    calibration was not fitted on keep their scores only; see :meth:`Calibration.apply`)."""

    def __init__(self, evaluator: AsyncEvaluator, calibration: Calibration) -> None:
        self.evaluator = evaluator
        self.calibration = calibration

    @property
    def metrics(self) -> Sequence[str]:
        metrics: Sequence[str] = getattr(self.evaluator, "metrics", None) or ()
        return metrics

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        return self.calibration.apply(await self.evaluator.aevaluate(sample))
