"""How sure is the embedded judge's margin over the overlap baseline? AUROC differences with bootstrap intervals.

Scores one split of the labelled faithfulness sets (``../shared/data/faithfulness``, see its README) with the
default judge, as ``../shared/tools/judge_quality.py`` does (its overlap baseline and AUROC are imported from
there, not copied), and prints per set the AUROC of the judge and of the baseline, their difference and a 95 %
interval of the difference from a paired bootstrap (the same resampled rows for both scores, 1,000 resamples,
seeded). A HaluEval pair (the right and the hallucinated answer to one prompt) is resampled as one unit. The
last line is the mean difference over the sets with its interval. Report-only: read the validation split, never
choose rules by it.

    .venv/bin/python benchmarks/judge_margin.py --split validation
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ragmetrics_core import Evaluator, RagSample

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "data" / "faithfulness"
TOOL = SHARED / "tools" / "judge_quality.py"
RESAMPLES = 1000

Scored = list[tuple[str, int, float, float]]  # (resampling unit, label, judge, baseline)


def load_tool() -> tuple[Callable[[dict[str, object]], float], Callable[[list[float], list[int]], float]]:
    spec = importlib.util.spec_from_file_location("judge_quality", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.overlap_baseline, module.auroc


def unit_of(row_id: str, set_name: str) -> str:
    """HaluEval ids end in ``-<pair>-<variant>``: both variants of a pair are one resampling unit."""
    return row_id.rsplit("-", 1)[0] if set_name.startswith("halueval") else row_id


def difference(rows: Scored, auroc: Callable[[list[float], list[int]], float]) -> float:
    labels = [label for _, label, _, _ in rows]
    return auroc([judge for *_, judge, _ in rows], labels) - auroc([base for *_, base in rows], labels)


def bootstrap(rows: Scored, auroc: Callable[[list[float], list[int]], float], rng: random.Random) -> list[float]:
    units: dict[str, Scored] = {}
    for row in rows:
        units.setdefault(row[0], []).append(row)
    groups = list(units.values())
    return [
        difference([row for group in rng.choices(groups, k=len(groups)) for row in group], auroc)
        for _ in range(RESAMPLES)
    ]


def interval(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[int(0.025 * len(ordered))], ordered[int(0.975 * len(ordered)) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["tune", "validation"], default="validation")
    args = parser.parse_args()
    if not DATA.is_dir() or not TOOL.is_file():
        print(f"skipped: no labelled data at {DATA} or no {TOOL.name}")
        return 0
    overlap_baseline, auroc = load_tool()
    evaluator = Evaluator(metrics=["faithfulness"])
    rng = random.Random(7)
    print(f"{'set':24s} {'rows':>5s} {'judge':>6s} {'base':>6s} {'diff':>7s} {'95% interval':>17s}")
    draws: list[list[float]] = []
    diffs: list[float] = []
    for path in sorted(DATA.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        rows = [row for row in rows if row["split"] == args.split]
        scored: Scored = []
        for row in rows:
            sample = RagSample(user_input=row["user_input"], retrieved_contexts=row["retrieved_contexts"],
                               response=row["response"])
            value = evaluator.evaluate(sample).values().get("faithfulness")
            scored.append((unit_of(row["id"], path.stem), row["label"], 0.5 if value is None else float(value),
                           overlap_baseline(row)))
        labels = [label for _, label, _, _ in scored]
        judge_auc = auroc([judge for *_, judge, _ in scored], labels)
        base_auc = auroc([base for *_, base in scored], labels)
        resampled = bootstrap(scored, auroc, rng)
        low, high = interval(resampled)
        draws.append(resampled)
        diffs.append(judge_auc - base_auc)
        print(f"{path.stem:24s} {len(rows):5d} {judge_auc:6.3f} {base_auc:6.3f} {judge_auc - base_auc:+7.3f} "
              f"[{low:+.3f}, {high:+.3f}]")
    means = [statistics.fmean(column) for column in zip(*draws, strict=True)]
    low, high = interval(means)
    print(f"{'mean over sets':24s} {'':5s} {'':6s} {'':6s} {statistics.fmean(diffs):+7.3f} [{low:+.3f}, {high:+.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
