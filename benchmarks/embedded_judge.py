"""Measure the embedded judge: agreement with human faithfulness labels, and throughput.

Run by hand from the repository root::

    python benchmarks/embedded_judge.py            # everything
    python benchmarks/embedded_judge.py --quick    # 100 rows per dataset, shorter throughput run

Agreement: ``faithfulness`` computed by the :class:`Evaluator` with the embedded judge, against BEGIN dev labels
(faithful = "Fully attributable", Generic rows dropped, per data source) and WiCE dev labels (supported vs
not_supported; supported vs partially_supported + not_supported), evidence packed in chunks of five sentences.
Beside it a trivial baseline: the share of the response's content words found anywhere in the contexts. Both
are reported as ROC AUC (ties count 1/2) and balanced accuracy at the best threshold; the judge's figures are
given for the default graded scoring and, beside them, for binary scoring (verdicts only).

Throughput: all fifteen metrics on synthetic samples of five contexts of about 100 words, one process,
samples per second of CPU time (= per core): the first thousand samples of a fresh process (the judge still
learning the corpus' words, its caches filling), then three more thousands (sustained: their median).

Data are read from ``../shared/data`` relative to the repository root and never copied into the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from ragmetrics_core.engine import Evaluator  # noqa: E402
from ragmetrics_core.judges.embedded import EmbeddedJudge  # noqa: E402
from ragmetrics_core.metrics import MetricOptions, Scoring  # noqa: E402
from ragmetrics_core.sample import RagSample  # noqa: E402

DATA_DIR = REPO_ROOT.parent / "shared" / "data"


def words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of a literal word list, in order (samples draw from them)."""
    return tuple(text.split())


# The baseline's own fixed list of English function words (independent of the judge's lexicon, so the
# baseline does not move when the judge's word lists are tuned).
BASELINE_STOPWORDS = frozenset(
    words(
        """
        a about above after again against all am an and any are as at be because been before being below between
        both but by can could did do does doing down during each few for from further had has have having he her
        here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
        now of off on once only or other our ours ourselves out over own same she should so some such than that
        the their theirs them themselves then there these they this those through to too under until up very was
        we were what when where which while who whom why will with would you your yours yourself yourselves
        """
    )
)
WICE_CHUNK_SENTENCES = 5
_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class Labelled:
    sample: RagSample
    faithful: bool


# ----------------------------------------------------------------------------------------------- data


def load_begin(limit: int | None) -> dict[str, list[Labelled]]:
    """BEGIN dev rows by data source; Generic rows dropped."""
    csv.field_size_limit(sys.maxsize)
    by_source: dict[str, list[Labelled]] = {}
    for path in sorted((DATA_DIR / "begin").glob("begin_dev_*.tsv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row["begin_label"] == "Generic":
                    continue
                rows = by_source.setdefault(row["data_source"], [])
                if limit is not None and len(rows) >= limit:
                    continue
                sample = RagSample(
                    user_input=row["message"], retrieved_contexts=[row["knowledge"]], response=row["response"]
                )
                rows.append(Labelled(sample, row["begin_label"] == "Fully attributable"))
    return by_source


def load_wice(limit: int | None) -> list[tuple[RagSample, str]]:
    """WiCE dev claims with their evidence in chunks of five consecutive sentences, and their label."""
    rows: list[tuple[RagSample, str]] = []
    with (DATA_DIR / "wice" / "dev.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            evidence = record["evidence"]
            chunks = [
                " ".join(evidence[start : start + WICE_CHUNK_SENTENCES])
                for start in range(0, len(evidence), WICE_CHUNK_SENTENCES)
            ]
            context = (record.get("meta") or {}).get("claim_context") or ""
            user_input = context if isinstance(context, str) else " ".join(map(str, context))
            sample = RagSample(user_input=user_input, retrieved_contexts=chunks, response=record["claim"])
            rows.append((sample, record["label"]))
            if limit is not None and len(rows) >= limit:
                break
    return rows


# ----------------------------------------------------------------------------------------------- scores


def baseline(sample: RagSample) -> float:
    """Share of the response's content words (lower-case, not stopwords) found anywhere in the contexts."""
    content = [word for word in _WORD_RE.findall(sample.response.lower()) if word not in BASELINE_STOPWORDS]
    if not content:
        return 0.0
    context_words = set(_WORD_RE.findall(" ".join(sample.context_texts).lower()))
    return sum(word in context_words for word in content) / len(content)


def judge_faithfulness(
    samples: Sequence[RagSample], scoring: Scoring = Scoring.GRADED
) -> tuple[list[float], int]:
    """Faithfulness per sample (undetermined counted as 0, and counted)."""
    evaluator = Evaluator(judge=EmbeddedJudge(), metrics=["faithfulness"], options=MetricOptions(scoring=scoring))
    results = evaluator.evaluate_many(list(samples), concurrency=1, progress=False)
    scores: list[float] = []
    undetermined = 0
    for result in results:
        value = result.values()["faithfulness"]
        if value is None:
            undetermined += 1
        scores.append(0.0 if value is None else value)
    return scores, undetermined


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Probability that a positive outranks a negative (ties count 1/2), via average ranks."""
    order = sorted(range(len(scores)), key=lambda index: scores[index])
    ranks = [0.0] * len(scores)
    position = 0
    while position < len(order):
        end = position
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[position]]:
            end += 1
        average = (position + end) / 2 + 1
        for index in order[position : end + 1]:
            ranks[index] = average
        position = end + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum = sum(rank for rank, label in zip(ranks, labels, strict=True) if label)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def best_balanced_accuracy(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float]:
    """The best balanced accuracy over thresholds ``score >= t`` → faithful, and that threshold."""
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan"), float("nan")
    best = (0.0, 0.0)
    for threshold in [*sorted(set(scores)), float("inf")]:
        true_positive = sum(1 for score, label in zip(scores, labels, strict=True) if label and score >= threshold)
        true_negative = sum(1 for score, label in zip(scores, labels, strict=True) if not label and score < threshold)
        accuracy = (true_positive / positives + true_negative / negatives) / 2
        if accuracy > best[0]:
            best = (accuracy, threshold)
    return best


# ----------------------------------------------------------------------------------------------- report


def report_row(
    name: str, samples: Sequence[RagSample], labels: Sequence[bool], judged: Sequence[float],
    binary: Sequence[float],
) -> None:
    base = [baseline(sample) for sample in samples]
    judge_auc, base_auc = auroc(judged, labels), auroc(base, labels)
    judge_bacc, judge_t = best_balanced_accuracy(judged, labels)
    base_bacc, base_t = best_balanced_accuracy(base, labels)
    print(
        f"{name:<38} {len(labels):>5} {sum(labels):>5}  "
        f"{judge_auc:>7.3f} {judge_bacc:>7.3f} (t={judge_t:.2f})  "
        f"{auroc(binary, labels):>7.3f} {best_balanced_accuracy(binary, labels)[0]:>7.3f}  "
        f"{base_auc:>7.3f} {base_bacc:>7.3f} (t={base_t:.2f})"
    )


def agreement(limit: int | None) -> None:
    if not DATA_DIR.is_dir():
        print(f"SKIP agreement: data directory {DATA_DIR} not found (expected ../shared/data beside the repo)")
        return
    header = (f"{'dataset':<38} {'n':>5} {'pos':>5}  {'AUROC':>7} {'BAcc':>7} {'':8}  {'AUROC':>7} {'BAcc':>7}  "
              f"{'AUROC':>7} {'BAcc':>7}")
    print("\nFaithfulness vs human labels           (embedded judge, graded)    (binary)          "
          "(baseline: content-word share)")
    print(header)
    begin_dir = DATA_DIR / "begin"
    if begin_dir.is_dir():
        all_samples: list[RagSample] = []
        all_labels: list[bool] = []
        all_scores: list[float] = []
        all_binary: list[float] = []
        for source, rows in sorted(load_begin(limit).items()):
            samples = [row.sample for row in rows]
            labels = [row.faithful for row in rows]
            scores, undetermined = judge_faithfulness(samples)
            binary, _ = judge_faithfulness(samples, Scoring.BINARY)
            report_row(f"BEGIN {source}" + (f" ({undetermined} undet.)" if undetermined else ""),
                       samples, labels, scores, binary)
            all_samples += samples
            all_labels += labels
            all_scores += scores
            all_binary += binary
        report_row("BEGIN all sources", all_samples, all_labels, all_scores, all_binary)
    else:
        print(f"SKIP BEGIN: {begin_dir} not found")
    wice_file = DATA_DIR / "wice" / "dev.jsonl"
    if wice_file.is_file():
        claims = load_wice(limit)
        wice_samples = [sample for sample, _ in claims]
        wice_scores, undetermined = judge_faithfulness(wice_samples)
        wice_binary, _ = judge_faithfulness(wice_samples, Scoring.BINARY)
        suffix = f" ({undetermined} undet.)" if undetermined else ""
        strict = [
            (sample, label == "supported", score, plain)
            for (sample, label), score, plain in zip(claims, wice_scores, wice_binary, strict=True)
            if label != "partially_supported"
        ]
        report_row("WiCE supported vs not" + suffix, [row[0] for row in strict], [row[1] for row in strict],
                   [row[2] for row in strict], [row[3] for row in strict])
        report_row("WiCE supported vs partial+not" + suffix, wice_samples,
                   [label == "supported" for _, label in claims], wice_scores, wice_binary)
    else:
        print(f"SKIP WiCE: {wice_file} not found")


# ----------------------------------------------------------------------------------------------- throughput

_SYLLABLES = words("ka lo ri ten mar vel do sun bri gal or ath en cor pin tha us lem nor qui fel ras mon tiv ed")
_FUNCTION_WORDS = words("the of in and was to a is for on by with as at from that its were has")
_NAMES = words("Berlin Lisbon Oslo Quebec Kyoto Dakar Lima Perth Turin Malmo Ghent Porto")


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)  # sets iterate in hash order; sort, then shuffle with the seeded generator
    rng.shuffle(ordered)
    return ordered


def synthetic_sample(rng: random.Random, vocabulary: Sequence[str]) -> RagSample:
    """Five contexts of ~100 words (about 45% function words, Zipf-like content words, names and years),
    a three-sentence response (one sentence copied from a context, two made of context words) and a
    two-sentence reference."""
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]

    def sentence(pool: Sequence[str] | None = None) -> str:
        content = list(pool) if pool else rng.choices(vocabulary, weights=weights, k=rng.randint(7, 12))
        words: list[str] = [rng.choice(_NAMES)]
        for word in content:
            words.append(word)
            if rng.random() < 0.8:
                words.append(rng.choice(_FUNCTION_WORDS))
        words.insert(rng.randint(2, len(words) - 1), str(rng.randint(1800, 2024)))
        return " ".join(words).capitalize() + "."

    def text(n_words: int) -> str:
        parts: list[str] = []
        while sum(len(part.split()) for part in parts) < n_words:
            parts.append(sentence())
        return " ".join(parts)

    contexts = [text(100) for _ in range(5)]
    context_words = [word for context in contexts for word in context.rstrip(".").split()[1:] if word.islower()]
    response = " ".join([
        contexts[0].split(". ")[1].rstrip(".") + ".",
        sentence(rng.sample(context_words, 8)),
        sentence(rng.sample(context_words, 6)),
    ])
    reference = " ".join([contexts[1].split(". ")[0].rstrip(".") + ".", sentence()])
    return RagSample(user_input="What happened in " + rng.choice(_NAMES) + "?", retrieved_contexts=contexts,
                     response=response, reference=reference)


SUSTAINED_BATCHES = 3


def throughput(n_samples: int) -> None:
    """Consecutive batches of ``n_samples`` new samples: the first from a fresh process (one sample before it,
    for imports), while the judge still learns the corpus' words and its caches fill; then
    :data:`SUSTAINED_BATCHES` more, as a long-running service sees it, reported by their median (the machine's
    speed drifts by a few per cent from one batch to the next). Every sample is new: nothing is judged twice."""
    rng = random.Random(20240601)
    vocabulary = _vocabulary(rng)
    evaluator = Evaluator(judge=EmbeddedJudge())
    evaluator.evaluate(synthetic_sample(rng, vocabulary))  # imports and lexicon set-up outside the timed loop

    async def run(batch: Sequence[RagSample]) -> None:
        # One event loop, samples one after the other: the judge's cost, not thread start-up per call.
        for sample in batch:
            await evaluator.aevaluate(sample)

    print("\nThroughput (all 15 metrics, synthetic samples of 5 contexts of ~110 words; every sample new)")
    sustained: list[float] = []
    for number in range(1 + SUSTAINED_BATCHES):
        # Each batch is made just before it runs (the same generator, so the same samples as one long list).
        batch = [synthetic_sample(rng, vocabulary) for _ in range(n_samples)]
        words = sum(len(" ".join(sample.context_texts).split()) for sample in batch) / n_samples
        wall = time.perf_counter()
        cpu = time.process_time()
        asyncio.run(run(batch))
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
        label = "first" if number == 0 else f"next #{number}"
        print(f"  {label:>8} {n_samples}: {n_samples / cpu:6.0f} samples/s per core (CPU time)"
              f" {n_samples / wall:6.0f} wall clock   (~{words:.0f} context words a sample)")
        if number:
            sustained.append(n_samples / cpu)
    median = statistics.median(sustained)
    print(f"  sustained (median of the next {SUSTAINED_BATCHES}): {median:.0f} samples/s per core")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="100 rows per dataset and a shorter throughput run")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-agreement", action="store_true")
    args = parser.parse_args(argv)
    limit = 100 if args.quick else None
    steps: list[Callable[[], None]] = []
    if not args.skip_throughput:
        steps.append(lambda: throughput(200 if args.quick else 1000))
    if not args.skip_agreement:
        steps.append(lambda: agreement(limit))
    for step in steps:
        step()


if __name__ == "__main__":
    main()
