"""Loading a model directory: layouts, label overrides, templates, and one clear error for each bad part."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from ragmetrics_core.evidence import Claim, EvidencePart, Verdict
from ragmetrics_core.judges.base import CheckRequest
from ragmetrics_core.judges.model import ModelJudge, ModelJudgeConfig, ModelLoadError
from ragmetrics_core.judges.model.labels import from_config
from tests.model import tiny
from tests.model.conftest import CORPUS, PARIS

P = EvidencePart


def copy_of(models: Callable[..., Path], tmp_path: Path, **options: object) -> Path:
    target = tmp_path / "model"
    shutil.copytree(models(**options), target)
    return target


async def verdicts(judge: ModelJudge) -> list[Verdict]:
    claims = [PARIS, "Paris is not the capital of France.", "Berlin is a big city in Germany."]
    result = await judge.check(CheckRequest(
        response="", reference=None, contexts=[PARIS], response_claims=[Claim(text=text) for text in claims],
        want=frozenset({P.RESPONSE_VS_CHUNKS}),
    ))
    return [row[0].verdict for row in result.response_vs_chunks or []]


EXPECTED = [Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.NEUTRAL]


@pytest.mark.parametrize("layout", ["onnx/model.onnx", "onnx/model_quantized.onnx"])
async def test_hub_layouts_are_found(models: Callable[..., Path], layout: str) -> None:
    judge = ModelJudge(str(models(layout=layout)))
    assert judge.model.files.graph.as_posix().endswith(layout)
    assert await verdicts(judge) == EXPECTED


async def test_one_graph_among_several_by_name(models: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_of(models, tmp_path)
    (directory / "onnx").mkdir()
    # A decoy that would give other answers: the same graph with its labels read in another order.
    tiny_graph = tiny.graph(tiny.vocabulary(CORPUS), ("contradiction", "neutral", "entailment"), token_type_ids=True)
    import onnx

    onnx.save(tiny_graph, str(directory / "onnx" / "model_quantized.onnx"))
    chosen = ModelJudge(ModelJudgeConfig(model=str(directory), onnx_file="model.onnx"))
    assert chosen.model.files.graph == directory / "model.onnx"
    assert await verdicts(chosen) == EXPECTED


async def test_unnamed_labels_need_an_override(models: Callable[..., Path]) -> None:
    directory = models(labels=("contradiction", "entailment", "neutral"), config_labels=("LABEL_0", "LABEL_1",
                                                                                           "LABEL_2"))
    with pytest.raises(ModelLoadError, match=r"cannot read the labels .*LABEL_0.*give them explicitly"):
        ModelJudge(str(directory))
    judge = ModelJudge(ModelJudgeConfig(model=str(directory), labels=("contradiction", "entailment", "neutral")))
    assert await verdicts(judge) == EXPECTED


def test_label_names_models_publish() -> None:
    # MNLI-style, HHEM-style, MiniCheck-style and binary NLI label sets map; ambiguous ones do not.
    assert from_config({"id2label": {"0": "ENTAILMENT", "1": "NEUTRAL", "2": "CONTRADICTION"}}, None).entail == 0
    three = from_config({"id2label": {"0": "contradiction", "1": "neutral", "2": "entailment"}}, None)
    assert (three.entail, three.contradict) == (2, 0)
    binary = from_config({"id2label": {"0": "not_entailment", "1": "entailment"}}, None)
    assert (binary.entail, binary.contradict) == (1, None)
    assert from_config({"id2label": {"0": "hallucinated", "1": "consistent"}}, None).entail == 1
    assert from_config({}, ("unsupported", "supported")).entail == 1
    for bad in ({"0": "entailment", "1": "entailment"}, {"0": "yes"}, {"a": "entailment", "b": "neutral"},
                {"0": "entailment", "2": "neutral"}):
        with pytest.raises(ModelLoadError):
            from_config({"id2label": bad}, None)
    with pytest.raises(ModelLoadError, match="no id2label"):
        from_config({}, None)


async def test_a_prompt_template_for_single_sequence_models(models: Callable[..., Path]) -> None:
    # The graph without token_type_ids finds the claim after the first [SEP]: a template placing one there reads
    # the pair as one sequence, as prompt-trained models (HHEM) do.
    directory = models(token_type_ids=False)
    judge = ModelJudge(ModelJudgeConfig(model=str(directory), template="{premise} [SEP] {hypothesis}"))
    assert await verdicts(judge) == EXPECTED
    assert judge.model.overhead == 3  # the [SEP] of the template, [CLS] and [SEP] of the single-sequence wrapping
    with pytest.raises(ValueError, match="both"):
        ModelJudgeConfig(model=str(directory), template="{premise} only")


@pytest.mark.parametrize(("remove", "message"), [
    ("model.onnx", "no ONNX graph"),
    ("tokenizer.json", "no tokenizer.json"),
    ("config.json", "no config.json"),
])
def test_a_missing_file_is_named(models: Callable[..., Path], tmp_path: Path, remove: str, message: str) -> None:
    directory = copy_of(models, tmp_path)
    (directory / remove).unlink()
    with pytest.raises(ModelLoadError, match=message):
        ModelJudge(str(directory))


def test_unreadable_files(models: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_of(models, tmp_path)
    (directory / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelLoadError, match="unreadable"):
        ModelJudge(str(directory))
    directory = copy_of(models, tmp_path / "again")
    (directory / "tokenizer.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ModelLoadError, match="not a tokenizers file"):
        ModelJudge(str(directory))
    directory = copy_of(models, tmp_path / "graph")
    (directory / "model.onnx").write_bytes(b"not a graph")
    with pytest.raises(ModelLoadError, match="ONNX Runtime cannot load it"):
        ModelJudge(str(directory))


def test_a_tokenizer_of_another_model(models: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_of(models, tmp_path)
    bigger = tiny.tokenizer(tiny.vocabulary([*CORPUS, "many more words than the graph was built for"]))
    bigger.save(str(directory / "tokenizer.json"))
    with pytest.raises(ModelLoadError, match="belongs to another model"):
        ModelJudge(str(directory))


def test_a_graph_that_does_not_fit_the_labels_or_inputs(models: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_of(models, tmp_path, labels=tiny.TWO_WAY)
    config = json.loads((directory / "config.json").read_text())
    config["id2label"] = {"0": "entailment", "1": "neutral", "2": "contradiction"}
    (directory / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match=r"output has shape \[1, 2\], expected \[batch, 3\]"):
        ModelJudge(str(directory))
    graph = tiny.graph(tiny.vocabulary(CORPUS), tiny.THREE_WAY, token_type_ids=True)
    graph.graph.input[0].name = "ids"
    for node in graph.graph.node:
        node.input[:] = ["ids" if name == "input_ids" else name for name in node.input]
    import onnx

    other = copy_of(models, tmp_path / "inputs")
    onnx.save(graph, str(other / "model.onnx"))
    with pytest.raises(ModelLoadError, match="unexpected graph input 'ids'"):
        ModelJudge(str(other))


def test_an_unavailable_execution_provider(models: Callable[..., Path]) -> None:
    with pytest.raises(ModelLoadError, match="CUDAExecutionProvider needs onnxruntime-gpu"):
        ModelJudge(ModelJudgeConfig(model=str(models()), providers=("NoSuchExecutionProvider",)))


def test_a_hub_id_offline_uses_only_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(ModelLoadError, match=r"not found in the local cache \(HF_HUB_OFFLINE is set\)"):
        ModelJudge("someone/some-nli-model")
    with pytest.raises(ModelLoadError, match="no such directory"):
        ModelJudge(str(tmp_path / "nowhere" / "deeper" / "model"))


def test_a_model_is_loaded_once_per_process(models: Callable[..., Path]) -> None:
    config = ModelJudgeConfig(model=str(models()), max_length=64)
    assert ModelJudge(config).model is ModelJudge(config).model
    assert ModelJudge(config.model_copy(update={"max_length": 65})).model is not ModelJudge(config).model


async def test_a_tokenizer_saved_with_padding_and_truncation(models: Callable[..., Path], tmp_path: Path) -> None:
    # Many tokenizer.json files on the Hub pad to a fixed length and truncate: the judge pads per batch itself.
    directory = copy_of(models, tmp_path)
    padded = tiny.tokenizer(tiny.vocabulary(CORPUS))
    padded.enable_padding(pad_id=tiny.PAD, pad_token="[PAD]", length=64)
    padded.enable_truncation(16)
    padded.save(str(directory / "tokenizer.json"))
    judge = ModelJudge(str(directory))
    assert judge.model.overhead == 3 and judge.model.pad_id == tiny.PAD
    assert await verdicts(judge) == EXPECTED


async def test_a_hub_id_resolves_from_the_local_cache_offline(models: Callable[..., Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The cache layout huggingface_hub writes: models--owner--name/{refs/main, snapshots/<commit>/...}.
    cache = tmp_path / "hub"
    commit = "0123456789abcdef0123456789abcdef01234567"
    repository = cache / "models--someone--tiny-nli"
    shutil.copytree(models(layout="onnx/model.onnx"), repository / "snapshots" / commit)
    (repository / "refs").mkdir()
    (repository / "refs" / "main").write_text(commit, encoding="utf-8")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    judge = ModelJudge("someone/tiny-nli")
    assert judge.name == "model:tiny-nli"
    assert judge.model.files.directory == repository / "snapshots" / commit
    assert await verdicts(judge) == EXPECTED
