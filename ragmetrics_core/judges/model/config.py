"""Settings of the model judge: which model, how its labels and inputs are read, and its caps."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

TEMPLATE_FIELDS = ("{premise}", "{hypothesis}")


class ModelJudgeConfig(BaseModel):
    """How to load and run one NLI / fact-checking model.

    ``model``: a directory holding ``model.onnx`` (or ``onnx/model.onnx``, ``onnx/model_quantized.onnx``),
    ``tokenizer.json`` and ``config.json``; or a Hugging Face Hub id, resolved through the local cache
    (``HF_HUB_OFFLINE=1`` is honoured: nothing is fetched then).
    ``onnx_file``: a file name inside the directory, to pick one graph among several (e.g. the quantized one).
    ``labels``: the meaning of each output, in output order (``entailment``, ``neutral``, ``contradiction``,
    ``supported``, ``unsupported``...), for models whose ``config.json`` leaves them unnamed (``LABEL_0``).
    ``template``: one text holding ``{premise}`` and ``{hypothesis}``, for models trained on a prompt (the pair
    is then encoded as a single sequence); unset, premise and claim go in as a sentence pair.
    ``max_length``: tokens per model input (default: the model's own limit, at most 512).
    ``window_overlap``: sentences a window shares with the one before it.
    ``max_windows_per_chunk``: windows of one premise judged per claim (those sharing most terms with it).
    ``max_pairs_per_sample``: model inputs one sample may need; past it its checks are undetermined.
    ``skip_unrelated``: do not run the model on a window holding no content term of the claim.
    ``threads``: ONNX Runtime intra-op threads (default: its own choice). ``providers``: execution providers in
    order of preference (default CPU; ``CUDAExecutionProvider`` needs onnxruntime-gpu and a GPU).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1)
    onnx_file: str | None = None
    labels: tuple[str, ...] | None = None
    template: str | None = None
    max_length: int | None = Field(default=None, ge=16, le=8192)
    max_claim_tokens: int = Field(default=128, ge=8)
    window_overlap: int = Field(default=1, ge=0, le=8)
    max_windows_per_chunk: int = Field(default=16, ge=1)
    max_pairs_per_sample: int = Field(default=4096, ge=1)
    batch_size: int = Field(default=32, ge=1, le=4096)
    skip_unrelated: bool = True
    threads: int | None = Field(default=None, ge=1)
    providers: tuple[str, ...] = ("CPUExecutionProvider",)
    name: str | None = None
    """The label in results (``model:<name>``); default: the directory's or the Hub id's last part."""

    @field_validator("template")
    @classmethod
    def _template_has_both_fields(cls, template: str | None) -> str | None:
        if template is not None and not all(field in template for field in TEMPLATE_FIELDS):
            raise ValueError("template must hold both {premise} and {hypothesis}")
        return template

    @field_validator("providers")
    @classmethod
    def _some_provider(cls, providers: tuple[str, ...]) -> tuple[str, ...]:
        if not providers:
            raise ValueError("providers must name at least one execution provider")
        return providers
