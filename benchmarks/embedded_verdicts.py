"""Dump or compare every verdict the embedded judge gives, to prove a speed change leaves results unchanged.

Run by hand from the repository root::

    python benchmarks/embedded_verdicts.py dump before.json     # on the old code
    python benchmarks/embedded_verdicts.py compare before.json  # on the new code: exits 1 on any difference

Samples: the throughput benchmark's synthetic ones, and BEGIN and WiCE dev rows (read from ``../shared/data``,
skipped when absent). All fifteen metrics, so every evidence part is filled.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    args = parser.parse_args(argv)
    evaluator = Evaluator(judge=EmbeddedJudge())
    current = {name: record(sample, evaluator) for name, sample in samples(args.synthetic)}
    if args.mode == "dump":
        args.path.write_text(json.dumps(current), encoding="utf-8")
        print(f"{len(current)} samples dumped to {args.path}")
        return 0
    before: dict[str, Any] = json.loads(args.path.read_text(encoding="utf-8"))
    checks = verdict_diffs = other_diffs = 0
    for name, old in before.items():
        new = current[name]
        for part in ("scores", "explanations"):  # a dump without them compares verdicts only
            old.setdefault(part, new[part])
        for part in _MATRICES:
            for old_row, new_row in zip(old.get(part, []), new.get(part, []), strict=True):
                for old_check, new_check in zip(old_row, new_row, strict=True):
                    checks += 1
                    new_check = new_check[: len(old_check)]  # a dump made before checks carried support
                    if old_check[0] != new_check[0]:
                        verdict_diffs += 1
                        print(f"VERDICT {name} {part}: {old_check} -> {new_check}")
                    elif old_check != new_check:
                        other_diffs += 1
                        if other_diffs <= 20:
                            print(f"detail {name} {part}: {old_check} -> {new_check}")
        for part in ("scores", "explanations", "claims", "reference_claims", "entities", "questions", "similarities"):
            if old[part] != new[part]:
                verdict_diffs += 1
                print(f"{part.upper()} {name}: {old[part]} -> {new[part]}")
    print(f"{len(before)} samples, {checks} checks compared: {verdict_diffs} verdict/evidence differences, "
          f"{other_diffs} confidence/rationale/support differences")
    return 1 if verdict_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
