"""The model itself: an ONNX Runtime session, its tokenizer, and one thread that runs every batch.

:class:`NliModel` encodes (premise, hypothesis) pairs and turns the graph's output into three probabilities per
pair (entailment, neutral-or-other, contradiction). :meth:`NliModel.submit` queues pairs for the model's own
inference thread, which takes everything queued at once (pairs of several samples evaluated concurrently),
sorts it by length so a batch pads little, and runs it batch by batch: callers await a future, so an event loop
is never blocked by inference, and a sample whose evaluation was abandoned (a timeout) is dropped before it
costs a model call.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnxruntime
from tokenizers import Encoding, Tokenizer

from ragmetrics_core.judges.model.config import ModelJudgeConfig
from ragmetrics_core.judges.model.files import ModelFiles, ModelLoadError, locate
from ragmetrics_core.judges.model.labels import LabelMap, from_config

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

DEFAULT_MAX_LENGTH = 512
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_INT_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}
_PAD_TOKENS = ("[PAD]", "<pad>", "<PAD>", "[pad]")
MAX_QUEUED_PAIRS = 2048
"""Pairs the inference thread takes from the queue at once (bounds the memory of one round)."""

Probabilities = Any  # numpy float32 array [pairs, 3]: entailment, other, contradiction


@dataclass(eq=False)
class _Job:
    encodings: list[Encoding]
    future: Future[Probabilities] = field(default_factory=Future)


class NliModel:
    """One loaded model: construction checks that graph, tokenizer and labels fit together."""

    def __init__(self, config: ModelJudgeConfig) -> None:
        self.config = config
        files = locate(config.model, config.onnx_file)
        self.files = files
        self.labels: LabelMap = from_config(files.config, config.labels)
        self.name = config.name or _short_name(config.model)
        self.tokenizer = _tokenizer(files)
        _check_vocabulary(self.tokenizer, files)
        self.session = _session(files, config)
        self.feeds = _feeds(self.session, files)
        self.max_length = _max_length(config, files)
        self.pad_id = _pad_id(self.tokenizer, files.config)  # read before padding is switched off: we pad per batch
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_length, strategy="longest_first")
        self.template = config.template
        if self.template is None:
            self.overhead = len(self.tokenizer.encode("", "", add_special_tokens=True).ids)
        else:
            self.overhead = len(self.tokenizer.encode(_fill(self.template, "", ""), add_special_tokens=True).ids)
        # Windows are measured (and over-long sentences cut) on whole texts: a second tokenizer that never truncates.
        self._measure = _tokenizer(files)
        self._measure.no_padding()
        self._measure.no_truncation()
        self._probe()
        self._reset_thread()
        _LOADED.add(self)

    def _reset_thread(self) -> None:
        """A fresh queue and no inference thread (at construction, and in a forked child, where the parent's
        thread does not exist and its lock may have been held at the fork)."""
        self._queue: deque[_Job] = deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ encoding and running

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text alone (no special tokens): what windows are measured in."""
        if not texts:
            return []
        return [len(encoding.ids) for encoding in self._measure.encode_batch(list(texts), add_special_tokens=False)]

    def cut(self, text: str, budget: int) -> list[str]:
        """``text`` in consecutive pieces of at most ``budget`` tokens (for a sentence longer than a window)."""
        offsets = self._measure.encode(text, add_special_tokens=False).offsets
        found = []
        for start in range(0, len(offsets), budget):
            span = offsets[start:start + budget]
            piece = text[span[0][0]:span[-1][1]].strip()
            if piece:
                found.append(piece)
        return found or [text]

    def encode(self, pairs: Sequence[tuple[str, str]]) -> list[Encoding]:
        """Model inputs for (premise, hypothesis) pairs, cut to ``max_length`` if a pair still exceeds it."""
        if not pairs:
            return []
        if self.template is None:
            return list(self.tokenizer.encode_batch(list(pairs)))
        return list(self.tokenizer.encode_batch([_fill(self.template, premise, claim) for premise, claim in pairs]))

    def batches(self, encodings: Sequence[Encoding]) -> list[tuple[list[int], dict[str, Any]]]:
        """The graph's feeds for ``encodings``, by length so each batch pads little: (indices, feeds) per batch."""
        order = sorted(range(len(encodings)), key=lambda index: len(encodings[index].ids))
        size = self.config.batch_size
        return [(chunk, self._feed([encodings[index] for index in chunk]))
                for chunk in (order[start:start + size] for start in range(0, len(order), size))]

    def run_feed(self, feed: dict[str, Any]) -> Probabilities:
        """The session on one batch's feeds: probabilities (entailment, other, contradiction) per row."""
        (outputs,) = self.session.run([self.session.get_outputs()[0].name], feed)[:1]
        return self._probabilities(np.asarray(outputs, dtype=np.float32))

    def probabilities(self, encodings: Sequence[Encoding]) -> Probabilities:
        """Run every pair now, on the calling thread."""
        result = np.zeros((len(encodings), 3), dtype=np.float32)
        for indices, feed in self.batches(encodings):
            result[indices] = self.run_feed(feed)
        return result

    def submit(self, encodings: list[Encoding]) -> Future[Probabilities]:
        """Queue pairs for the inference thread; the future holds their probabilities in the order given."""
        job = _Job(encodings)
        with self._wake:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=f"ragmetrics-model-{self.name}", daemon=True)
                self._thread.start()
            self._queue.append(job)
            self._wake.notify()
        return job.future

    def _serve(self) -> None:
        while True:
            with self._wake:
                while not self._queue:
                    self._wake.wait()
                jobs: list[_Job] = []
                taken = 0
                while self._queue and (not jobs or taken + len(self._queue[0].encodings) <= MAX_QUEUED_PAIRS):
                    job = self._queue.popleft()
                    if job.future.set_running_or_notify_cancel():  # False: abandoned (a timeout), skip it
                        jobs.append(job)
                        taken += len(job.encodings)
            self._run_jobs(jobs)

    def _run_jobs(self, jobs: list[_Job]) -> None:
        encodings = [encoding for job in jobs for encoding in job.encodings]
        try:
            probabilities = self.probabilities(encodings)
        except Exception as error:  # the session's errors reach every caller waiting on this round
            for job in jobs:
                job.future.set_exception(error)
            return
        start = 0
        for job in jobs:
            job.future.set_result(probabilities[start:start + len(job.encodings)])
            start += len(job.encodings)

    # ------------------------------------------------------------------ internals

    def _feed(self, encodings: Sequence[Encoding]) -> dict[str, Any]:
        width = max(len(encoding.ids) for encoding in encodings)
        rows = len(encodings)
        ids = np.full((rows, width), self.pad_id, dtype=np.int64)
        mask = np.zeros((rows, width), dtype=np.int64)
        types = np.zeros((rows, width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            ids[row, :length] = encoding.ids
            mask[row, :length] = 1
            types[row, :length] = encoding.type_ids
        arrays = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: arrays[role].astype(dtype, copy=False) for name, role, dtype in self.feeds}

    def _probabilities(self, outputs: Any) -> Probabilities:
        if outputs.ndim != 2 or outputs.shape[1] != self.labels.size:
            raise ModelLoadError(
                f"the graph's output has shape {list(outputs.shape)}, expected [batch, {self.labels.size}] "
                f"for the labels {list(self.labels.names)}"
            )
        shifted = outputs - outputs.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        softmax = exp / exp.sum(axis=1, keepdims=True)
        entail = softmax[:, self.labels.entail]
        contradict = (softmax[:, self.labels.contradict] if self.labels.contradict is not None
                      else np.zeros_like(entail))
        return np.stack([entail, 1.0 - entail - contradict, contradict], axis=1).clip(0.0, 1.0)

    def _probe(self) -> None:
        """One tiny pair through the graph: a tokenizer or graph that does not fit fails here, not per sample."""
        try:
            self.probabilities(self.encode([("A premise.", "A claim.")]))
        except ModelLoadError:
            raise
        except Exception as error:
            raise ModelLoadError(
                f"{self.files.graph}: the graph does not run on this tokenizer's inputs "
                f"({type(error).__name__}: {error}); do tokenizer.json and the graph come from the same model?"
            ) from None


_LOADED: weakref.WeakSet[NliModel] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for model in list(_LOADED):
        model._reset_thread()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _fill(template: str, premise: str, hypothesis: str) -> str:
    # Not str.format: a premise may hold braces.
    return template.replace("{premise}", premise).replace("{hypothesis}", hypothesis)


def _short_name(model: str) -> str:
    parts = [part for part in model.replace("\\", "/").split("/") if part and part != "."]
    return parts[-1] if parts else model


def _tokenizer(files: ModelFiles) -> Tokenizer:
    try:
        return Tokenizer.from_file(str(files.tokenizer))
    except Exception as error:  # tokenizers raises a plain Exception for a malformed file
        raise ModelLoadError(f"{files.tokenizer}: not a tokenizers file ({error})") from None


def _check_vocabulary(tokenizer: Tokenizer, files: ModelFiles) -> None:
    """A tokenizer with more tokens than the model's embedding table has rows belongs to another model."""
    size = files.config.get("vocab_size")
    tokens = tokenizer.get_vocab_size(with_added_tokens=True)
    if isinstance(size, int) and size > 0 and tokens > size:
        raise ModelLoadError(
            f"{files.tokenizer} has {tokens} tokens but the model's vocabulary (config.json vocab_size) has {size}: "
            "the tokenizer belongs to another model"
        )


def _session(files: ModelFiles, config: ModelJudgeConfig) -> onnxruntime.InferenceSession:
    available = set(onnxruntime.get_available_providers())
    missing = [provider for provider in config.providers if provider not in available]
    if missing:
        raise ModelLoadError(
            f"execution provider(s) {missing} not available here (available: {sorted(available)}); "
            "CUDAExecutionProvider needs onnxruntime-gpu and a GPU"
        )
    options = onnxruntime.SessionOptions()
    if config.threads is not None:
        options.intra_op_num_threads = config.threads
        options.inter_op_num_threads = 1
    try:
        return onnxruntime.InferenceSession(str(files.graph), sess_options=options, providers=list(config.providers))
    except Exception as error:  # onnxruntime raises its own exception types for unreadable graphs
        raise ModelLoadError(f"{files.graph}: ONNX Runtime cannot load it ({type(error).__name__}: {error})") from None


def _feeds(session: onnxruntime.InferenceSession, files: ModelFiles) -> list[tuple[str, str, Any]]:
    """(input name, role, dtype) for each graph input, read from the graph rather than assumed."""
    feeds: list[tuple[str, str, Any]] = []
    for graph_input in session.get_inputs():
        role = graph_input.name if graph_input.name in _INPUTS else None
        dtype = _INT_TYPES.get(graph_input.type)
        if role is None or dtype is None:
            raise ModelLoadError(
                f"{files.graph}: unexpected graph input {graph_input.name!r} of type {graph_input.type} "
                f"(a text-classification graph takes {', '.join(_INPUTS)} as integers)"
            )
        feeds.append((graph_input.name, role, dtype))
    if not any(role == "input_ids" for _, role, _ in feeds):
        raise ModelLoadError(f"{files.graph}: the graph takes no input_ids")
    return feeds


def _max_length(config: ModelJudgeConfig, files: ModelFiles) -> int:
    limits = [DEFAULT_MAX_LENGTH]
    positions = files.config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        # RoBERTa-family models reserve two positions past the padding index.
        reserved = 2 if str(files.config.get("model_type", "")).startswith(("roberta", "xlm-roberta")) else 0
        limits.append(positions - reserved)
    if config.max_length is not None:
        return min(config.max_length, *limits[1:]) if len(limits) > 1 else config.max_length
    return max(16, min(limits))


def _pad_id(tokenizer: Tokenizer, model_config: dict[str, Any]) -> int:
    padding = tokenizer.padding
    if padding and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"])
    for token in _PAD_TOKENS:
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    configured = model_config.get("pad_token_id")
    return configured if isinstance(configured, int) else 0

