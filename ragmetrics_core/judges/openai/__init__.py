"""An LLM judge for any OpenAI-compatible endpoint (OpenAI, Azure, OpenRouter, vLLM, Ollama, ...)."""

from ragmetrics_core.judges.openai.client import EndpointError
from ragmetrics_core.judges.openai.config import OpenAIJudgeConfig, RetryPolicy
from ragmetrics_core.judges.openai.judge import OpenAIJudge

__all__ = ["EndpointError", "OpenAIJudge", "OpenAIJudgeConfig", "RetryPolicy"]
