"""Peak memory and seconds of ``ragmetrics evaluate``'s batch path at scale: a run over N rows, then a resume of
the finished run (every row skipped), each in a fresh process so peak RSS is its own.

The judge is a trivial in-process one (two claims, every check entailed) so the figures measure the pipeline
(reading, writing, resuming, summarising), not a judge.

    .venv/bin/python benchmarks/batch_scale.py                    # 20,000 and 100,000 rows
    .venv/bin/python benchmarks/batch_scale.py --rows 1000000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import resource, sys, time
from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.evidence import Check, Claim, Verdict
from ragmetrics_core.judges.base import CheckResult, Extraction, SimilarityResult


class Trivial:
    name = "trivial"

    async def extract(self, request):
        claims = [Claim(text="claim one"), Claim(text="claim two")]
        return Extraction(response_claims=claims, reference_claims=claims)

    async def check(self, request):
        k = len(request.contexts)
        yes = Check(verdict=Verdict.ENTAILED)
        return CheckResult(
            response_vs_reference=[yes] * len(request.response_claims),
            reference_vs_response=[yes] * len(request.reference_claims),
            response_vs_chunks=[[yes] * k for _ in request.response_claims],
            reference_vs_chunks=[[yes] * k for _ in request.reference_claims],
        )

    async def similarity(self, question, candidates):
        return SimilarityResult(similarities=[1.0] * len(candidates))


started = time.perf_counter()
run = evaluate_file(sys.argv[1], out=sys.argv[2], judge=Trivial(), concurrency=8, progress=False,
                    metrics=["overall_precision", "overall_recall", "faithfulness", "hallucination"])
elapsed = time.perf_counter() - started
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{elapsed:.1f} {peak_mb:.0f} {run.evaluated} {run.resumed}")
"""


def measure(rows: int, folder: Path) -> list[tuple[str, float, float]]:
    source = folder / f"in-{rows}.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for index in range(rows):
            handle.write(json.dumps({
                "id": f"s{index}", "user_input": f"What is fact {index}?", "response": f"Fact {index} is true.",
                "retrieved_contexts": [f"Fact {index} is true.", "Unrelated text."], "reference": f"Fact {index}.",
            }) + "\n")
    out = folder / f"out-{rows}.jsonl"
    figures = []
    for phase in ("run", "resume"):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(source), str(out)], capture_output=True, text=True, check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        seconds, peak, _, _ = done.stdout.split()
        figures.append((phase, float(seconds), float(peak)))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="*", default=[20_000, 100_000])
    args = parser.parse_args()
    print(f"{'rows':>9} {'phase':>7} {'seconds':>8} {'peak RSS MB':>12}")
    with tempfile.TemporaryDirectory() as folder:
        for rows in args.rows:
            for phase, seconds, peak in measure(rows, Path(folder)):
                print(f"{rows:9,d} {phase:>7} {seconds:8.1f} {peak:12.0f}")


if __name__ == "__main__":
    main()
