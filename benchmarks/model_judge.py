"""Measure the model judge's plumbing and speed on random-weight encoders of real sizes (no download).

Run by hand from the repository root::

    python benchmarks/model_judge.py --quick --sizes MiniLM-L6   # a few CPU-minutes
    python benchmarks/model_judge.py                             # both sizes, more samples (a quarter hour)

The encoders are built here with ``onnx.helper``: BERT-style embeddings, then layers of multi-head
self-attention and a feed-forward block (MatMul, Softmax, LayerNormalization; GELU in its sigmoid form), a
pooler and a 3-way classifier, with random weights: MiniLM-L6 sized (6 layers, hidden 384, 12 heads, FFN 1536)
and BERT-base sized (12 layers, hidden 768, 12 heads, FFN 3072), vocabulary 30,522, 512 positions. Their
verdicts mean nothing; their cost per pair is that of a real model of the same shape (a real export through
optimum may be a little faster: ONNX Runtime fuses the attention it recognises). The tokenizer is a WordPiece
``tokenizer.json`` holding the workload's words, so each word is one token (real English averages ~1.3).

The workload is the embedded judge benchmark's standard synthetic sample (benchmarks/embedded_judge.py):
5 contexts of ~100 words, a 3-sentence response, a 2-sentence reference. Reported:

- pairs per CPU-second (= per core): the judge's model stage with ONNX Runtime on one thread;
- samples per CPU-second: all fifteen metrics through the Evaluator (and CPU-minutes per 1,000 samples);
- cost against the number of chunks and the chunk length (pairs run and CPU-ms per sample, response claims;
  first size only);
- the share of (claim, window) pairs the term screen kept away from the model;
- our time over the bare ``InferenceSession.run`` on the same pre-tokenized batches (target at most 1.2x).

Times are CPU time of the process (all its threads), not wall time: the machine this runs on is shared.

Quality is not measured here: random weights have none. docs/model_judge.md cites the authors' figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordPiece
from tokenizers.processors import TemplateProcessing

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from embedded_judge import _vocabulary, synthetic_sample  # noqa: E402  (the standard workload)

from ragmetrics_core.engine import Evaluator  # noqa: E402
from ragmetrics_core.evidence import EvidencePart  # noqa: E402
from ragmetrics_core.judges.base import CheckRequest  # noqa: E402
from ragmetrics_core.judges.embedded import EmbeddedJudge  # noqa: E402
from ragmetrics_core.judges.model import ModelJudge, ModelJudgeConfig  # noqa: E402
from ragmetrics_core.judges.model.judge import _Plan  # noqa: E402
from ragmetrics_core.sample import RagSample  # noqa: E402

VOCABULARY_SIZE = 30_522
POSITIONS = 512
SIZES = {
    "MiniLM-L6": {"layers": 6, "hidden": 384, "heads": 12, "ffn": 1536},
    "BERT-base": {"layers": 12, "hidden": 768, "heads": 12, "ffn": 3072},
}
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
P = EvidencePart
CHECKED = frozenset({P.RESPONSE_VS_CHUNKS, P.RESPONSE_VS_CONTEXTS})


# ---------------------------------------------------------------------------------------------- the encoders


class _Graph:
    """Accumulates nodes and random initializers for one encoder."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []
        self.count = 0

    def weight(self, *shape: int, scale: float = 0.02, value: float | None = None) -> str:
        self.count += 1
        name = f"w{self.count}"
        array = (np.full(shape, value, dtype=np.float32) if value is not None
                 else (self.rng.standard_normal(shape, dtype=np.float32) * scale))
        self.weights.append(numpy_helper.from_array(array, name))
        return name

    def constant(self, array: Any) -> str:
        self.count += 1
        name = f"c{self.count}"
        self.weights.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, kind: str, inputs: Sequence[str], **attributes: Any) -> str:
        self.count += 1
        output = f"t{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], **attributes))
        return output

    def dense(self, x: str, width_in: int, width_out: int) -> str:
        return self.op("Add", [self.op("MatMul", [x, self.weight(width_in, width_out)]), self.weight(width_out)])

    def layer_norm(self, x: str, width: int) -> str:
        return self.op("LayerNormalization", [x, self.weight(width, value=1.0), self.weight(width, value=0.0)],
                       axis=-1, epsilon=1e-12)


def encoder(layers: int, hidden: int, heads: int, ffn: int, seed: int = 0) -> onnx.ModelProto:
    g = _Graph(seed)
    head = hidden // heads
    words = g.op("Gather", [g.weight(VOCABULARY_SIZE, hidden), "input_ids"])
    types = g.op("Gather", [g.weight(2, hidden), "token_type_ids"])
    length = g.op("Gather", [g.op("Shape", ["input_ids"]), g.constant(np.array(1, dtype=np.int64))])
    positions = g.op("Range", [g.constant(np.array(0, dtype=np.int64)), length,
                               g.constant(np.array(1, dtype=np.int64))])
    where = g.op("Gather", [g.weight(POSITIONS, hidden), positions])
    x = g.layer_norm(g.op("Add", [g.op("Add", [words, types]), where]), hidden)
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    blocked = g.op("Mul", [g.op("Sub", [g.constant(np.array(1.0, dtype=np.float32)), mask]),
                           g.constant(np.array(-10000.0, dtype=np.float32))])
    bias = g.op("Unsqueeze", [blocked, g.constant(np.array([1, 2], dtype=np.int64))])  # [B, 1, 1, L]
    split_shape = g.constant(np.array([0, 0, heads, head], dtype=np.int64))
    merge_shape = g.constant(np.array([0, 0, hidden], dtype=np.int64))
    scale = g.constant(np.array(1.0 / np.sqrt(head), dtype=np.float32))
    for _ in range(layers):
        def split(projection: str, perm: list[int]) -> str:
            return g.op("Transpose", [g.op("Reshape", [projection, split_shape])], perm=perm)

        queries = split(g.dense(x, hidden, hidden), [0, 2, 1, 3])
        keys = split(g.dense(x, hidden, hidden), [0, 2, 3, 1])
        values = split(g.dense(x, hidden, hidden), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [queries, keys]), scale]), bias])
        attended = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), values])
        merged = g.op("Reshape", [g.op("Transpose", [attended], perm=[0, 2, 1, 3]), merge_shape])
        x = g.layer_norm(g.op("Add", [x, g.dense(merged, hidden, hidden)]), hidden)
        inner = g.dense(x, hidden, ffn)
        activated = g.op("Mul", [inner, g.op("Sigmoid", [g.op("Mul", [inner, g.constant(
            np.array(1.702, dtype=np.float32))])])])
        x = g.layer_norm(g.op("Add", [x, g.dense(activated, ffn, hidden)]), hidden)
    first = g.op("Gather", [x, g.constant(np.array(0, dtype=np.int64))], axis=1)
    pooled = g.op("Tanh", [g.dense(first, hidden, hidden)])
    logits = g.dense(pooled, hidden, 3)
    g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])]
    model = helper.make_model(helper.make_graph(g.nodes, "encoder", inputs, outputs, g.weights),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def tokenizer(words: Sequence[str]) -> Tokenizer:
    vocabulary = list(dict.fromkeys([*SPECIALS, *"0123456789.,;:!?'\"()-", *sorted(words)]))
    vocabulary += [f"[unused{number}]" for number in range(VOCABULARY_SIZE - len(vocabulary))]
    built = Tokenizer(WordPiece({token: index for index, token in enumerate(vocabulary)}, unk_token="[UNK]"))
    built.normalizer = normalizers.BertNormalizer(lowercase=True)
    built.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    built.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocabulary.index("[CLS]")), ("[SEP]", vocabulary.index("[SEP]"))],
    )
    return built


def build(directory: Path, size: str, words: Sequence[str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    onnx.save(encoder(**SIZES[size]), str(directory / "model.onnx"))
    tokenizer(words).save(str(directory / "tokenizer.json"))
    config = {"model_type": "bert", "vocab_size": VOCABULARY_SIZE, "max_position_embeddings": POSITIONS,
              "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}}
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


# ---------------------------------------------------------------------------------------------- the workload


def workload(count: int, seed: int = 20240601) -> tuple[list[RagSample], list[str]]:
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng)
    samples = [synthetic_sample(rng, vocabulary) for _ in range(count)]
    words = {word.lower().strip(".") for sample in samples
             for text in [sample.response, sample.reference or "", sample.user_input, *sample.context_texts]
             for word in text.split()}
    return samples, sorted(words | {word.lower() for word in vocabulary})


def reshaped(samples: Sequence[RagSample], chunks: int, join: int) -> list[RagSample]:
    """Samples of ``chunks`` contexts, each ``join`` standard contexts long (~100 words each), drawn from the
    standard samples' contexts in turn; claims are the first sample's."""
    pool = [text for sample in samples for text in sample.context_texts]
    made = []
    for number, sample in enumerate(samples):
        start = number * chunks * join
        contexts = [" ".join(pool[(start + c * join + j) % len(pool)] for j in range(join)) for c in range(chunks)]
        contexts[0] = " ".join([sample.context_texts[0], *contexts[0].split(". ")[1:]]) if join > 1 else \
            sample.context_texts[0]
        made.append(RagSample(user_input=sample.user_input, response=sample.response, reference=sample.reference,
                              retrieved_contexts=contexts))
    return made


def check_requests(samples: Sequence[RagSample]) -> list[CheckRequest]:
    """The model stage's input: the embedded extractor's response claims against every chunk."""
    extractor = EmbeddedJudge()
    from ragmetrics_core.judges.base import ExtractionRequest

    requests = []
    for sample in samples:
        claims = asyncio.run(extractor.extract(ExtractionRequest(
            user_input=sample.user_input, response=sample.response, reference=sample.reference,
            want=frozenset({P.RESPONSE_CLAIMS}))))
        requests.append(CheckRequest(response=sample.response, reference=sample.reference,
                                     contexts=list(sample.context_texts), user_input=sample.user_input,
                                     response_claims=claims.response_claims or [], want=CHECKED))
    return requests


# ---------------------------------------------------------------------------------------------- measures


def check_all(judge: ModelJudge, requests: Sequence[CheckRequest]) -> float:
    """CPU seconds of this process (every thread: the loop's and the model's) to check ``requests`` in turn.
    CPU time, not wall time: the machine is shared, and other processes' load would count in wall time."""
    async def run() -> None:
        for request in requests:
            await judge.check(request)

    started = time.process_time()
    asyncio.run(run())
    return time.process_time() - started


def overhead(judge: ModelJudge, requests: Sequence[CheckRequest], repeats: int) -> tuple[float, float, int]:
    """(our seconds, bare session seconds, pairs) for the same requests: the bare run gets our batches ready-made."""
    feeds = []
    pairs = 0
    for request in requests:
        plan = _Plan(judge.model, request)
        encodings = judge.model.encode(plan.pairs)
        pairs += len(encodings)
        feeds.extend(feed for _, feed in judge.model.batches(encodings))
    session = judge.model.session
    output = session.get_outputs()[0].name
    ours: list[float] = []
    bare: list[float] = []
    for _ in range(repeats):  # interleaved, so drift of the shared machine hits both alike
        started = time.process_time()
        for feed in feeds:
            session.run([output], feed)
        bare.append(time.process_time() - started)
        ours.append(check_all(judge, requests))
    return statistics.median(ours), statistics.median(bare), pairs


def evaluator_rate(judge: ModelJudge, samples: Sequence[RagSample], concurrency: int) -> tuple[float, float]:
    """(samples per CPU second, samples per wall-clock second) for all fifteen metrics."""
    evaluator = Evaluator(judge=judge)
    wall, cpu = time.perf_counter(), time.process_time()
    evaluator.evaluate_many(list(samples), concurrency=concurrency)
    return len(samples) / (time.process_time() - cpu), len(samples) / (time.perf_counter() - wall)


def judge_for(directory: Path, threads: int, **fields: Any) -> ModelJudge:
    return ModelJudge(ModelJudgeConfig(model=str(directory), threads=threads, **fields))


def measure(size: str, directory: Path, samples: list[RagSample], quick: bool, shapes: bool) -> None:
    count = 4 if quick else 10
    standard = samples[:count]
    requests = check_requests(standard)
    one = judge_for(directory, 1)
    check_all(one, requests[:1])  # warm-up: first runs allocate
    one.stats = type(one.stats)()
    ours, bare, pairs = overhead(one, requests, 2 if quick else 3)
    stats = one.stats
    screened = stats.pairs_screened_out / max(1, stats.pairs_screened_out + stats.pairs_run)
    print(f"\n{size} (random weights), standard workload: {count} samples, 5 chunks of ~100 words, "
          f"{sum(len(r.response_claims) for r in requests) / count:.1f} response claims a sample")
    print(f"  model stage on 1 thread: {pairs / ours:6.1f} pairs per CPU-second (bare session {pairs / bare:6.1f}); "
          f"{pairs / count:.1f} pairs run a sample, {screened:.0%} of (claim, window) pairs screened out")
    print(f"  ours / bare InferenceSession.run on the same batches (CPU time): {ours / bare:.3f}x "
          f"(ours {1000 * ours / count:.0f} ms a sample, bare {1000 * bare / count:.0f} ms)")
    tokens = [len(encoding.ids) for request in requests
              for encoding in one.model.encode(_Plan(one.model, request).pairs)]
    print(f"  tokens a pair: median {statistics.median(tokens):.0f}, max {max(tokens)}")
    per_cpu, per_wall = evaluator_rate(one, standard, concurrency=4)
    print(f"  all 15 metrics (Evaluator.evaluate_many, 1 inference thread): {per_cpu:.2f} samples per CPU-second "
          f"({per_wall:.2f}/s wall clock on the shared machine); {1000 / per_cpu / 60:.0f} CPU-minutes per 1,000 "
          "samples")
    if not shapes:
        return
    print("  cost by chunks (~100 words each) and by chunk length (5 chunks), response claims, 1 thread:")
    grid = [(1, 1), (5, 1), (10, 1), (5, 4)] if quick else [(1, 1), (5, 1), (10, 1), (20, 1), (5, 2), (5, 4), (5, 8)]
    for chunks, join in grid:
        shaped = check_requests(reshaped(samples[: 2 if quick else 4], chunks, join))
        judge = judge_for(directory, 1)
        seconds = check_all(judge, shaped)
        run = judge.stats.pairs_run / len(shaped)
        skipped = judge.stats.pairs_screened_out / max(1, judge.stats.pairs_screened_out + judge.stats.pairs_run)
        print(f"    {chunks:>2} chunks x ~{100 * join:>3} words: {run:6.1f} pairs run a sample, "
              f"{skipped:4.0%} screened out, {1000 * seconds:8.0f} CPU-ms a sample")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples, repeats and shapes")
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"encoder sizes, of {', '.join(SIZES)}")
    args = parser.parse_args()
    samples, words = workload(40)
    sizes = [size.strip() for size in args.sizes.split(",") if size.strip()]
    with tempfile.TemporaryDirectory(prefix="ragmetrics-model-bench-") as root:
        for size in sizes:
            started = time.perf_counter()
            directory = build(Path(root) / size, size, words)
            megabytes = (directory / "model.onnx").stat().st_size / 1e6
            print(f"built {size}: {megabytes:.0f} MB in {time.perf_counter() - started:.1f} s")
            measure(size, directory, samples, args.quick, shapes=size == sizes[0])


if __name__ == "__main__":
    main()
