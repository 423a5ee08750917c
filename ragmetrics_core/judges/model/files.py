"""Find a model's files: a local directory, or a Hugging Face Hub id resolved through the local cache."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

GRAPH_CANDIDATES = ("model.onnx", "onnx/model.onnx", "onnx/model_quantized.onnx")
"""Where a graph is looked for, in order: the plain layout, then the one optimum's exports use on the Hub."""
_HUB_PATTERNS = ["*.json", "*.onnx", "onnx/*.json", "onnx/*.onnx", "*.onnx_data", "onnx/*.onnx_data"]


class ModelLoadError(ValueError):
    """The model cannot be used: a file is missing or unreadable, or its parts do not fit together."""


@dataclass(frozen=True, slots=True)
class ModelFiles:
    directory: Path
    graph: Path
    tokenizer: Path
    config: dict[str, Any]


def locate(model: str, onnx_file: str | None = None) -> ModelFiles:
    """The files of ``model`` (a directory or a Hub id), checked to exist; :class:`ModelLoadError` says which
    is missing."""
    directory = Path(model).expanduser()
    if not directory.is_dir():
        if directory.exists():
            raise ModelLoadError(f"{model}: expected a model directory, found a file")
        directory = _from_hub(model)
    graph = _graph(directory, onnx_file)
    tokenizer = directory / "tokenizer.json"
    if not tokenizer.is_file():
        raise ModelLoadError(
            f"{directory}: no tokenizer.json (a fast tokenizer file; save one with "
            "AutoTokenizer.from_pretrained(...).save_pretrained(dir), or export with optimum)"
        )
    return ModelFiles(directory=directory, graph=graph, tokenizer=tokenizer, config=_config(directory))


def _graph(directory: Path, onnx_file: str | None) -> Path:
    if onnx_file is not None:
        graph = directory / onnx_file
        if not graph.is_file():
            raise ModelLoadError(f"{directory}: no ONNX graph {onnx_file}")
        return graph
    for candidate in GRAPH_CANDIDATES:
        if (directory / candidate).is_file():
            return directory / candidate
    raise ModelLoadError(
        f"{directory}: no ONNX graph (looked for {', '.join(GRAPH_CANDIDATES)}); export one with "
        "`optimum-cli export onnx --model ID --task text-classification DIR`"
    )


def _config(directory: Path) -> dict[str, Any]:
    path = directory / "config.json"
    if not path.is_file():
        raise ModelLoadError(f"{directory}: no config.json (it names the labels, id2label)")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelLoadError(f"{path}: unreadable ({error})") from None
    if not isinstance(config, dict):
        raise ModelLoadError(f"{path}: expected a JSON object")
    return config


def _from_hub(model: str) -> Path:
    """A Hub id through the local cache. Offline (``HF_HUB_OFFLINE=1``) only what the cache holds is used."""
    if model.count("/") != 1 or model.startswith((".", "/", "~")):
        raise ModelLoadError(f"{model}: no such directory (and not a Hub id of the form owner/name)")
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise ModelLoadError(
            f"{model}: no such directory; to use a Hub id install huggingface-hub (pip install huggingface-hub)"
        ) from None
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
    try:
        path = snapshot_download(model, allow_patterns=_HUB_PATTERNS, local_files_only=offline)
    except Exception as error:  # the hub client raises many kinds (offline cache miss, HTTP, bad id): say which
        where = "in the local cache (HF_HUB_OFFLINE is set)" if offline else "on the Hub or in the local cache"
        raise ModelLoadError(f"{model}: not found {where}: {type(error).__name__}: {error}") from None
    return Path(path)
