"""How far the embedded judge's `faithfulness` can be read as a probability: Brier score and reliability bins.

Reads the labelled faithfulness sets in ``../shared/data/faithfulness`` (label 1 = faithful to the contexts; see
that folder's README) and scores one split with the default judge. Prints per set the Brier score of the score
read as P(faithful), the Brier score of always answering the set's base rate (a score that knows nothing), and,
pooled over the sets, the mean label in each score bin (a calibrated score has the mean label near the bin's
centre). Report-only: the validation split is for reading, never for choosing rules.

    .venv/bin/python benchmarks/embedded_calibration.py --split validation
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ragmetrics_core import Evaluator, RagSample

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "faithfulness"
BINS = 5


def brier(scores: list[float], labels: list[int]) -> float:
    return sum((score - label) ** 2 for score, label in zip(scores, labels, strict=True)) / len(labels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["tune", "validation"], default="validation")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: no labelled data at {DATA}")
        return 0
    evaluator = Evaluator(metrics=["faithfulness"])
    pooled: list[tuple[float, int]] = []
    print(f"{'set':24s} {'rows':>5s} {'brier':>6s} {'base-rate brier':>15s}")
    for path in sorted(DATA.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        rows = [row for row in rows if row["split"] == args.split]
        scores: list[float] = []
        labels: list[int] = []
        for row in rows:
            sample = RagSample(user_input=row["user_input"], retrieved_contexts=row["retrieved_contexts"],
                               response=row["response"])
            value = evaluator.evaluate(sample).values().get("faithfulness")
            if value is None:
                continue  # undetermined: no probability to grade
            scores.append(float(value))
            labels.append(int(row["label"]))
        base_rate = [sum(labels) / len(labels)] * len(labels)
        print(f"{path.stem:24s} {len(labels):5d} {brier(scores, labels):6.3f} {brier(base_rate, labels):15.3f}")
        pooled.extend(zip(scores, labels, strict=True))
    print(f"\n{'score bin':>10s} {'rows':>6s} {'mean label':>10s}")
    for number in range(BINS):
        low, high = number / BINS, (number + 1) / BINS
        inside = [label for score, label in pooled if low <= score < high or (number == BINS - 1 and score == 1.0)]
        mean = sum(inside) / len(inside) if inside else float("nan")
        print(f"{low:4.1f}–{high:3.1f}  {len(inside):6d} {mean:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
