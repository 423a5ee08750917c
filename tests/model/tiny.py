"""Tiny NLI models built by the tests: an ONNX graph made with ``onnx.helper`` and a ``tokenizers`` WordLevel
tokenizer, saved in the layout the model judge loads.

The graph is an exact, hand-checkable rule, not a trained network: a claim (the hypothesis) is *entailed* when
every content token of it occurs in the premise, *contradicted* when they all do but exactly one side holds
"not", *neutral* otherwise. Logits: entailment ``4 - 8·missing - 8·negation``, neutral ``0``, contradiction
``-4 + 8·negation - 8·missing``, so the probabilities are softmax([4, 0, -4]) = 0.982 / 0.018 / 0.0003 for a
supported claim. The 2-way variant outputs [0, entailment-logit] for (unsupported, supported).

The hypothesis tokens are told from the premise's by ``token_type_ids`` or, in the graph without that input,
by position: after the first ``[SEP]`` (a cumulative sum over ``[SEP]`` markers). All sums are of small
integers, so padding cannot change a result: batched and one-by-one runs are equal to the last bit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel
from tokenizers.processors import TemplateProcessing

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
PAD, UNK, CLS, SEP = range(4)
NEGATION = "not"
FUNCTION_WORDS = frozenset({
    "the", "a", "an", "is", "was", "were", "are", "of", "in", "on", "at", "and", "to", "by", "it", "its", "as",
    "for", "with", "from", "that", "this", *".,;:!?。，；：！？",
    "в", "и", "на", "с", "по", "из", "это", "был", "была", "было", "были", *"的了是在和",
})
THREE_WAY = ("entailment", "neutral", "contradiction")
TWO_WAY = ("unsupported", "supported")

_CJK = "[\u3400-\u9fff]"


def _pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(_CJK), "isolated"), pre_tokenizers.Whitespace()])


def vocabulary(texts: Iterable[str]) -> list[str]:
    """Every token of ``texts`` as the tokenizer splits them (lower-cased), specials first, then sorted."""
    splitter = _pre_tokenizer()
    normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    words: set[str] = {NEGATION}
    for text in texts:
        words.update(token for token, _ in splitter.pre_tokenize_str(normalizer.normalize_str(text)))
    return SPECIALS + sorted(words - set(SPECIALS))


def tokenizer(words: Sequence[str]) -> Tokenizer:
    built = Tokenizer(WordLevel({word: index for index, word in enumerate(words)}, unk_token="[UNK]"))
    built.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    built.pre_tokenizer = _pre_tokenizer()
    built.add_special_tokens(SPECIALS)
    built.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", CLS), ("[SEP]", SEP)]
    )
    return built


def graph(words: Sequence[str], labels: Sequence[str], *, token_type_ids: bool) -> onnx.ModelProto:
    """The rule above as an ONNX graph whose output columns follow ``labels`` (any order of the three or two)."""
    size = len(words)
    content = np.array([0.0 if word in SPECIALS or word in FUNCTION_WORDS or word == NEGATION or not any(
        char.isalnum() for char in word) else 1.0 for word in words], dtype=np.float32)
    constants: dict[str, np.ndarray] = {
        "depth": np.array([size], dtype=np.int64),
        "onehot_values": np.array([0.0, 1.0], dtype=np.float32),
        "content": content,
        "negation_id": np.array(words.index(NEGATION), dtype=np.int64),
        "sep_id": np.array(SEP, dtype=np.int64),
        "half": np.array(0.5, dtype=np.float32),
        "four": np.array(4.0, dtype=np.float32),
        "eight": np.array(8.0, dtype=np.float32),
        "axis1": np.array([1], dtype=np.int64),
        "axis2": np.array([2], dtype=np.int64),
        "axis_last": np.array([-1], dtype=np.int64),
        "scalar_axis1": np.array(1, dtype=np.int64),
    }
    node = helper.make_node
    nodes = [
        node("OneHot", ["input_ids", "depth", "onehot_values"], ["onehot"], axis=-1),
        node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
    ]
    if token_type_ids:
        nodes.append(node("Cast", ["token_type_ids"], ["hypothesis_side"], to=TensorProto.FLOAT))
    else:
        nodes += [
            node("Equal", ["input_ids", "sep_id"], ["is_sep_bool"]),
            node("Cast", ["is_sep_bool"], ["is_sep"], to=TensorProto.FLOAT),
            node("CumSum", ["is_sep", "scalar_axis1"], ["seps_so_far"]),
            node("Greater", ["seps_so_far", "half"], ["after_sep_bool"]),
            node("Cast", ["after_sep_bool"], ["hypothesis_side"], to=TensorProto.FLOAT),
        ]
    nodes += [
        node("Mul", ["mask", "hypothesis_side"], ["hypothesis"]),
        node("Sub", ["mask", "hypothesis"], ["premise"]),
        node("Unsqueeze", ["premise", "axis_last"], ["premise_3d"]),
        node("Mul", ["onehot", "premise_3d"], ["premise_onehot"]),
        node("ReduceMax", ["premise_onehot"], ["premise_bag"], axes=[1], keepdims=1),  # [B, 1, V]
        node("Mul", ["onehot", "content"], ["content_onehot"]),
        node("Mul", ["content_onehot", "premise_bag"], ["found_onehot"]),
        node("ReduceSum", ["found_onehot", "axis2"], ["found"], keepdims=0),  # [B, L]
        node("ReduceSum", ["content_onehot", "axis2"], ["is_content"], keepdims=0),
        node("Sub", ["is_content", "found"], ["absent"]),
        node("Mul", ["absent", "hypothesis"], ["absent_in_claim"]),
        node("ReduceSum", ["absent_in_claim", "axis1"], ["missing"], keepdims=1),  # [B, 1]
        node("Gather", ["onehot", "negation_id"], ["negation_column"], axis=2),  # [B, L]
        node("Mul", ["negation_column", "hypothesis"], ["negation_claim"]),
        node("Mul", ["negation_column", "premise"], ["negation_premise"]),
        node("ReduceMax", ["negation_claim"], ["claim_negated"], axes=[1], keepdims=1),
        node("ReduceMax", ["negation_premise"], ["premise_negated"], axes=[1], keepdims=1),
        node("Sub", ["claim_negated", "premise_negated"], ["negation_gap"]),
        node("Abs", ["negation_gap"], ["negation"]),
        node("Mul", ["missing", "eight"], ["missing_penalty"]),
        node("Mul", ["negation", "eight"], ["negation_weight"]),
        node("Sub", ["four", "missing_penalty"], ["entail_partial"]),
        node("Sub", ["entail_partial", "negation_weight"], ["entailment"]),
        node("Sub", ["negation_weight", "four"], ["contradiction_partial"]),
        node("Sub", ["contradiction_partial", "missing_penalty"], ["contradiction"]),
        node("Sub", ["four", "four"], ["zero"]),
        node("Mul", ["missing", "zero"], ["neutral"]),  # a [B, 1] column of zeros
    ]
    if len(labels) == 2:
        columns = {"unsupported": "neutral", "supported": "entailment"}
    else:
        columns = {"entailment": "entailment", "neutral": "neutral", "contradiction": "contradiction"}
    nodes.append(node("Concat", [columns[label] for label in labels], ["logits"], axis=1))
    used = {name for made in nodes for name in made.input}
    initializers = [numpy_helper.from_array(value, name) for name, value in constants.items() if name in used]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"])]
    if token_type_ids:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "length"]))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", len(labels)])]
    model = helper.make_model(
        helper.make_graph(nodes, "tiny_nli", inputs, outputs, initializers),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build(
    directory: Path,
    texts: Iterable[str],
    *,
    labels: Sequence[str] = THREE_WAY,
    token_type_ids: bool = True,
    config_labels: Sequence[str] | None = None,
    layout: str = "model.onnx",
    max_positions: int = 512,
) -> Path:
    """A model directory for ``texts``' vocabulary; ``config_labels`` (default ``labels``) go to config.json."""
    words = vocabulary(texts)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / layout).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(graph(words, labels, token_type_ids=token_type_ids), str(directory / layout))
    tokenizer(words).save(str(directory / "tokenizer.json"))
    names = labels if config_labels is None else config_labels
    config = {"model_type": "bert", "vocab_size": len(words), "max_position_embeddings": max_positions,
              "id2label": {str(index): name for index, name in enumerate(names)}}
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory
