"""Calibration on the user's own labels: a score turned into P(label = yes) for alert rules written in probabilities.

``ragmetrics calibrate`` fits one (``fit``, needs scikit-learn) and writes a small versioned file; the
:class:`Calibration` read from it is applied in plain Python (``Evaluator(calibration=...)``, ``ragmetrics evaluate
--calibration``, ``OnlinePipeline(calibration=...)``), adding a ``probability`` beside each calibrated score.
"""

from ragmetrics_core.calibration.model import (
    SCHEMA_VERSION,
    Calibration,
    CalibrationError,
    IsotonicMap,
    MetricCalibration,
    PlattMap,
    as_calibration,
)

__all__ = [
    "SCHEMA_VERSION",
    "Calibration",
    "CalibrationError",
    "IsotonicMap",
    "MetricCalibration",
    "PlattMap",
    "as_calibration",
]
