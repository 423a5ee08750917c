"""The model judge: verdicts from a local NLI / fact-checking model on ONNX Runtime (``pip install
'ragmetrics[model]'``; no torch). See docs/model_judge.md."""

from ragmetrics_core.judges.model.config import ModelJudgeConfig
from ragmetrics_core.judges.model.files import ModelLoadError
from ragmetrics_core.judges.model.judge import ModelJudge, ModelStats, load_model

__all__ = ["ModelJudge", "ModelJudgeConfig", "ModelLoadError", "ModelStats", "load_model"]
