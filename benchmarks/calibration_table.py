"""Calibration on the user's labels, measured: per set, fit on its tune split, read Brier / ECE on its validation split.

Scores every row of the labelled faithfulness sets (``../shared/data/faithfulness``, label 1 = faithful; see that
folder's README) with the embedded judge's ``faithfulness``, caching the scores in ``--cache`` (a folder, one JSONL
of ``{"id", "score"}`` per set, appended as rows are scored, so an interrupted run resumes; kept under a fingerprint
of the judge's and the metrics' sources, so a changed judge is scored afresh). Then, per set:

- fits a calibration map on the set's ``tune`` split (``ragmetrics_core.calibration.fit``: isotonic or Platt,
  chosen by cross-validated Brier), exactly what ``ragmetrics calibrate`` does;
- reports on the set's ``validation`` split the Brier score and the expected calibration error (ECE, 10 equal-width
  bins) of the raw score read as P(faithful), of the set's own calibration, and of the tune base rate alone, with
  95 % bootstrap intervals over rows (1,000 resamples, seeded), and the Brier gain (raw minus calibrated) with its
  interval over paired resamples;
- the cross-set case: each set's map applied to every other set's validation split (Brier), and one map fitted on
  all tune splits pooled, to show why the fit is per deployment.

Report-only: the validation split is read, never used to fit or choose anything.

    .venv/bin/python benchmarks/calibration_table.py            # scores once (~13k rows), then prints the tables
    .venv/bin/python benchmarks/calibration_table.py --score-only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy

import ragmetrics_core
from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.calibration import Calibration, MetricCalibration
from ragmetrics_core.calibration.fit import fit_metric, quality

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "faithfulness"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "ragmetrics_calibration_scores"


def judge_fingerprint() -> str:
    """A hash of the sources that make a ``faithfulness`` score: the embedded judge and the metrics."""
    package = Path(ragmetrics_core.__file__).parent
    digest = hashlib.sha256()
    for source in sorted([*package.glob("judges/embedded/**/*"), *package.glob("metrics/**/*.py")]):
        if source.is_file() and "__pycache__" not in source.parts:
            digest.update(source.relative_to(package).as_posix().encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def cached_scores(path: Path, cache_dir: Path, evaluator: Evaluator) -> dict[str, float | None]:
    """Row id → the judge's ``faithfulness`` (``None``: undetermined), scoring only the rows not cached yet."""
    cache_dir = cache_dir / judge_fingerprint()
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache = cache_dir / f"{path.stem}.jsonl"
    scores: dict[str, float | None] = {}
    if cache.exists():
        for line in cache.open(encoding="utf-8"):
            if line.endswith("\n"):  # a torn last line (interrupted write) is scored again
                entry = json.loads(line)
                scores[entry["id"]] = entry["score"]
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    todo = [row for row in rows if row["id"] not in scores]
    if todo:
        started = time.perf_counter()
        with cache.open("a", encoding="utf-8") as out:
            for number, row in enumerate(todo, start=1):
                sample = RagSample(
                    id=row["id"], user_input=row["user_input"], retrieved_contexts=row["retrieved_contexts"],
                    response=row["response"],
                )
                value = evaluator.evaluate(sample).score("faithfulness")
                scores[row["id"]] = value
                out.write(json.dumps({"id": row["id"], "score": value}) + "\n")
                if number % 500 == 0:
                    out.flush()
                    rate = number / (time.perf_counter() - started)
                    print(f"  {path.stem}: {number}/{len(todo)} scored ({rate:.1f}/s)", file=sys.stderr, flush=True)
    return scores


Pairs = tuple[list[float], list[int]]


def split_pairs(path: Path, scores: dict[str, float | None], split: str) -> tuple[Pairs, int]:
    """(scores, labels) of the split's rows with a determined score, and how many were undetermined."""
    kept: Pairs = ([], [])
    undetermined = 0
    for line in path.open(encoding="utf-8"):
        row = json.loads(line)
        if row["split"] != split:
            continue
        score = scores[row["id"]]
        if score is None:
            undetermined += 1
            continue
        kept[0].append(score)
        kept[1].append(int(row["label"]))
    return kept, undetermined


def calibrated(fitted: MetricCalibration, values: list[float]) -> list[float]:
    """What the online path computes: the stored map applied in plain Python."""
    calibration = Calibration(judge="embedded", metrics={"faithfulness": fitted})
    return [calibration.probability("faithfulness", value) or 0.0 for value in values]


def paired_gain(raw: list[float], mapped: list[float], labels: list[int], resamples: int = 1000) -> str:
    """Brier raw minus calibrated (positive: calibration helps) with a 95 % interval over paired resamples."""
    p, q, y = (numpy.asarray(values, dtype=float) for values in (raw, mapped, labels))
    gain = ((p - y) ** 2 - (q - y) ** 2)
    rng = numpy.random.default_rng(0)
    draws = [gain[rng.integers(0, len(y), len(y))].mean() for _ in range(resamples)]
    low, high = numpy.quantile(draws, [0.025, 0.975])
    return f"{gain.mean():+.3f} [{low:+.3f}, {high:+.3f}]"


def cell(value: tuple[float, float, float]) -> str:
    return f"{value[0]:.3f} [{value[1]:.3f}, {value[2]:.3f}]"


def print_tables(tune: dict[str, Pairs], validation: dict[str, Pairs], undetermined: dict[str, int]) -> None:
    fitted = {name: fit_metric("faithfulness", *pairs) for name, pairs in tune.items()}
    pooled_pairs: Pairs = ([], [])
    for scores, labels in tune.values():
        pooled_pairs[0].extend(scores)
        pooled_pairs[1].extend(labels)
    pooled = fit_metric("faithfulness", *pooled_pairs)
    print("Per set: fitted on its tune split, read on its validation split (Brier, ECE; 95 % bootstrap intervals)\n")
    print("| set | tune rows | validation rows (undetermined) | share faithful tune → validation | method "
          "| Brier raw | Brier calibrated | gain | ECE raw | ECE calibrated | Brier, tune base rate |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (scores, labels) in validation.items():
        own = fitted[name]
        raw = quality(scores, labels)
        probabilities = calibrated(own, scores)
        mapped = quality(probabilities, labels)
        base = quality([own.base_rate] * len(labels), labels)
        rate = sum(labels) / len(labels)
        print(f"| {name} | {own.n} | {len(labels)} ({undetermined[name]}) | {own.base_rate:.0%} → {rate:.0%} "
              f"| {own.method} | {cell(raw.brier)} | {cell(mapped.brier)} "
              f"| {paired_gain(scores, probabilities, labels)} "
              f"| {cell(raw.ece)} | {cell(mapped.ece)} "
              f"| {base.brier[0]:.3f} |")
    names = list(validation)
    print("\nCross-set: Brier on each set's validation split (columns) of the map fitted on a tune split (rows)\n")
    print("| fitted on ↓ / read on → | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    print("| (raw score) | " + " | ".join(f"{quality(*validation[n], resamples=1).brier[0]:.3f}" for n in names) + " |")
    for row_name, fit in [*fitted.items(), ("all tune splits pooled", pooled)]:
        cells = []
        for name in names:
            scores, labels = validation[name]
            value = quality(calibrated(fit, scores), labels, resamples=1).brier[0]
            cells.append(f"**{value:.3f}**" if row_name == name else f"{value:.3f}")
        print(f"| {row_name} | " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"score cache folder ({DEFAULT_CACHE})")
    parser.add_argument("--score-only", action="store_true", help="fill the cache and stop")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: no labelled data at {DATA}")
        return 0
    evaluator = Evaluator(metrics=["faithfulness"])
    tune: dict[str, Pairs] = {}
    validation: dict[str, Pairs] = {}
    undetermined: dict[str, int] = {}
    for path in sorted(DATA.glob("*.jsonl")):
        scores = cached_scores(path, args.cache, evaluator)
        tune[path.stem], _ = split_pairs(path, scores, "tune")
        validation[path.stem], undetermined[path.stem] = split_pairs(path, scores, "validation")
    if args.score_only:
        return 0
    print_tables(tune, validation, undetermined)
    return 0


if __name__ == "__main__":
    sys.exit(main())
