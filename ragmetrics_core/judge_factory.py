"""Build the evaluator the command line (or a config) asks for: the embedded judge, one LLM judge, a local model
judge, or an ensemble of several. Optional judges are imported only when used."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ragmetrics_core.engine import AsyncEvaluator, Evaluator
from ragmetrics_core.judges.base import Judge
from ragmetrics_core.judges.quota import LocalGate, ProviderLimits, RequestGate

if TYPE_CHECKING:
    from ragmetrics_core.metrics import MetricOptions

JudgeKind = Literal["embedded", "openai", "model"]
EnsembleMode = Literal["mean", "majority"]


class JudgeConfigError(ValueError):
    """The requested judge cannot be built (missing model, missing package, bad setting)."""


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """What judge to use.

    ``models``: one model, or several for an ensemble (``ensemble``: ``mean`` of each judge's scores, or
    ``majority`` verdicts over shared claims). Unset values come from the environment
    (``RAGMETRICS_JUDGE_MODEL``, ``RAGMETRICS_JUDGE_BASE_URL`` / ``OPENAI_BASE_URL``,
    ``RAGMETRICS_JUDGE_API_KEY`` / ``OPENAI_API_KEY``, ``RAGMETRICS_JUDGE_CACHE``).
    ``price``: US dollars per million prompt and completion tokens, for the cost estimate.
    ``api_key_env``: the environment variable holding the API key, read where the judge is built (on each worker
    of a distributed run), so the settings themselves never carry a key.
    ``limits``: a rate limit and budget for all the run's requests to the provider (shared across workers when
    the run is distributed).
    ``kind="model"``: ``models`` are model directories or Hub ids (see docs/model_judge.md); ``model_options``
    sets further :class:`~ragmetrics_core.judges.model.ModelJudgeConfig` fields (``labels``, ``template``,
    ``threads``, ``providers``...); ``extractor_model``: an LLM (through the OpenAI settings above) extracts the
    claims, entities and questions instead of the embedded judge.
    """

    kind: JudgeKind = "embedded"
    models: Sequence[str] = ()
    base_url: str | None = None
    cache_path: str | None = None
    price: tuple[float, float] | None = None
    concurrency: int | None = None
    ensemble: EnsembleMode = "mean"
    api_key_env: str | None = None
    limits: ProviderLimits | None = None
    model_options: Mapping[str, Any] | None = None
    extractor_model: str | None = None


def build_evaluator(
    settings: JudgeSettings,
    metrics: Sequence[str] | None = None,
    options: MetricOptions | None = None,
    *,
    gate: RequestGate | None = None,
) -> AsyncEvaluator:
    """An :class:`~ragmetrics_core.engine.Evaluator` with the judge of ``settings``, or an
    ``EnsembleEvaluator`` when several models are given. ``gate``: the shared rate limit and budget (by default
    one for this process when ``settings.limits`` sets any)."""
    judges = build_judges(settings, gate=gate)
    if len(judges) <= 1:
        return Evaluator(judge=judges[0] if judges else None, metrics=metrics, options=options)
    try:
        from ragmetrics_core.ensemble import EnsembleEvaluator
    except ImportError as error:
        raise JudgeConfigError(f"several --models need the ensemble judge, which is not available ({error})") from None
    return EnsembleEvaluator(judges, metrics=metrics, options=options, aggregate=settings.ensemble)


def build_judges(settings: JudgeSettings, *, gate: RequestGate | None = None) -> list[Judge]:
    """One judge per model; none for the embedded judge (the engine's default). The judges share ``gate``."""
    if settings.kind == "embedded":
        return []
    if settings.kind == "openai":
        if gate is None and settings.limits is not None and settings.limits.active:
            gate = LocalGate(settings.limits)
        return _openai(settings, gate)
    if settings.kind == "model":
        return _model(settings, gate)
    raise JudgeConfigError(f"unknown judge {settings.kind!r}; use embedded, openai or model")


def _model(settings: JudgeSettings, gate: RequestGate | None) -> list[Judge]:
    try:
        from ragmetrics_core.judges.model import ModelJudge, ModelJudgeConfig, ModelLoadError
    except ImportError as error:
        raise JudgeConfigError(
            f"the model judge is not available ({error}); install it with: pip install 'ragmetrics[model]'"
        ) from None
    from_environment = os.environ.get("RAGMETRICS_JUDGE_MODEL", "").strip()
    models = list(settings.models) or ([from_environment] if from_environment else [])
    if not models:
        raise JudgeConfigError(
            "the model judge needs a model: a directory or a Hub id (--model PATH_OR_ID or RAGMETRICS_JUDGE_MODEL)"
        )
    extractor: Judge | None = None
    if settings.extractor_model:
        if gate is None and settings.limits is not None and settings.limits.active:
            gate = LocalGate(settings.limits)
        llm = JudgeSettings(
            kind="openai", models=[settings.extractor_model], base_url=settings.base_url,
            cache_path=settings.cache_path, price=settings.price, concurrency=settings.concurrency,
            api_key_env=settings.api_key_env, limits=settings.limits,
        )
        (extractor,) = _openai(llm, gate)
    judges: list[Judge] = []
    for model in models:
        try:
            config = ModelJudgeConfig.model_validate({**(settings.model_options or {}), "model": model})
            judges.append(ModelJudge(config, extractor=extractor))
        except (ModelLoadError, ValueError) as error:
            raise JudgeConfigError(f"cannot load the model judge {model!r}: {error}") from None
    return judges


def _openai(settings: JudgeSettings, gate: RequestGate | None) -> list[Judge]:
    try:
        from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
        from ragmetrics_core.judges.pricing import ModelPrice, PriceTable
    except ImportError as error:
        raise JudgeConfigError(
            f"the OpenAI judge is not available ({error}); install it with: pip install 'ragmetrics[openai]'"
        ) from None
    judges: list[Judge] = []
    # No model given: one judge whose model comes from the environment (RAGMETRICS_JUDGE_MODEL).
    for model in list(settings.models) or [""]:
        overrides: dict[str, object] = {}
        if model:
            overrides["model"] = model
        if settings.base_url is not None:
            overrides["base_url"] = settings.base_url
        if settings.cache_path is not None:
            overrides["cache_path"] = settings.cache_path
        if settings.concurrency is not None:
            overrides["concurrency"] = settings.concurrency
        if settings.api_key_env is not None:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise JudgeConfigError(f"the API key variable {settings.api_key_env} is not set here")
            overrides["api_key"] = key
        try:
            config = OpenAIJudgeConfig.from_env(None, **overrides)
            if settings.price is not None:
                prompt, completion = settings.price
                price = ModelPrice(prompt_per_million=prompt, completion_per_million=completion)
                config = config.model_copy(update={"prices": PriceTable(models={config.model: price})})
        except ValueError as error:
            raise JudgeConfigError(f"cannot configure the OpenAI judge: {error}") from None
        judges.append(OpenAIJudge(config, gate=gate))
    return judges
