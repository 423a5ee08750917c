"""Dump or compare every verdict the embedded judge gives, to prove a speed change leaves results unchanged.

Run by hand from the repository root::

    python benchmarks/embedded_verdicts.py dump before.json     # on the old code
    python benchmarks/embedded_verdicts.py compare before.json  # on the new code: exits 1 on any difference

Samples: the throughput benchmark's synthetic ones, and BEGIN and WiCE dev rows (read from ``../shared/data``,
skipped when absent). All fifteen metrics, so every evidence part is filled. With ``--tune`` also every row of the
tune splits of ``../shared/data/faithfulness`` (English, Russian, Chinese) and the claim case table
(``tests/data/claim_cases.json``, which has references): what a refactoring of the word lists must leave alone.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from embedded_judge import (  # noqa: E402
    DATA_DIR,
    _vocabulary,
    load_begin,
    load_wice,
    synthetic_sample,
)

from ragmetrics_core.engine import Evaluator  # noqa: E402
from ragmetrics_core.judges.embedded import EmbeddedJudge  # noqa: E402
from ragmetrics_core.sample import RagSample  # noqa: E402

_MATRICES = ("response_vs_reference", "reference_vs_response", "response_vs_chunks", "reference_vs_chunks",
             "response_vs_contexts", "reference_vs_contexts")


def tune_samples() -> list[tuple[str, RagSample]]:
    """The tune rows of every faithfulness set and the claim case table's rows (questions, references, EN/RU/ZH)."""
    found = []
    for path in sorted((DATA_DIR / "faithfulness").glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
        found += [(f"tune {row['id']}", RagSample(user_input=row["user_input"], response=row["response"],
                                                   retrieved_contexts=row["retrieved_contexts"]))
                  for row in rows if row["split"] == "tune"]
    table = json.loads((REPO_ROOT / "tests" / "data" / "claim_cases.json").read_text(encoding="utf-8"))
    found += [(f"case {row['id']}", RagSample(user_input=row["question"], retrieved_contexts=row["contexts"],
                                              response=row["response"], reference=row["reference"]))
              for row in table["cases"]]
    return found


def samples(n_synthetic: int) -> list[tuple[str, RagSample]]:
    rng = random.Random(20240601)
    vocabulary = _vocabulary(rng)
    found = [(f"synthetic {number}", synthetic_sample(rng, vocabulary)) for number in range(n_synthetic)]
    if (DATA_DIR / "begin").is_dir():
        for source, rows in sorted(load_begin(None).items()):
            found += [(f"BEGIN {source} {number}", row.sample) for number, row in enumerate(rows)]
    if (DATA_DIR / "wice" / "dev.jsonl").is_file():
        found += [(f"WiCE {number}", sample) for number, (sample, _) in enumerate(load_wice(None))]
    return found


def record(sample: RagSample, evaluator: Evaluator) -> dict[str, Any]:
    result = evaluator.evaluate(sample)
    evidence = result.evidence
    assert evidence is not None
    out: dict[str, Any] = {
        "scores": {metric: [score.score, score.reason, score.label] for metric, score in result.scores.items()},
        "explanations": [explanation.model_dump(mode="json") for explanation in result.explanations],
    }
    for name in _MATRICES:
        matrix = getattr(evidence, name)
        if matrix is None:
            continue
        rows = matrix if matrix and isinstance(matrix[0], list) else [matrix]
        out[name] = [[[check.verdict.value, check.confidence, check.rationale, check.support] for check in row]
                     for row in rows]
    out["claims"] = [claim.text for claim in evidence.response_claims or []]
    out["reference_claims"] = [claim.text for claim in evidence.reference_claims or []]
    out["entities"] = [evidence.reference_entities, evidence.entities_in_contexts]
    out["questions"] = [[q.text, q.noncommittal] for q in evidence.generated_questions or []]
    out["similarities"] = evidence.question_similarities
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["dump", "compare"])
    parser.add_argument("path", type=Path)
    parser.add_argument("--synthetic", type=int, default=300)
    parser.add_argument("--tune", action="store_true", help="also the faithfulness tune splits and the case table")
    args = parser.parse_args(argv)
    evaluator = Evaluator(judge=EmbeddedJudge())
    chosen = samples(args.synthetic) + (tune_samples() if args.tune else [])
    current = {name: record(sample, evaluator) for name, sample in chosen}
    if args.mode == "dump":
        args.path.write_text(json.dumps(current), encoding="utf-8")
        print(f"{len(current)} samples dumped to {args.path}")
        return 0
    before: dict[str, Any] = json.loads(args.path.read_text(encoding="utf-8"))
    differences = compare(before, current)
    return 1 if differences.verdicts else 0


@dataclass
class Differences:
    checks: int = 0
    verdicts: int = 0
    """Verdict, shape (claim or chunk counts) and evidence differences: what makes a run differ."""
    details: int = 0
    """Confidence, rationale or support differences with the same verdict."""


def compare(before: dict[str, Any], current: dict[str, Any], out: TextIO = sys.stdout) -> Differences:
    """Print each difference between two dumps and count them. Two dumps with different claim or chunk counts
    (a claim split differently) are a difference of shape, reported as such, never compared pairwise."""
    found = Differences()
    for name, old in before.items():
        new = current.get(name)
        if new is None:
            found.verdicts += 1
            print(f"MISSING {name}: in the dump, not in this run's samples", file=out)
            continue
        for part in ("scores", "explanations"):  # a dump without them compares verdicts only
            old.setdefault(part, new[part])
        for part in _MATRICES:
            _compare_matrix(name, part, old.get(part, []), new.get(part, []), found, out)
        for part in ("scores", "explanations", "claims", "reference_claims", "entities", "questions", "similarities"):
            if old[part] != new[part]:
                found.verdicts += 1
                print(f"{part.upper()} {name}: {old[part]} -> {new[part]}", file=out)
    print(f"{len(before)} samples, {found.checks} checks compared: {found.verdicts} verdict/evidence differences, "
          f"{found.details} confidence/rationale/support differences", file=out)
    return found


def _compare_matrix(name: str, part: str, old: list[Any], new: list[Any], found: Differences, out: TextIO) -> None:
    old_shape, new_shape = [len(row) for row in old], [len(row) for row in new]
    if old_shape != new_shape:
        found.verdicts += 1
        print(f"SHAPE {name} {part}: {len(old)} rows of {old_shape} -> {len(new)} rows of {new_shape}", file=out)
        return
    for old_row, new_row in zip(old, new, strict=True):
        for old_check, new_check in zip(old_row, new_row, strict=True):
            found.checks += 1
            new_check = new_check[: len(old_check)]  # a dump made before checks carried support
            if old_check[0] != new_check[0]:
                found.verdicts += 1
                print(f"VERDICT {name} {part}: {old_check} -> {new_check}", file=out)
            elif old_check != new_check:
                found.details += 1
                if found.details <= 20:
                    print(f"detail {name} {part}: {old_check} -> {new_check}", file=out)


if __name__ == "__main__":
    sys.exit(main())
